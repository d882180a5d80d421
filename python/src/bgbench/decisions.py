"""The observation and the actions of the Gymnasium environment (`bgbench.gym`), without
gymnasium: what a policy sees at a decision as a vector, and what each action asks. The
environment and a policy served from what an agent learned in it (`bgbench.Policy`,
python/examples/rl_agent.py) use this one module, so the agent sees and does the same in
training and when served.

A decision message of the external protocol (docs/protocol.md) is a dict; `Device`
follows one device's messages (`start` first), tracks what the messages tell of its past
(the last open, run start and request) and turns a message into the observation
(`OBSERVATION` names its components) and an action into the protocol's answer.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .policy import CANCEL, DAY, HOUR, MINUTE, SECOND, Random

#: The callbacks a `Device` observation distinguishes; `end` is the terminal observation
#: (bgbench closed the channel at the device's horizon).
CALLBACKS = ("start", "opened", "denied", "run_started", "run_ended", "midnight", "end")
#: The callbacks the environment subscribes to (`denied` only without a denial grid).
SUBSCRIBED = ("opened", "denied", "run_started", "run_ended", "midnight")
NETWORKS = ("offline", "wifi", "lte", "5g")
STATUSES = ("new_data", "no_data", "failed", "expired", "killed")
REASONS = (
    "foreground", "bar_off", "force_quit", "low_power", "low_battery", "not_submitted",
    "spacing", "budget", "busy", "doze", "quota", "light_doze",
)  # fmt: skip
#: Times since an event are in hours and stop at a week: a week or more, or never, is 168.
SINCE_CAP_HOURS = 168.0

#: The observation's components, in order, with their bounds (low, high).
OBSERVATION: Tuple[Tuple[str, float, float], ...] = (
    *((f"callback={c}", 0.0, 1.0) for c in CALLBACKS),
    ("hour_of_day", 0.0, 24.0),
    ("weekday", 0.0, 6.0),
    ("elapsed", 0.0, 1.0),
    ("battery", 0.0, 1.0),
    ("charging", 0.0, 1.0),
    ("low_power", 0.0, 1.0),
    ("screen_on", 0.0, 1.0),
    ("foreground", 0.0, 1.0),
    *((f"network={n}", 0.0, 1.0) for n in NETWORKS),
    ("hours_since_open", 0.0, SINCE_CAP_HOURS),
    ("hours_since_run", 0.0, SINCE_CAP_HOURS),
    ("hours_since_request", 0.0, SINCE_CAP_HOURS),
    *((f"status={s}", 0.0, 1.0) for s in STATUSES),
    *((f"reason={r}", 0.0, 1.0) for r in REASONS),
)
INDEX = {name: i for i, (name, _, _) in enumerate(OBSERVATION)}

#: The default delays of the actions: 5 min to 8 h, each about twice the one before.
DELAYS = ("5m", "15m", "30m", "1h", "2h", "4h", "8h")
#: The longest delay: a request may be at most a week beyond the horizon (docs/protocol.md).
MAX_DELAY = 7 * DAY

_UNITS = {"s": SECOND, "m": MINUTE, "h": HOUR, "d": DAY}
_DURATION = re.compile(r"^([0-9]+(?:\.[0-9]+)?)([smhd])$")


def duration(value: Union[str, int, float], what: str = "a delay") -> int:
    """A duration in microseconds from `"15m"` (s, m, h, d) or a number of seconds."""
    if isinstance(value, bool):
        raise ValueError(f"{what} {value!r}: expected a duration such as '15m', '2h' or a number of seconds")
    if isinstance(value, (int, float)):
        seconds = float(value)
    else:
        match = _DURATION.match(str(value).strip())
        if match is None:
            raise ValueError(f"{what} {value!r}: expected a duration such as '15m', '2h' or a number of seconds")
        seconds = float(match.group(1)) * _UNITS[match.group(2)] / SECOND
    micros = int(seconds * SECOND + 0.5)
    if not (SECOND <= micros <= MAX_DELAY):
        raise ValueError(f"{what} {value!r}: expected 1 s to 7 days")
    return micros


def label(micros: int) -> str:
    """A duration as its shortest exact spelling: 900000000 is '15m'."""
    for unit in ("d", "h", "m"):
        if micros % _UNITS[unit] == 0:
            return f"{micros // _UNITS[unit]}{unit}"
    return f"{micros / SECOND:g}s"


def actions(delays: Sequence[int]) -> List[str]:
    """The actions' labels, by index: `keep`, `cancel`, then `in D` for each delay, then
    `grid D` for each delay."""
    return ["keep", "cancel", *(f"in {label(d)}" for d in delays), *(f"grid {label(d)}" for d in delays)]


Decision = Union[None, int, Any]  # None (keep), a time in µs (request) or CANCEL


class Device:
    """One device's decisions: its observation and the answer each action gives.

    `delays` are the actions' delays in microseconds (`duration()`). The actions are
    `keep` (leave the pending request), `cancel` (withdraw it), `in D` (request a wake D
    from now) and `grid D`: request the first point after now of the grid of spacing D
    through the last requested time (`at`, `at + D`, `at + 2D`, ...: `fixed`'s answer);
    before any request the grid's point is a phase in [0, D) drawn from the device's
    policy stream (its first uniform draw times D, truncated: `fixed`'s first request), so
    playing `grid D` at `start` and at each run start (and denial) is `fixed` with
    interval D.
    """

    def __init__(self, delays: Sequence[int]):
        self.delays = [int(d) for d in delays]
        if not self.delays:
            raise ValueError("delays: expected at least one delay")
        self.labels = actions(self.delays)
        self.low = np.array([low for _, low, _ in OBSERVATION], dtype=np.float32)
        self.high = np.array([high for _, _, high in OBSERVATION], dtype=np.float32)
        self.horizon = 1
        self.phase_draw = 0.0
        self.last_open: Optional[int] = None
        self.last_run: Optional[int] = None
        self.last_request: Optional[int] = None  # when the last request was made
        self.anchor: Optional[int] = None  # the time it asked for: the grid's point

    def see(self, message: Mapping[str, Any]) -> None:
        """Takes in a decision message (call it once for each, `start` first)."""
        kind, now = message["type"], message["now"]
        if kind == "start":
            self.horizon = max(1, int(message["horizon"]))
            self.phase_draw = Random(message["seed"]).uniform()
            self.last_open = self.last_run = self.last_request = self.anchor = None
        elif kind == "opened":
            self.last_open = now
        elif kind == "run_started":
            self.last_run = now

    def observe(self, message: Mapping[str, Any], end: bool = False) -> np.ndarray:
        """The observation of a message seen (`end`: the terminal one, from the last
        message's view at the horizon)."""
        o = np.zeros(len(OBSERVATION), dtype=np.float32)
        now = self.horizon if end else int(message["now"])
        o[INDEX["callback=end" if end else f"callback={message['type']}"]] = 1.0
        o[INDEX["hour_of_day"]] = (now % DAY) / HOUR
        o[INDEX["weekday"]] = (now // DAY) % 7
        o[INDEX["elapsed"]] = min(1.0, now / self.horizon)
        o[INDEX["battery"]] = min(1.0, max(0.0, float(message["battery"])))
        for flag in ("charging", "low_power", "screen_on", "foreground"):
            o[INDEX[flag]] = 1.0 if message[flag] else 0.0
        o[INDEX[f"network={message['network']}"]] = 1.0
        o[INDEX["hours_since_open"]] = _hours_since(self.last_open, now)
        o[INDEX["hours_since_run"]] = _hours_since(self.last_run, now)
        o[INDEX["hours_since_request"]] = _hours_since(self.last_request, now)
        if not end and message["type"] == "run_ended":
            o[INDEX[f"status={message['status']}"]] = 1.0
        if not end and message["type"] == "denied":
            o[INDEX[f"reason={message['reason']}"]] = 1.0
        return o

    def decide(self, action: int, now: int) -> Decision:
        """The answer of action `action` at time `now`: None (keep), CANCEL or a time."""
        n = len(self.delays)
        if not 0 <= action < 2 + 2 * n:
            raise ValueError(f"action {action!r}: expected 0 to {1 + 2 * n} ({', '.join(self.labels)})")
        if action == 0:
            return None
        if action == 1:
            return CANCEL
        if action < 2 + n:
            at = now + self.delays[action - 2]
        else:
            at = self.grid_point(self.delays[action - 2 - n], now)
        self.last_request, self.anchor = now, at
        return at

    def grid_point(self, spacing: int, now: int) -> int:
        """The first point after `now` of the grid of `spacing` through the last requested
        time; before any request, the grid is through the phase (the first draw times
        `spacing`, truncated), and the phase itself is the answer when it is not past."""
        if self.anchor is None:
            # Swift: SimTime(rng.uniform() * Double(interval)), a truncation toward zero.
            phase = int(self.phase_draw * float(spacing))
            if phase >= now:  # at `start` (now 0), the phase itself, 0 included
                return phase
            return phase + ((now - phase) // spacing + 1) * spacing
        if self.anchor > now:
            return self.anchor
        return self.anchor + ((now - self.anchor) // spacing + 1) * spacing


def _hours_since(then: Optional[int], now: int) -> float:
    if then is None:
        return SINCE_CAP_HOURS
    return min(SINCE_CAP_HOURS, (now - then) / HOUR)


def delays_of(values: Iterable[Union[str, int, float]]) -> List[int]:
    """Each delay in microseconds, in the order given, each once."""
    out: List[int] = []
    for value in values:
        micros = duration(value)
        if micros in out:
            raise ValueError(f"delay {value!r}: given twice (as {label(micros)})")
        out.append(micros)
    return out
