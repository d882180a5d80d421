"""The external-policy protocol from Python (docs/protocol.md): bgbench.Policy's answers
message by message, bgbench's generator, and python/examples/fixed_policy.py, whose
summary.csv is the built-in fixed's figure for figure; both examples pass `bgbench
conformance`."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bgbench
from bgbench.policy import CANCEL, Policy, Random

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "python" / "examples" / "fixed_policy.py"


class _Demo(Policy):
    name = "demo"
    version = "3"
    callbacks = ("opened", "run_ended")
    knob = {"name": "gap", "value": 60}

    def start(self, view):
        self.first = view.random.uniform()
        return view.now + 10

    def opened(self, view):
        return CANCEL

    def run_ended(self, view):
        return None if view.status == "killed" else view.now + 5


def _serve(policy: Policy, messages) -> list:
    requests = io.BytesIO("".join(json.dumps(m) + "\n" for m in messages).encode())
    answers = io.BytesIO()
    policy.serve(requests, answers)
    return [json.loads(line) for line in answers.getvalue().decode().splitlines()]


def test_policy_answers_message_by_message() -> None:
    view = {"battery": 1.0, "charging": False, "low_power": False, "network": "wifi", "screen_on": False}
    start = {"type": "start", "seq": 0, "device": 4, "now": 0, "horizon": 10**9, "platform": "ios-bgtask"}
    answers = _serve(
        _Demo(),
        [
            {"type": "hello", "protocol": 1, "bgbench": "0.1.0"},
            dict(start, seed=[1, 2, 3, 4], **view),
            {"type": "opened", "seq": 1, "device": 4, "now": 7, **view},
            {"type": "run_ended", "seq": 2, "device": 4, "now": 9, "status": "killed", **view},
            {"type": "run_ended", "seq": 3, "device": 4, "now": 11, "status": "new_data", **view},
        ],
    )
    assert answers == [
        {
            "type": "hello",
            "protocol": 1,
            "name": "demo",
            "version": "3",
            "callbacks": ["opened", "run_ended"],
            "knob": {"name": "gap", "value": 60},
        },
        {"seq": 0, "decision": "request", "at": 10},
        {"seq": 1, "decision": "cancel"},
        {"seq": 2, "decision": "keep"},
        {"seq": 3, "decision": "request", "at": 16},
    ]


class _Counter(Policy):
    """Per-device state set in `start` and grown by each callback: batched, every device
    must count its own messages."""

    name, version, batch = "counter", "1", True
    callbacks = ("opened",)

    def start(self, view):
        self.heard = 0
        return None

    def opened(self, view):
        self.heard += 1
        return view.now + self.heard


def test_batched_frames_keep_each_devices_state() -> None:
    view = {"battery": 1.0, "charging": False, "low_power": False, "network": "wifi", "screen_on": False}

    def start(device):
        return {"type": "start", "seq": 0, "device": device, "now": 0, "horizon": 10**9, "seed": [1, 2, 3, 4], **view}

    def opened(device, seq, now):
        return {"type": "opened", "seq": seq, "device": device, "now": now, **view}

    prototype = _Counter()
    answers = _serve(
        prototype,
        [
            {"type": "hello", "protocol": 1, "bgbench": "0.1.0"},
            {"type": "batch", "count": 2, "ended": []},
            start(0),
            start(1),
            {"type": "batch", "count": 2, "ended": []},
            opened(0, 1, 100),
            opened(1, 1, 200),
            {"type": "batch", "count": 1, "ended": [1]},
            opened(0, 2, 300),
            # Device 1 ended: a later device 1 (another run's) starts afresh.
            {"type": "batch", "count": 1, "ended": []},
            start(1),
        ],
    )
    assert answers[0]["batch"] is True
    assert answers[1:] == [
        {"seq": 0, "decision": "keep"},
        {"seq": 0, "decision": "keep"},
        {"seq": 1, "decision": "request", "at": 101},
        {"seq": 1, "decision": "request", "at": 201},
        {"seq": 2, "decision": "request", "at": 302},  # device 0 heard two opens; device 1's one is its own
        {"seq": 0, "decision": "keep"},
    ]
    assert not hasattr(prototype, "heard"), "the devices' copies hold the state, not the prototype"


def test_denial_grid_goes_into_the_hello() -> None:
    class Grid(Policy):
        name, version, denial_grid = "g", "1", 900 * 10**6

    (hello,) = _serve(Grid(), [{"type": "hello", "protocol": 1}])
    assert hello["denials"] == {"rule": "grid", "interval": 900 * 10**6}
    assert hello["callbacks"] == []


def test_random_is_xoshiro256_starstar() -> None:
    # The reference output of xoshiro256** from state (1, 2, 3, 4): 11520, 0, 1509978240, 1215971899390074240.
    r = Random([1, 2, 3, 4])
    assert [r.next() for _ in range(4)] == [11520, 0, 1509978240, 1215971899390074240]
    assert Random([1, 2, 3, 4]).uniform() == (11520 >> 11) * 2.0**-53


@pytest.mark.parametrize("batch", [[], ["--batch"]])
def test_python_fixed_is_fixed(binary: str, tmp_path: Path, batch: list) -> None:
    command = json.dumps([sys.executable, str(EXAMPLE), "--interval", "900", *batch])
    report = bgbench.run(
        policy="external,fixed",
        days=7,
        devices=50,
        set={"policies.external.command": command},
        extra_args=["--allow-external", "--threads", "2"],
        out=tmp_path / "run",
        binary=binary,
    )
    summary = report.summary
    external = summary[summary["policy"] == "external"].drop(columns="policy").reset_index(drop=True)
    fixed = summary[summary["policy"] == "fixed"].drop(columns="policy").reset_index(drop=True)
    assert len(external) == len(fixed) > 1
    assert external.equals(fixed), external.compare(fixed)
    assert external.loc[0, "runs_per_day"] > 1
    shutil.rmtree(tmp_path / "run")


@pytest.mark.parametrize("example", ["fixed_policy.py", "opens_policy.py"])
def test_examples_conform(binary: str, example: str) -> None:
    """`bgbench conformance` as a client's author runs it: every check ok, the speed told."""
    done = subprocess.run(
        [binary, "conformance", "--", sys.executable, str(EXAMPLE.parent / example)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line[:7] for line in lines[:6]] == ["ok   1 ", "ok   2 ", "ok   3 ", "ok   4 ", "ok   5 ", "info 6 "]
    assert lines[6:] == ["conformance: every check passed"]

def test_external_adds_allow_external_and_the_command() -> None:
    from bgbench.runner import _common_options

    options = _common_options("external,fixed", None, None, None, None, None, None, None, ["python3", "my policy.py", "--x", "1"])
    assert options == [
        "--policy",
        "external,fixed",
        "--allow-external",
        "--set",
        'policies.external.command=["python3", "my policy.py", "--x", "1"]',
    ]


def test_several_external_programs_by_name() -> None:
    from bgbench.runner import _common_options

    options = _common_options(
        "external,external2", None, None, None, None, None, None, None, {"external": ["a"], "external2": ["b", "1"]}
    )
    assert options == [
        "--policy",
        "external,external2",
        "--allow-external",
        "--set",
        'policies.external.command=["a"]',
        "--set",
        'policies.external2.command=["b", "1"]',
    ]


def test_two_python_policies_side_by_side(binary: str, tmp_path: Path) -> None:
    """Two programs in one run, paired like built-in policies: the Python fixed at 1 h as
    `external2` is the built-in fixed at 1 h; at 15 min as `external` it is another."""
    programs = {
        "external": [sys.executable, str(EXAMPLE), "--interval", "900"],
        "external2": [sys.executable, str(EXAMPLE), "--interval", "3600"],
    }
    run = bgbench.run(
        policy="external,external2,fixed", external=programs, set={"policies.fixed.interval": "1h"},
        days=2, devices=20, out=tmp_path / "two", binary=binary,
    )
    rows = run.summary.set_index(["policy", "archetype"]).sort_index()
    assert rows.loc["external2"].equals(rows.loc["fixed"])
    assert not rows.loc["external"].equals(rows.loc["fixed"])
    knobs = {name: run.run["external_policies"][name]["knob"] for name in programs}
    assert knobs == {
        "external": '{"name":"interval","value":900000000}',
        "external2": '{"name":"interval","value":3600000000}',
    }


def test_external_must_be_an_argument_list() -> None:
    import pytest

    with pytest.raises(TypeError) as error:
        bgbench.run(policy="external", external="python3 p.py")
    assert str(error.value) == "external= takes the program as a list of strings, e.g. ['python3', 'policy.py'], not 'python3 p.py'"
    with pytest.raises(ValueError) as error:
        bgbench.run(policy="external", external=[])
    assert str(error.value) == "external= names no program: give its argument list, e.g. ['python3', 'policy.py']"


def test_run_and_frontier_with_external(binary: str, tmp_path: Path) -> None:
    """The helpers' `external=`: the Python fixed run beside the built-in one (a run) and
    as one more point beside fixed's curve (a frontier), at a tiny size."""
    program = [sys.executable, str(EXAMPLE)]
    run = bgbench.run(policy="external,fixed", external=program, days=3, devices=20, out=tmp_path / "run", binary=binary)
    rows = run.summary.set_index(["policy", "archetype"]).sort_index()
    assert rows.loc["external"].equals(rows.loc["fixed"])
    assert run.run["external_policies"]["external"]["name"] == "fixed-py"
    front = bgbench.frontier(
        policy="fixed,external",
        knob={"fixed": ["15m", "30m"]},
        external=program + ["--interval", "1800"],
        days=3,
        devices=20,
        out=tmp_path / "frontier",
        binary=binary,
    )
    arms = front.frontier.set_index("arm")
    columns = ["fresh_open_rate", "background_energy_j_per_day", "runs_per_day"]
    assert arms.loc["external", columns].equals(arms.loc["fixed[interval=30m]", columns])
