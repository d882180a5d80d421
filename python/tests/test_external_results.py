"""Scripts/external-results.py computes the share of a gap closed from frontier.csv's
per-seed rows as replications.csv's `gap_closed` is: checked against bgbench's own on
built-in policies (a frontier and a run of the same seeds)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import bgbench

ROOT = Path(__file__).resolve().parents[2]


def test_gap_closed_is_replications_csvs(binary: str, tmp_path: Path) -> None:
    pytest.importorskip("scipy", reason="scipy is not installed (it comes with scikit-learn)")
    spec = importlib.util.spec_from_file_location("external_results", ROOT / "Scripts" / "external-results.py")
    script = importlib.util.module_from_spec(spec)
    sys.modules["external_results"] = script  # dataclasses look their module up
    spec.loader.exec_module(script)
    size = dict(days=7, devices=30, replications=3, binary=binary)
    front = bgbench.frontier(
        policy="fixed,adaptive,oracle", knob={"fixed": ["15m", "1h"], "adaptive": ["15m"]}, out=tmp_path / "f", **size
    )
    run = bgbench.run(policy="fixed,adaptive,oracle", out=tmp_path / "r", **size)
    per_seed = front.frontier.query("interval == 'devices'").pivot(index="seed", columns="arm", values="fresh_open_rate")
    fixed = per_seed["fixed[interval=15m]"]
    mine = script.t_interval(((per_seed["adaptive[min_interval=15m]"] - fixed) / (per_seed["oracle"] - fixed)).tolist())
    theirs = run.replications.query("metric == 'gap_closed' and policy == 'adaptive'").iloc[0]
    assert mine == pytest.approx((theirs["mean"], theirs["ci_low"], theirs["ci_high"]), rel=1e-9, abs=1e-12)
