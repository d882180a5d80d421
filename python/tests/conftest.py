"""Fixtures: a real bgbench binary (BGBENCH_BINARY, else every test that needs one is
skipped) and report folders of every kind, made once per session with small runs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Dict

import pytest

import bgbench

SMALL = {"days": 3, "devices": 20}


@pytest.fixture(scope="session")
def binary() -> str:
    """The binary under test: BGBENCH_BINARY, or skip with the reason."""
    path = os.environ.get("BGBENCH_BINARY")
    if not path:
        pytest.skip("BGBENCH_BINARY is not set: point it to a bgbench binary (e.g. .build/release/bgbench)")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.skip(f"BGBENCH_BINARY names '{path}', which is not an executable file")
    return os.path.abspath(path)


@pytest.fixture(scope="session")
def folders(binary: str, tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Path]:
    """One folder of every kind: run, replicated run, shard, merged, sweep, frontier."""
    root = tmp_path_factory.mktemp("reports")
    made = {
        "run": bgbench.run(policy="fixed,adaptive", out=root / "run", binary=binary, **SMALL).folder,
        "replicated": bgbench.run(
            policy=["fixed", "adaptive", "oracle"],
            replications=2,
            per_device=True,
            extra_args=["--trace-devices", "1"],
            out=root / "replicated",
            binary=binary,
            **SMALL,
        ).folder,
        "sweep": bgbench.sweep(
            policy="fixed",
            set={"policies.fixed.interval": ["15m", "30m"], "population.bar_off_share": "0,0.20"},
            out=root / "sweep",
            binary=binary,
            **SMALL,
        ).folder,
        "frontier": bgbench.frontier(
            policy="fixed,adaptive", knob={"fixed": ["15m", "30m"]}, out=root / "frontier", binary=binary, **SMALL
        ).folder,
    }
    for index in range(2):  # 100 devices: blocks of 64, so both shards hold devices
        shard = root / "shards" / str(index)
        bgbench.run(
            policy="fixed,adaptive", days=3, devices=100, out=shard, extra_args=["--shard", f"{index}/2"], binary=binary
        )
    made["shard"] = root / "shards" / "1"
    made["merged"] = root / "merged"
    merge = [binary, "merge", "--out", str(made["merged"]), str(root / "shards")]
    subprocess.run(merge, check=True, capture_output=True)
    return made
