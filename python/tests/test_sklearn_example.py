"""python/examples/sklearn_policy.py: its features on hand-built opens, its plan message by
message with a stand-in model, and a tiny train-then-serve run with the binary (skipped
without scikit-learn)."""

from __future__ import annotations

import importlib.util
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import bgbench
from bgbench.policy import DAY, MINUTE, SECOND

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "python" / "examples" / "sklearn_policy.py"
spec = importlib.util.spec_from_file_location("sklearn_policy", EXAMPLE)
sk = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sk)


def test_features_of_a_hand_built_history() -> None:
    counts = np.zeros((9, 96))
    counts[0, 30] = 1  # a Monday, 07:30
    counts[7, 30] = 2  # the next Monday, 07:30
    counts[7, 33] = 1  # and 08:15
    counts[5, 90] = 1  # a Saturday, 22:30
    x = sk.day_features(counts, 8)  # day 8, a Tuesday: days 0-7 are read
    f = {name: x[:, i] for i, name in enumerate(sk.FEATURES)}
    assert list(f["quarter_hour"]) == list(range(96))
    assert set(f["weekday"]) == {1} and set(f["history_days"]) == {8}
    assert f["here_7d"][30] == 2 / 7  # days 1-7: only day 7's two
    assert f["near_28d"][30] == 3 / 8 and f["near_28d"][31] == 4 / 8 and f["near_28d"][28] == 3 / 8
    assert f["near_28d"][27] == 0 and f["near_28d"][36] == 0
    assert f["near_same_weekday"][30] == 0  # no Tuesday before day 8
    assert f["near_same_kind"][30] == 3 / 6  # weekdays: days 0-4 and 7
    assert f["near_yesterday"][31] == 3 and f["near_yesterday"][30] == 2
    assert set(f["opens_per_day"]) == {5 / 8}
    assert sk.day_features(counts, 0)[:, 2:].sum() == 0  # day 0: no history at all


def test_training_rows_label_each_quarter_hour_with_an_open() -> None:
    devices = np.array([0, 0, 1])
    seconds = np.array([30 * 900 + 10.0, 86400 + 95 * 900 + 899.0, 5 * 900.0])
    x, y = sk.training_rows(devices, seconds, days=2)
    assert x.shape == (2 * 2 * 96, len(sk.FEATURES))
    assert list(np.flatnonzero(y)) == [30, 96 + 95, 2 * 96 + 5]
    assert x[96 + 30, 3] == 1.0  # device 0, day 1: day 0's open in its quarter-hour


@pytest.mark.parametrize(
    "text, line",
    [
        ("user,when\nu1,5\n", "{path}: expected events.csv (columns event, time_s) or an opens trace (columns device, timestamp)"),
        ("device,timestamp\nu1,5\nu1,2026-01-05T07:00:00\n", "{path}:3: timestamp: expected seconds since day 0 (an ISO 8601 trace is not read here)"),
        ("", "{path}: not a CSV file: No columns to parse from file"),
    ],
)
def test_a_bad_trace_is_one_line_and_exit_65(tmp_path: Path, capsys, text: str, line: str) -> None:
    path = tmp_path / "trace.csv"
    path.write_text(text)
    with pytest.raises(SystemExit) as stop:
        sk.read_opens(str(path))
    assert stop.value.code == 65
    assert capsys.readouterr().err == "error: " + line.format(path=path) + "\n"


def test_a_trace_without_opens_trains_nothing(tmp_path: Path, capsys) -> None:
    path = tmp_path / "events.csv"
    path.write_text("policy,seed,device,time_s,event\nnone,1,0,60.0,requested\n")
    with pytest.raises(SystemExit) as stop:
        sk.train(str(path), str(tmp_path / "model.pkl"), None)
    assert stop.value.code == 65
    assert capsys.readouterr().err == f"error: {path}: expected opens to learn from, found none\n"
    assert not (tmp_path / "model.pkl").exists()


def test_a_missing_trace_or_model_is_exit_66(tmp_path: Path, capsys) -> None:
    for call in (lambda: sk.read_opens(str(tmp_path / "none.csv")), lambda: sk.serve(str(tmp_path / "none.pkl"), 0.1, 300, 3600)):
        with pytest.raises(SystemExit) as stop:
            call()
        assert stop.value.code == 66
    err = capsys.readouterr().err.splitlines()
    assert err == [f"error: {tmp_path / name}: cannot read it: No such file or directory" for name in ("none.csv", "none.pkl")]


class _Stub:
    """A model that gives quarter-hours 30 (07:30) and 80 (20:00) probability 0.9, the
    others 0.1, and records the feature rows it was asked about."""

    def __init__(self):
        self.asked = []

    def predict_proba(self, x):
        self.asked.append(x.copy())
        p = np.full(96, 0.1)
        p[[30, 80]] = 0.9
        return np.column_stack([1 - p, p])


