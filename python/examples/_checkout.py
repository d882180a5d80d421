"""Run from a checkout, the examples use the package beside them (python/src), installed
or not: each example imports this module before `bgbench` (an example's own folder is
the first entry of sys.path when it runs as a script)."""

import os
import sys

_SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
if os.path.isdir(os.path.join(_SRC, "bgbench")) and _SRC not in sys.path:
    sys.path.insert(0, _SRC)
