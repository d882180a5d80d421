#!/usr/bin/env python3
"""A scikit-learn predictor served as a bgbench policy over the external protocol
(docs/protocol.md): gradient boosting of "an open in this quarter-hour" from the time of
the week and the device's own recent opens; the policy wakes `--lead` before the next
quarter-hour whose predicted probability reaches `--threshold` (its knob).

Trained offline on an opens trace, pickled, then served:

    # training data: opens of users the evaluation never meets (another seed)
    bgbench --policy none --days 56 --devices 300 --seed 1001 --trace-devices 300 --out /tmp/train
    python3 python/examples/sklearn_policy.py train --trace /tmp/train/events.csv --model /tmp/model.pkl
    bgbench --allow-external --policy external,fixed --set \\
      'policies.external.command=["python3","python/examples/sklearn_policy.py","serve","--model","/tmp/model.pkl"]'

`--trace` reads either bgbench's events.csv (its `open` rows, `--trace-devices K`) or an
opens trace (`device,timestamp`, seconds since day 0: `bgbench habits`, Datasets/traces).

The model sees only what the policy sees when it serves: the device's opens before the
day it predicts (counted by quarter-hour, the last `HISTORY_DAYS` days), the quarter-hour
and the day of the week. It predicts once a device-day, at midnight (at `start` for day
0), for all 96 quarter-hours at once, so serving costs one `predict_proba` call a
device-day. A process serves many devices one after another: `start` resets everything.
Deterministic: the model is trained with a fixed `random_state` and without early
stopping, and the policy draws nothing.

Errors are one line on standard error, `error: FILE: what was expected`, with bgbench's
exit codes: 65 for a trace or model that is not what is expected, 66 for a file that
cannot be read.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
from pathlib import Path

import numpy as np

_SRC = Path(__file__).resolve().parents[1] / "src"
if (_SRC / "bgbench").is_dir():
    sys.path.insert(0, str(_SRC))
import bgbench  # noqa: E402
from bgbench.policy import DAY, MINUTE  # noqa: E402

DATA_ERROR, NO_INPUT = 65, 66  # bgbench's exit codes (README.md, "Using it")
WINDOW = 15 * MINUTE
WINDOWS = 96  # quarter-hours a day
HISTORY_DAYS = 28
FEATURES = (
    "quarter_hour",
    "weekday",
    "history_days",  # days of history the device has (at most HISTORY_DAYS)
    "here_7d",  # opens a day in this quarter-hour, the last 7 days
    "near_28d",  # opens a day within ±30 min, the last 28 days
    "near_same_weekday",  # opens a day within ±30 min, the same weekday of the last 4 weeks
    "near_same_kind",  # the same on days of the same kind (weekday or weekend)
    "near_yesterday",  # opens within ±30 min yesterday
    "opens_per_day",  # the device's opens a day, the last 28 days
)


def _near(counts: np.ndarray) -> np.ndarray:
    """Each quarter-hour's opens within ±2 quarter-hours (±30 min) of the same day."""
    padded = np.pad(counts, ((0, 0), (3, 2))).cumsum(axis=1)
    return padded[:, 5:] - padded[:, :-5]


def day_features(counts: np.ndarray, day: int) -> np.ndarray:
    """The 96 feature rows (FEATURES) of day `day`, from `counts[d, w]`, the device's opens in
    quarter-hour w of day d, of which only the days before `day` are read."""
    start = max(0, day - HISTORY_DAYS)
    past = counts[start:day]  # (days, 96)
    n = past.shape[0]
    x = np.zeros((WINDOWS, len(FEATURES)))
    x[:, 0] = np.arange(WINDOWS)
    x[:, 1] = day % 7
    x[:, 2] = n
    if n == 0:
        return x
    near = _near(past)
    days = np.arange(start, day)
    x[:, 3] = past[-7:].mean(axis=0)
    x[:, 4] = near.mean(axis=0)
    same = (days % 7) == (day % 7)
    if same.any():
        x[:, 5] = near[same].mean(axis=0)
    kind = (days % 7 >= 5) == (day % 7 >= 5)
    if kind.any():
        x[:, 6] = near[kind].mean(axis=0)
    if days[-1] == day - 1:
        x[:, 7] = near[-1]
    x[:, 8] = past.sum() / n
    return x