def _serve(policy, messages):
    requests = io.BytesIO("".join(json.dumps(m) + "\n" for m in messages).encode())
    answers = io.BytesIO()
    policy.serve(requests, answers)
    return [json.loads(line) for line in answers.getvalue().decode().splitlines()]


def test_the_plan_message_by_message() -> None:
    stub = _Stub()
    policy = sk.Predicted(stub, threshold=0.5, lead_us=5 * MINUTE, min_gap_us=13 * 3600 * SECOND)
    state = {"battery": 1.0, "charging": False, "low_power": False, "network": "wifi", "screen_on": False, "foreground": False}
    wake = 30 * 15 * MINUTE - 5 * MINUTE  # 07:25
    evening = 80 * 15 * MINUTE - 5 * MINUTE  # 19:55
    answers = _serve(
        policy,
        [
            {"type": "hello", "protocol": 1},
            {"type": "start", "seq": 0, "device": 3, "now": 0, "horizon": 3 * DAY, "seed": [1, 2, 3, 4], **state},
            {"type": "run_started", "seq": 1, "device": 3, "now": wake, **state},  # 13 h gap: not 19:55
            {"type": "opened", "seq": 2, "device": 3, "now": 30 * 15 * MINUTE + 60 * SECOND, **state},
            {"type": "midnight", "seq": 3, "device": 3, "now": DAY, **state},
            {"type": "denied", "seq": 4, "device": 3, "now": DAY + wake, "reason": "bar_off", "retry_at": None, **state},
            {"type": "denied", "seq": 5, "device": 3, "now": DAY + evening, "reason": "budget", "retry_at": DAY + evening + 3600 * SECOND, **state},
            {"type": "start", "seq": 0, "device": 4, "now": 0, "horizon": DAY, "seed": [1, 2, 3, 4], **state},
        ],
    )
    assert answers[0]["name"] == "sklearn-hgb" and answers[0]["knob"] == {"name": "threshold", "value": 0.5}
    assert answers[0]["callbacks"] == ["opened", "denied", "run_started", "midnight"]
    assert answers[1:] == [
        {"seq": 0, "decision": "request", "at": wake},
        {"seq": 1, "decision": "cancel"},
        {"seq": 2, "decision": "keep"},
        {"seq": 3, "decision": "request", "at": DAY + wake},
        {"seq": 4, "decision": "request", "at": DAY + evening},  # no retry time: 15 min on, then 19:55
        {"seq": 5, "decision": "cancel"},  # nothing of day 1 is left after 20:55
        {"seq": 0, "decision": "request", "at": wake},  # device 4 starts afresh
    ]
    # Day 1 was predicted from day 0's open at 07:31; device 4's day 0 from nothing.
    assert len(stub.asked) == 3
    assert stub.asked[1][30, 3] == 1.0 and stub.asked[1][:, 2].max() == 1
    assert stub.asked[2][:, 2:].sum() == 0


def test_train_then_serve_against_fixed(binary: str, tmp_path: Path) -> None:
    pytest.importorskip("sklearn", reason="scikit-learn is not installed (pip install scikit-learn)")
    train, score = tmp_path / "train.csv", tmp_path / "score.csv"
    for path, seed in ((train, "7"), (score, "8")):  # other users for training than for scoring
        subprocess.run([binary, "habits", "--devices", "20", "--days", "14", "--seed", seed, "--out", str(path)], check=True)
    model = tmp_path / "model.pkl"
    subprocess.run([sys.executable, str(EXAMPLE), "train", "--trace", str(train), "--model", str(model)], check=True)
    command = [sys.executable, str(EXAMPLE), "serve", "--model", str(model), "--threshold", "0.2"]
    reports = [
        bgbench.run(
            policy="external,fixed",
            external=command,
            extra_args=["--opens-trace", str(score), "--days", "7", "--threads", threads],
            out=tmp_path / f"run-{threads}",
            binary=binary,
        )
        for threads in ("1", "2")
    ]
    # run.json records the handshake's knob as the JSON text it was sent as.
    knob = '{"name":"threshold","value":0.2}'
    assert reports[0].run["external_policies"]["external"] == {"name": "sklearn-hgb", "version": "1", "knob": knob}
    fleet = reports[0].summary.query("archetype == 'all'").set_index("policy")
    assert 0 < fleet.loc["external", "runs_per_day"] < fleet.loc["fixed", "runs_per_day"]
    # No state across devices: another thread count gives the same summary.
    assert reports[0].summary.equals(reports[1].summary)
