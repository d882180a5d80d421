"""A bgbench policy in Python: the external-policy protocol (docs/protocol.md), standard
library only.

Subclass `Policy`, declare its name, version and the callbacks it subscribes to, answer
them, and call `serve()` in the program `policies.external.command` names:

    class Every30Minutes(Policy):
        name, version = "every-30m", "1"
        callbacks = ("run_started",)

        def start(self, view):
            return view.now + 30 * MINUTE      # a request at that time (microseconds)

        def run_started(self, view):
            return view.now + 30 * MINUTE

    if __name__ == "__main__":
        Every30Minutes().serve()

    bgbench --allow-external --policy external,fixed \
        --set 'policies.external.command=["python3","every30.py"]'

One process serves one device at a time, from `start` to the next device's `start`:
reset the device's state in `start`. A policy that sets `batch = True` is sent a block's
devices side by side instead, in frames (docs/protocol.md, "Batching"): `serve()` then
gives each device its own copy of the policy (`for_device()`, a shallow copy made at the
device's `start`), so state set in `start` and the callbacks stays the device's own;
anything shared (a fitted model, a table) is set up before `serve()`. A callback returns None (keep the pending request),
an integer (a request at that time, in microseconds since the run's start, no earlier
than `view.now`) or `CANCEL`. Times are integers in microseconds (`SECOND`, `MINUTE`,
`HOUR`, `DAY`). `view.random` is the device's own stream of bgbench's generator
(xoshiro256**), the stream a Swift policy draws from, so a port of a built-in policy can
be exact. `print()` is safe: the protocol uses file descriptors 3 and 4, and the
process's standard output and error go to bgbench's standard error, prefixed.
"""

from __future__ import annotations

import copy
import json
import os
import sys
from typing import Any, Dict, Iterable, Optional

PROTOCOL = 1
SECOND = 1_000_000
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE
DAY = 24 * HOUR
MAX_LINE = 65_536

CALLBACKS = ("opened", "denied", "run_started", "run_ended", "state_changed", "midnight")


class _Cancel:
    def __repr__(self) -> str:
        return "CANCEL"


#: Withdraw the pending request.
CANCEL = _Cancel()

_MASK = (1 << 64) - 1


class Random:
    """bgbench's generator, xoshiro256** (Blackman and Vigna 2018), from the four 64-bit
    words of a device's policy stream (the `seed` of `start`): `uniform()` gives the
    draws a Swift policy's `context.random.uniform()` gives, bit for bit."""

    __slots__ = ("s",)

    def __init__(self, seed: Iterable[int]):
        self.s = [int(x) & _MASK for x in seed]
        if len(self.s) != 4:
            raise ValueError("a seed is four 64-bit words")

    def next(self) -> int:
        """The next 64-bit output."""
        s0, s1, s2, s3 = self.s
        x = (s1 * 5) & _MASK
        result = ((((x << 7) | (x >> 57)) & _MASK) * 9) & _MASK
        t = (s1 << 17) & _MASK
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 45) | (s3 >> 19)) & _MASK
        self.s = [s0, s1, s2, s3]
        return result

    def uniform(self) -> float:
        """A uniform draw in [0, 1) with 53 random bits."""
        return (self.next() >> 11) * (2.0**-53)


def answer(seq: int, decision: Any) -> str:
    """The answer line, LF included, to decision message `seq`: None keeps the pending
    request, CANCEL withdraws it, an integer time (µs) requests a wake then."""
    if decision is None:
        return '{"seq":%d,"decision":"keep"}\n' % seq
    if decision is CANCEL:
        return '{"seq":%d,"decision":"cancel"}\n' % seq
    return '{"seq":%d,"decision":"request","at":%d}\n' % (seq, decision)


class View:
    """What a policy sees at a decision: the message's fields as attributes (`now`,
    `device`, `battery`, `charging`, `low_power`, `network`, `screen_on`, `foreground`;
    `horizon`, `platform` and `random` at `start`; `reason` and `retry_at` at `denied`;
    `status` at `run_ended`)."""

    def __init__(self, message: Dict[str, Any]):
        self.__dict__.update(message)

    def __repr__(self) -> str:
        return f"View({self.__dict__!r})"


