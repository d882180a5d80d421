"""Finding the bgbench binary and asking its version."""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Optional

from .errors import BGBenchError, BinaryNotFound

ENV_VARIABLE = "BGBENCH_BINARY"

NOT_FOUND = (
    "bgbench binary not found: install it with ./install.sh in the bgbench checkout "
    '(README.md, "Quick start"), or point BGBENCH_BINARY to it '
    "(e.g. BGBENCH_BINARY=/path/to/bgbench/.build/release/bgbench)"
)


def find_binary(binary: Optional[str] = None) -> str:
    """The bgbench executable to run.

    In order: `binary` (a path, or a name looked up on PATH), the environment variable
    BGBENCH_BINARY, then `bgbench` on PATH. Raises BinaryNotFound when the one chosen is
    missing or not executable, or when none is given and PATH has none.
    """
    if binary is not None:
        return _executable(str(binary), "binary=")
    from_env = os.environ.get(ENV_VARIABLE)
    if from_env:
        return _executable(from_env, ENV_VARIABLE)
    on_path = shutil.which("bgbench")
    if on_path is None:
        raise BinaryNotFound(NOT_FOUND)
    return on_path


def _executable(candidate: str, source: str) -> str:
    """`candidate` resolved to an executable file, or BinaryNotFound naming `source`."""
    if os.sep in candidate:
        found = candidate if os.path.isfile(candidate) and os.access(candidate, os.X_OK) else None
    else:
        found = shutil.which(candidate)
    if found is None:
        raise BinaryNotFound(f"{source} names '{candidate}', which is not an executable file. {NOT_FOUND}")
    return found


def version(binary: Optional[str] = None) -> str:
    """The line `bgbench --version` prints: version, commit and GSL."""
    command = [find_binary(binary), "--version"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BGBenchError(done.returncode, done.stderr, command)
    return done.stdout.strip().splitlines()[0] if done.stdout.strip() else ""
