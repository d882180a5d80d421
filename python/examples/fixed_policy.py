"""`fixed` (MODEL.md §7) in Python over the external protocol: ask every `interval` from a
uniform random phase, whatever happened. Every figure of summary.csv is identical to the
built-in `fixed`'s (python/tests/test_external_fixed.py checks it):

    bgbench --allow-external --policy external,fixed \\
        --set 'policies.external.command=["python3","python/examples/fixed_policy.py","--interval","900"]'

It ports Sources/BGBench/Policies/FixedPolicy.swift line for line: the phase is the first
uniform draw of the device's policy stream times the interval, truncated; every run is
followed by the next point of the grid; every denial too, which the handshake declares
as a rule (`denial_grid`) so that bgbench answers denials itself: fixed hears 92 denials
a device-day on the default scenario, and 3.6 run starts.
"""

import argparse
import os
import sys

# From a checkout, the package beside this example (installed or not) comes first.
_SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
if os.path.isdir(os.path.join(_SRC, "bgbench")):
    sys.path.insert(0, _SRC)
import bgbench  # noqa: E402


class Fixed(bgbench.Policy):
    name = "fixed-py"
    version = "1"
    callbacks = ("run_started",)

    def __init__(self, interval_us: int):
        self.interval = max(1, interval_us)
        self.denial_grid = self.interval
        self.knob = {"name": "interval", "value": self.interval}
        self.next = 0

    def start(self, view):
        # Swift: SimTime(rng.uniform() * Double(interval)), a truncation toward zero.
        self.next = int(view.random.uniform() * float(self.interval))
        return self.next

    def run_started(self, view):
        while self.next <= view.now:
            self.next += self.interval
        return self.next


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interval", type=float, default=900, help="seconds between attempts (default 900)")
    parser.add_argument("--batch", action="store_true", help="take a block's devices in frames (docs/protocol.md)")
    args = parser.parse_args()
    # TimeSpan: seconds to microseconds, rounded half away from zero.
    policy = Fixed(int(args.interval * 1_000_000 + 0.5))
    policy.batch = args.batch
    policy.serve()


if __name__ == "__main__":
    main()
