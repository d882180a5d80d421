"""python/examples/rl_agent.py at a tiny size: training is deterministic given its seed,
and the served agent decides what the trained table decides in the environment (the same
device row from bgbench.gym and from `bgbench run --policy external`)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import bgbench

from helpers import rows

EXAMPLE = Path(__file__).resolve().parents[2] / "python" / "examples" / "rl_agent.py"


def _serve(params: Path, options: list, devices: int, threads: str, out: Path, binary: str) -> bgbench.Report:
    """`bgbench run --policy external` of the served agent: seed 7, 2 days, per device."""
    command = json.dumps([sys.executable, str(EXAMPLE), "serve", str(params), *options])
    return bgbench.run(
        policy="external",
        days=2,
        devices=devices,
        seed=7,
        per_device=True,
        set={"policies.external.command": command},
        extra_args=["--allow-external", "--threads", threads],
        out=out,
        binary=binary,
    )


@pytest.fixture(scope="module")
def trained(binary: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("gymnasium", reason="gymnasium is not installed: pip install './python[gym]'")
    folder = tmp_path_factory.mktemp("rl")
    for name in ("a.json", "b.json"):
        command = [sys.executable, str(EXAMPLE), "train", "--out", str(folder / name), "--episodes", "2"]
        command += ["--days", "2", "--users", "2", "--seed", "3", "--report-every", "1"]
        done = subprocess.run(command, capture_output=True, text=True, env={"BGBENCH_BINARY": binary, "PATH": ""})
        assert done.returncode == 0, done.stderr
        assert "episode 2: return minus fixed 15m's on the same users" in done.stdout
    return folder


def test_training_is_deterministic_given_its_seed(trained: Path) -> None:
    a, b = (trained / "a.json").read_bytes(), (trained / "b.json").read_bytes()
    assert a == b
    document = json.loads(a)
    assert document["training"]["episodes"] == 2 and len(document["logits"]) == 2 * 6 * 6
    assert len(document["logits"][0]) == len(document["actions"]) == 16
    assert any(x != 0 for row in document["logits"] for x in row)  # two episodes moved the table


def test_the_served_agent_decides_as_in_training(trained: Path, binary: str, tmp_path: Path) -> None:
    import bgbench.gym

    sys.path.insert(0, str(EXAMPLE.parent))
    try:
        import rl_agent
    finally:
        sys.path.remove(str(EXAMPLE.parent))
    params = trained / "a.json"
    document = rl_agent.load(str(params))
    table = rl_agent.table_of(document)
    env = bgbench.gym.DeviceEnv(days=2)
    in_training = rl_agent.play(env, 7, lambda observation: table.greedy(table.state(observation)))[3]["device"]
    env.close()

    report = _serve(params, [], 2, "1", tmp_path / "served", binary)
    served = rows(tmp_path / "served" / "devices.csv")
    assert len(served) == 2 and served[0] == in_training
    assert report.run["external_policies"]["external"]["name"] == "rl-agent"
    knob = json.loads(report.run["external_policies"]["external"]["knob"])
    assert knob == {"name": "params_sha256", "value": hashlib.sha256(params.read_bytes()).hexdigest()}


def test_the_sampled_agent_draws_from_each_devices_stream(trained: Path, binary: str, tmp_path: Path) -> None:
    """Served with --sample, the agent's draws are the device's own: the same rows on one
    thread and on two (two processes, devices served in another order)."""
    texts = []
    for threads in ("1", "2"):
        out = tmp_path / f"threads-{threads}"
        report = _serve(trained / "a.json", ["--sample"], 4, threads, out, binary)
        assert report.run["external_policies"]["external"]["name"] == "rl-agent-sampled"
        texts.append((out / "devices.csv").read_bytes())
    assert texts[0] == texts[1]
