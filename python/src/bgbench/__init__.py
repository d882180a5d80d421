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
from .report import Report, read
from .runner import frontier, run, sweep

__all__ = [
    "BGBenchError",
    "BinaryNotFound",
    "Report",
    "ReportError",
    "find_binary",
    "frontier",
    "read",
    "run",
    "sweep",
    "version",
]