def fail(message: str, code: int):
    """Stop with one line on standard error and the exit code."""
    print(f"error: {message}", file=sys.stderr)
    sys.exit(code)


# --- training -------------------------------------------------------------------------


def read_opens(path: str):
    """(device index, time in seconds) arrays of a trace's opens: events.csv's `open` rows,
    or an opens trace's rows (numeric `timestamp`, seconds since day 0). Devices are
    numbered in order of first appearance; a device that never opened the app is in
    neither, so it adds no training rows."""
    import pandas as pd

    try:
        frame = pd.read_csv(path)
    except OSError as error:
        fail(f"{path}: cannot read it: {error.strerror or error}", NO_INPUT)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        fail(f"{path}: not a CSV file: {str(error).splitlines()[0]}", DATA_ERROR)
    if "event" in frame.columns and "time_s" in frame.columns:
        if "policy" in frame.columns:  # one policy's rows: the opens are every policy's
            frame = frame[frame["policy"] == frame["policy"].iloc[0]]
        if "seed" in frame.columns:
            frame = frame[frame["seed"] == frame["seed"].iloc[0]]
        frame = frame[frame["event"] == "open"]
        seconds = frame["time_s"].astype(float)
    elif {"device", "timestamp"} <= set(frame.columns):
        seconds = pd.to_numeric(frame["timestamp"], errors="coerce")
        if seconds.isna().any():
            row = int(seconds.isna().to_numpy().argmax()) + 2  # the header is line 1
            fail(f"{path}:{row}: timestamp: expected seconds since day 0 (an ISO 8601 trace is not read here)", DATA_ERROR)
    else:
        fail(f"{path}: expected events.csv (columns event, time_s) or an opens trace (columns device, timestamp)", DATA_ERROR)
    devices = pd.factorize(frame["device"])[0]
    return devices, seconds.to_numpy()


