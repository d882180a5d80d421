"""A folder that is not whole, a binary that is not there, a run that fails."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable, Dict

import pytest

import bgbench


def damaged(folders: Dict[str, Path], tmp_path: Path, damage: Callable[[Path], None]) -> Path:
    """A copy of the run folder with `damage` done to it."""
    copy = tmp_path / "copy"
    shutil.copytree(folders["run"], copy)
    damage(copy)
    return copy


def truncate(path: Path) -> None:
    """Cut a file to half its size, as a copy stopped halfway would."""
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def flip_last_byte(path: Path) -> None:
    """Change one byte, keeping the size."""
    data = bytearray(path.read_bytes())
    data[-2] = ord("7") if data[-2] != ord("7") else ord("8")
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "name, damage, words",
    [
        ("paired.csv", lambda folder: (folder / "paired.csv").unlink(), "is missing: run.json's manifest lists it"),
        ("summary.csv", lambda folder: truncate(folder / "summary.csv"), "truncated or changed"),
        ("long.csv", lambda folder: flip_last_byte(folder / "long.csv"), "does not have the SHA-256"),
        ("run.json", lambda folder: (folder / "run.json").unlink(), "is missing: not a whole report folder"),
        ("run.json", lambda folder: truncate(folder / "run.json"), "cannot be read as JSON"),
        ("notes.csv", lambda folder: (folder / "notes.csv").write_text("a\n"), "is not in run.json's manifest"),
    ],
)
def test_a_folder_that_is_not_whole_names_the_file(
    folders: Dict[str, Path], tmp_path: Path, name: str, damage: Callable[[Path], None], words: str
) -> None:
    folder = damaged(folders, tmp_path, damage)
    with pytest.raises(bgbench.ReportError, match=words) as raised:
        bgbench.read(folder)
    assert f"'{folder / name}'" in str(raised.value)
    assert raised.value.path == folder / name


def test_a_changed_byte_passes_without_checksums(folders: Dict[str, Path], tmp_path: Path) -> None:
    folder = damaged(folders, tmp_path, lambda folder: flip_last_byte(folder / "server.csv"))
    assert bgbench.read(folder, checksums=False).server is not None


def test_no_binary_says_how_to_install_and_point_to_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("BGBENCH_BINARY", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    expected = (
        "bgbench binary not found: install it with ./install.sh in the bgbench checkout "
        '(README.md, "Quick start"), or point BGBENCH_BINARY to it '
        "(e.g. BGBENCH_BINARY=/path/to/bgbench/.build/release/bgbench)"
    )
    with pytest.raises(bgbench.BinaryNotFound) as raised:
        bgbench.run(policy="fixed")
    assert str(raised.value) == expected
    with pytest.raises(bgbench.BinaryNotFound) as raised:
        bgbench.version()
    assert str(raised.value) == expected


def test_a_binary_named_but_missing_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    missing = str(tmp_path / "bgbench")
    monkeypatch.setenv("BGBENCH_BINARY", missing)
    with pytest.raises(bgbench.BinaryNotFound, match=f"BGBENCH_BINARY names '{missing}', which is not an executable"):
        bgbench.find_binary()
    with pytest.raises(bgbench.BinaryNotFound, match="binary= names '/nowhere/bgbench'"):
        bgbench.find_binary("/nowhere/bgbench")


def test_binary_order_argument_then_environment(binary: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BGBENCH_BINARY", binary)
    assert bgbench.find_binary() == binary
    assert bgbench.find_binary(binary) == binary
    assert bgbench.version().startswith("bgbench ")


def test_a_failing_run_raises_with_exit_code_and_first_line(binary: str, tmp_path: Path) -> None:
    with pytest.raises(bgbench.BGBenchError) as raised:
        bgbench.run(policy="no-such-policy", days=3, devices=20, out=tmp_path / "r", binary=binary)
    error = raised.value
    assert error.returncode == 64
    assert error.first_line.startswith("error: unknown policy 'no-such-policy' for '--policy'")
    assert error.first_line == error.stderr.splitlines()[0]
    assert str(error) == f"bgbench exited with code 64: {error.first_line}"
    assert not (tmp_path / "r").exists()
    with pytest.raises(bgbench.BGBenchError, match="code 64: error: invalid value '0' for '--days'"):
        bgbench.sweep(set={"policies.fixed.interval": ["15m"]}, days=0, binary=binary)
