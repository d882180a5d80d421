"""A Python policy that listens to the user, as `adaptive` does: it subscribes to opens,
denials, run starts and ends and midnights, and asks for a wake `--gap` seconds after each
open (a denial: at the platform's retry time when it says one, else a gap later). Not a
good policy: a load for measuring the bridge when a policy hears ~27 messages a
device-day (Benchmarks/README.md, "External policies").

    bgbench --allow-external --policy external \\
        --set 'policies.external.command=["python3","python/examples/opens_policy.py"]'
"""

import argparse
import os
import sys

_SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
if os.path.isdir(os.path.join(_SRC, "bgbench")):
    sys.path.insert(0, _SRC)
import bgbench  # noqa: E402


class AfterOpens(bgbench.Policy):
    name = "after-opens-py"
    version = "1"
    callbacks = ("opened", "denied", "run_started", "run_ended", "midnight")

    def __init__(self, gap_us: int):
        self.gap = gap_us
        self.knob = {"name": "gap", "value": gap_us}

    def start(self, view):
        self.opens = 0
        return None

    def opened(self, view):
        self.opens += 1
        return view.now + self.gap

    def denied(self, view):
        return view.retry_at if view.retry_at is not None and view.retry_at > view.now else view.now + self.gap

    def run_started(self, view):
        return None

    def run_ended(self, view):
        return None

    def midnight(self, view):
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gap", type=float, default=1800, help="seconds after an open (default 1800)")
    parser.add_argument("--batch", action="store_true", help="take a block's devices in frames (docs/protocol.md)")
    args = parser.parse_args()
    policy = AfterOpens(int(args.gap * 1_000_000 + 0.5))
    policy.batch = args.batch
    policy.serve()


if __name__ == "__main__":
    main()
