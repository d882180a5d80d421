"""The exceptions of the bgbench package."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence


class ReportError(Exception):
    """A report folder is not whole or cannot be read; `path` names the file at fault."""

    def __init__(self, message: str, path: Optional[Path] = None) -> None:
        super().__init__(message)
        self.path = path


class BinaryNotFound(Exception):
    """No bgbench binary was found (argument, BGBENCH_BINARY, then PATH)."""


class BGBenchError(Exception):
    """The bgbench binary failed.

    `returncode` is its exit code (64: a usage error, 65: bad data, 73: an output it
    will not replace, ...: docs/cli.md), `stderr` all it wrote there, `args` the command.
    """

    def __init__(self, returncode: int, stderr: str, args: Sequence[str]) -> None:
        self.returncode = returncode
        self.stderr = stderr
        self.command = list(args)
        self.first_line = first_line(stderr)
        super().__init__(f"bgbench exited with code {returncode}: {self.first_line}")


def first_line(text: str) -> str:
    """The first non-empty line of `text`, or a placeholder when there is none."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return "(no message on stderr)"