def training_rows(devices: np.ndarray, seconds: np.ndarray, days: int):
    """The features and labels of every device-day and quarter-hour: label 1 when the
    device opened the app in that quarter-hour."""
    xs, ys = [], []
    for device in np.unique(devices):
        t = seconds[devices == device]
        counts = np.zeros((days, WINDOWS))
        day = (t // 86400).astype(int)
        keep = day < days
        np.add.at(counts, (day[keep], ((t[keep] % 86400) // 900).astype(int)), 1)
        for d in range(days):
            xs.append(day_features(counts, d))
            ys.append(counts[d] > 0)
    return np.vstack(xs), np.concatenate(ys).astype(int)


def make_model():
    from sklearn.ensemble import HistGradientBoostingClassifier

    # No early stopping (its validation split is random) and a fixed seed: the same trace
    # gives the same model. 100 trees of 15 leaves: on the default scenario's opens (198
    # users x 28 days, the last quarter of the users held out) their log loss was 0.1469
    # against 0.1474 for 150 trees of 31 leaves, and a day's prediction takes 1.7 ms
    # instead of 3.3 (one thread).
    return HistGradientBoostingClassifier(
        max_iter=100, learning_rate=0.1, max_leaf_nodes=15, early_stopping=False, random_state=0
    )


def train(trace: str, model_path: str, days: int | None) -> None:
    devices, seconds = read_opens(trace)
    if len(seconds) == 0:
        fail(f"{trace}: expected opens to learn from, found none", DATA_ERROR)
    span = int(seconds.max() // 86400) + 1
    days = min(days or span, span)
    x, y = training_rows(devices, seconds, days)
    model = make_model().fit(x, y)
    with open(model_path, "wb") as handle:
        pickle.dump({"model": model, "features": FEATURES, "trace": os.path.basename(trace), "days": days}, handle)
    print(
        f"trained on {trace}: {devices.max() + 1} devices x {days} days, {len(y)} quarter-hours, "
        f"{y.mean():.4f} with an open; wrote {model_path}"
    )


# --- serving --------------------------------------------------------------------------


class Predicted(bgbench.Policy):
    """Wake `lead` before the next quarter-hour of today whose predicted probability of an
    open reaches `threshold`, at least `min_gap` after the last run started."""

    name = "sklearn-hgb"
    version = "1"
    callbacks = ("opened", "denied", "run_started", "midnight")

    def __init__(self, model, threshold: float, lead_us: int, min_gap_us: int):
        self.model = model
        self.threshold = threshold
        self.lead = lead_us
        self.min_gap = min_gap_us
        self.knob = {"name": "threshold", "value": threshold}

    def start(self, view):
        days = view.horizon // DAY + 2
        self.counts = np.zeros((days, WINDOWS))
        self.last_run = None
        self.plan_day(0)
        return self.plan(view.now)

    def plan_day(self, day: int) -> None:
        """Today's probabilities: one predict_proba call for the 96 quarter-hours."""
        self.day = day
        p = self.model.predict_proba(day_features(self.counts, day))[:, 1]
        self.wanted = np.flatnonzero(p >= self.threshold)  # quarter-hours worth a wake

    def plan(self, after: int):
        """A request `lead` before the first wanted quarter-hour of today whose wake is at
        or after `after` and at least `min_gap` after the last run; CANCEL when none is
        left today (midnight plans again)."""
        if self.last_run is not None:
            after = max(after, self.last_run + self.min_gap)
        base = self.day * DAY
        for w in self.wanted:
            at = base + int(w) * WINDOW - self.lead
            if at >= after:
                return at
        return bgbench.CANCEL

    def opened(self, view):
        day = view.now // DAY
        self.counts[day, (view.now % DAY) // WINDOW] += 1
        return None

    def run_started(self, view):
        self.last_run = view.now
        return self.plan(view.now + 1)

    def denied(self, view):
        retry = view.retry_at if view.retry_at is not None else view.now + WINDOW
        return self.plan(max(retry, view.now + 1))

    def midnight(self, view):
        self.plan_day(view.now // DAY)
        return self.plan(view.now)


def serve(model_path: str, threshold: float, lead_s: float, min_gap_s: float) -> None:
    try:
        with open(model_path, "rb") as handle:
            saved = pickle.load(handle)
    except OSError as error:
        fail(f"{model_path}: cannot read it: {error.strerror or error}", NO_INPUT)
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError) as error:
        fail(f"{model_path}: expected a model `train` wrote: {error}", DATA_ERROR)
    if not isinstance(saved, dict) or tuple(saved.get("features", ())) != FEATURES:
        fail(f"{model_path}: expected a model of the features {', '.join(FEATURES)}: train it again", DATA_ERROR)
    Predicted(saved["model"], threshold, int(lead_s * 1e6), int(min_gap_s * 1e6)).serve()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="fit the model on an opens trace and pickle it")
    t.add_argument("--trace", required=True, help="events.csv (--trace-devices K) or an opens trace CSV")
    t.add_argument("--model", required=True, help="where to write the pickled model")
    t.add_argument("--days", type=int, default=None, help="only the trace's first DAYS days (default: all)")
    s = sub.add_parser("serve", help="answer bgbench over the external protocol")
    s.add_argument("--model", required=True, help="the pickled model `train` wrote")
    s.add_argument("--threshold", type=float, default=0.1, help="wake for a quarter-hour at this P(an open) (default 0.1)")
    s.add_argument("--lead", type=float, default=300, help="seconds before the quarter-hour to wake (default 300)")
    s.add_argument("--min-gap", type=float, default=3600, help="seconds between a run's start and the next wake (default 3600)")
    args = parser.parse_args()
    if args.command == "train":
        train(args.trace, args.model, args.days)
    else:
        # One thread: a process per bgbench worker already uses the cores, and 96 rows a
        # call are too few for threads to pay.
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        serve(args.model, args.threshold, args.lead, args.min_gap)


if __name__ == "__main__":
    main()
