#!/usr/bin/env python3
"""Writes, or checks, one generated block of a Markdown file: the text between
`<!-- NAME:begin -->` and `<!-- NAME:end -->` (each alone on its line). The generator
scripts of README.md and docs/ pipe their block into it, so every block is written the
same way and `--check` can tell a stale block from a fresh one without writing anything.

    generator ... | python3 Scripts/python/docblock.py FILE NAME            # rewrite the block
    generator ... | python3 Scripts/python/docblock.py --check FILE NAME    # exit 1 when it differs

The text read on standard input replaces the block's lines whole (a trailing newline is
dropped). With `--check` the file is left as it is; a difference prints a unified diff
naming the file and block and exits 1. A file without exactly one pair of markers exits 65.
Standard library only.
"""

from __future__ import annotations

import difflib
import inspect
import sys


def split(doc: str, path: str, name: str) -> tuple[str, str, str]:
    """The file's text through its begin marker's line, the block's lines, and the end marker's line on."""
    lines = doc.split("\n")
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    if lines.count(begin) != 1 or lines.count(end) != 1 or lines.index(begin) > lines.index(end):
        sys.exit(f"error: {path} needs one '{begin}' line and one '{end}' line after it")
    b, e = lines.index(begin), lines.index(end)
    return "\n".join(lines[:b + 1]) + "\n", "\n".join(lines[b + 1:e]), "\n" + "\n".join(lines[e:])


def cli(main, usage: str) -> None:
    """Runs a block generator's `main(*arguments)` as a script: exit 64 with its usage line
    when the argument count is not main's."""
    if len(sys.argv) - 1 != len(inspect.signature(main).parameters):
        print(f"usage: {usage}", file=sys.stderr)
        sys.exit(64)
    sys.exit(main(*sys.argv[1:]))


def main(argv: list[str]) -> int:
    check = argv[:1] == ["--check"]
    args = argv[1:] if check else argv
    if len(args) != 2:
        print("usage: docblock.py [--check] FILE NAME < TEXT", file=sys.stderr)
        return 64
    path, name = args
    with open(path, encoding="utf-8") as f:
        doc = f.read()
    try:
        head, block, tail = split(doc, path, name)
    except SystemExit as error:
        print(error, file=sys.stderr)
        return 65
    text = sys.stdin.read().rstrip("\n")
    if check:
        if block == text:
            print(f"{path}: block {name} is up to date")
            return 0
        diff = difflib.unified_diff(
            block.splitlines(), text.splitlines(), f"{path} ({name}, committed)", f"{path} ({name}, regenerated)",
            lineterm="")
        print("\n".join(diff))
        print(f"error: {path}: block {name} is stale: rerun its generator (named in the block) and commit the result")
        return 1
    with open(path, "w", encoding="utf-8") as f:
        f.write(head + text + tail if text else head.rstrip("\n") + tail)
    print(f"{path}: block {name} rewritten ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
