"""bgbench from Python: run the simulator and read its report folders as pandas DataFrames.

    import bgbench
    r = bgbench.run(policy="fixed,adaptive", days=30, devices=200)
    print(r.paired.query("metric == 'fresh_open_rate'"))

`read(folder)` reads any report folder (run, replicated, shard, merged, sweep, frontier);
`run`, `sweep` and `frontier` run the binary (argument `binary=`, else the environment
variable BGBENCH_BINARY, else `bgbench` on PATH) and read what it wrote. Units come from
the folder's long.csv (`report.units`, each DataFrame's `.attrs["units"]`).
"""

from .binary import find_binary, version
from .errors import BGBenchError, BinaryNotFound, ReportError
from .policy import CANCEL, Policy, Random, View

# pandas is imported when a report is first read or run, so that a policy served over
# the external protocol (bgbench.Policy) needs the standard library only.
_LAZY = {"Report": "report", "read": "report", "run": "runner", "sweep": "runner", "frontier": "runner"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'bgbench' has no attribute {name!r}")

__all__ = [
    "CANCEL",
    "BGBenchError",
    "BinaryNotFound",
    "Report",
    "Policy",
    "Random",
    "ReportError",
    "View",
    "find_binary",
    "frontier",
    "read",
    "run",
    "sweep",
    "version",
]