class ProtocolError(Exception):
    """bgbench sent something this version of the protocol does not know."""


class Policy:
    """A policy served over the external protocol. Class attributes are the handshake:

    - `name`, `version`: recorded by bgbench;
    - `knob`: optional, e.g. {"name": "interval", "value": "15m"};
    - `callbacks`: the callbacks bgbench sends (`start` always); any of
      opened, denied, run_started, run_ended, state_changed, midnight;
    - `denial_grid`: optional, microseconds: bgbench answers every denial itself with
      the first point after it of the grid through the last requested time (as `fixed`
      does), and never sends `denied` (do not subscribe to it then);
    - `batch`: True to take a block's devices side by side in frames, one copy of the
      policy per device (`for_device()`); fewer round trips, the same reports.
    """

    name = "python-policy"
    version = "0"
    knob: Optional[Dict[str, Any]] = None
    callbacks: Iterable[str] = ()
    denial_grid: Optional[int] = None
    batch = False

    # The callbacks: each returns None, an integer time or CANCEL.
    def start(self, view: View):
        return None

    def opened(self, view: View):
        return None

    def denied(self, view: View):
        return None

    def run_started(self, view: View):
        return None

    def run_ended(self, view: View):
        return None

    def state_changed(self, view: View):
        return None

    def midnight(self, view: View):
        return None

    def hello(self) -> Dict[str, Any]:
        """The handshake message."""
        message: Dict[str, Any] = {
            "type": "hello",
            "protocol": PROTOCOL,
            "name": self.name,
            "version": self.version,
            "callbacks": list(self.callbacks),
        }
        if self.knob is not None:
            message["knob"] = self.knob
        if self.denial_grid is not None:
            message["denials"] = {"rule": "grid", "interval": int(self.denial_grid)}
        if self.batch:
            message["batch"] = True
        return message

    def for_device(self) -> "Policy":
        """A batched policy's own copy for one device, made at its `start`: a shallow copy
        of this one. Override it when the policy keeps a mutable container that each
        device must have to itself (or create such state in `start`)."""
        return copy.copy(self)

    def serve(self, requests: Optional[Any] = None, answers: Optional[Any] = None) -> None:
        """Answers bgbench until it closes the request channel (fds from the environment
        variable BGBENCH_EXTERNAL_FDS, "3,4"), then returns."""
        if requests is None or answers is None:
            fds = os.environ.get("BGBENCH_EXTERNAL_FDS")
            if not fds:
                sys.exit("bgbench.Policy.serve: BGBENCH_EXTERNAL_FDS is not set: run me as bgbench's external policy")
            read_fd, write_fd = (int(x) for x in fds.split(","))
            requests = os.fdopen(read_fd, "rb", buffering=1 << 16)
            answers = os.fdopen(write_fd, "wb", buffering=0)
        handlers = {name: getattr(self, name) for name in CALLBACKS}
        handlers["start"] = self.start
        loads, write = json.loads, answers.write
        devices: Dict[int, Policy] = {}  # batched: each device's own copy
        for line in requests:
            message = loads(line)
            kind = message.get("type")
            if kind == "hello":
                if message.get("protocol") != PROTOCOL:
                    raise ProtocolError(f"bgbench speaks protocol {message.get('protocol')}, this is {PROTOCOL}")
                write((json.dumps(self.hello()) + "\n").encode())
                continue
            if kind == "batch":
                for device in message.get("ended", ()):
                    devices.pop(device, None)
                out = []
                for _ in range(message["count"]):
                    m = loads(next(requests))
                    kind = m["type"]
                    if kind == "start":
                        policy = devices[m["device"]] = self.for_device()
                        m["random"] = Random(m["seed"])
                    else:
                        policy = devices[m["device"]]
                    out.append(answer(m["seq"], getattr(policy, kind)(View(m))))
                write("".join(out).encode())
                continue
            if kind == "start":
                message["random"] = Random(message["seed"])
            write(answer(message["seq"], handlers[kind](View(message))).encode())
