"""bgbench.run: the arguments it passes, the folder it returns, the README's example."""

from __future__ import annotations

import tempfile
from pathlib import Path

import bgbench


def test_run_into_a_new_temporary_folder(binary: str) -> None:
    report = bgbench.run(
        policy=["fixed", "none"],
        days=3,
        devices=20,
        seed=7,
        set=["policies.fixed.interval=30m"],
        baseline_policy="none",
        binary=binary,
    )
    try:
        assert report.folder.is_dir() and report.folder.parent == Path(tempfile.gettempdir())
        assert report.run["seed"] == 7 and report.run["policies"] == ["fixed", "none"]
        assert report.run["scenario_overrides"] == ["policies.fixed.interval=30m"]
        assert set(report.paired["baseline"]) == {"none"}
        assert "fixed" in report.output  # the table the binary printed
    finally:
        for path in report.folder.iterdir():
            path.unlink()
        report.folder.rmdir()


def test_set_as_a_dict_and_extra_args(binary: str, tmp_path: Path) -> None:
    report = bgbench.run(
        policy="fixed",
        days=3,
        devices=20,
        set={"population.bar_off_share": 0, "policies.fixed.interval": "20m"},
        extra_args=["--warmup-days", "1"],
        out=tmp_path / "r",
        binary=binary,
    )
    assert report.run["scenario_overrides"] == ["population.bar_off_share=0", "policies.fixed.interval=20m"]
    assert report.run["warmup_days"] == 1 and report.paired is None


def test_the_readme_example(binary: str, tmp_path: Path) -> None:
    """python/README.md's three lines, at a small size."""
    r = bgbench.run(policy="fixed,adaptive", days=3, devices=20, out=tmp_path / "r", binary=binary)
    columns = ["policy", "baseline", "difference", "difference_ci_low", "difference_ci_high"]
    fresh = r.paired.query("metric == 'fresh_open_rate'")[columns]
    assert list(fresh["policy"]) == ["adaptive"] and list(fresh["baseline"]) == ["fixed"]
    assert fresh["difference_ci_low"].iloc[0] <= fresh["difference"].iloc[0] <= fresh["difference_ci_high"].iloc[0]
    assert r.units["fresh_open_rate"] == "ratio"


def _block_after(text: str, marker: str) -> str:
    """The fenced code block that follows `marker` in a Markdown text."""
    after = text[text.index(marker) :]
    start = after.index("```python\n") + len("```python\n")
    return after[start : after.index("```", start)]


def test_the_readme_three_line_example(binary: str, tmp_path: Path, monkeypatch) -> None:
    """python/README.md's Python policy against `fixed`, as written: its policy file and its
    three lines, run in an empty folder."""
    import os
    import sys

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    policy, lines = _block_after(readme, "three-line-example:policy"), _block_after(readme, "three-line-example:run")
    assert policy.startswith("# every30.py\n") and len(lines.strip().splitlines()) == 3
    (tmp_path / "every30.py").write_text(policy)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BGBENCH_BINARY", binary)
    # The policy's process imports bgbench: the package under test, installed or not.
    src = str(Path(bgbench.__file__).resolve().parents[1])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("PATH", os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    scope: dict = {}
    exec(compile(lines, "README.md", "exec"), scope)
    r = scope["r"]
    fresh = r.paired.query("metric == 'fresh_open_rate'")
    assert list(fresh["policy"]) == ["external"] and list(fresh["baseline"]) == ["fixed"]
    assert r.run["external_policies"]["external"] == {"name": "every-30m", "version": "1"}
    assert r.run["days"] == 30 and r.run["devices"] == 200
