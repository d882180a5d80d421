"""bgbench.gym: the observation and actions by hand (bgbench.decisions), the import without
gymnasium, gymnasium's checker, seeding, the processes an episode leaves (none), and the
oracle: an agent that plays `fixed`'s decisions gets the built-in `fixed`'s device row."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional

import pytest

from bgbench.decisions import INDEX, OBSERVATION, Device, actions, delays_of, duration
from bgbench.policy import CANCEL, HOUR, MINUTE, SECOND, Random

from helpers import rows

SRC = Path(__file__).resolve().parents[1] / "src"

VIEW = {"battery": 0.5, "charging": True, "low_power": False, "network": "lte", "screen_on": False, "foreground": False}
START = {"type": "start", "seq": 0, "device": 0, "now": 0, "horizon": 7 * 24 * HOUR, "seed": [1, 2, 3, 4], **VIEW}


# -- bgbench.decisions, by hand


def test_durations() -> None:
    assert duration("15m") == 900 * SECOND
    assert duration("2h") == 2 * HOUR
    assert duration(90) == 90 * SECOND
    assert duration("1.5h") == 90 * MINUTE
    with pytest.raises(ValueError) as bad:
        duration("15 minutes")
    assert str(bad.value) == "a delay '15 minutes': expected a duration such as '15m', '2h' or a number of seconds"
    with pytest.raises(ValueError) as long:
        duration("8d")
    assert str(long.value) == "a delay '8d': expected 1 s to 7 days"
    with pytest.raises(ValueError) as twice:
        delays_of(["1h", "60m"])
    assert str(twice.value) == "delay '60m': given twice (as 1h)"


def test_action_labels() -> None:
    expected = ["keep", "cancel", "in 5m", "in 1h", "in 90s", "grid 5m", "grid 1h", "grid 90s"]
    assert actions(delays_of(["5m", "1h", 90])) == expected


def test_actions_answer_by_hand() -> None:
    device = Device(delays_of(["15m", "1h"]))  # 0 keep, 1 cancel, 2 in 15m, 3 in 1h, 4 grid 15m, 5 grid 1h
    device.see(START)
    phase = int(Random([1, 2, 3, 4]).uniform() * float(15 * MINUTE))  # fixed's first request
    assert device.decide(4, 0) == phase  # the grid's phase, from the device's stream
    assert device.decide(0, 10) is None
    assert device.decide(1, 10) is CANCEL
    # After the run at phase + 20 min (a platform's delay), the grid's next point after now.
    now = phase + 20 * MINUTE
    assert device.decide(4, now) == phase + 30 * MINUTE
    assert device.decide(4, now) == phase + 30 * MINUTE  # the last requested time is not past: itself
    assert device.decide(2, now) == now + 15 * MINUTE
    assert device.decide(5, now + 16 * MINUTE) == now + 15 * MINUTE + HOUR  # through the last requested time
    assert device.decide(3, 5) == 5 + HOUR
    with pytest.raises(ValueError) as bad:
        device.decide(6, 5)
    assert str(bad.value) == "action 6: expected 0 to 5 (keep, cancel, in 15m, in 1h, grid 15m, grid 1h)"


def test_grid_before_any_request_is_through_the_phase() -> None:
    device = Device(delays_of(["1h"]))
    device.see(START)
    phase = int(Random([1, 2, 3, 4]).uniform() * float(HOUR))
    assert device.decide(3, 5 * HOUR + phase + 1) == 6 * HOUR + phase


def test_observation_by_hand() -> None:
    device = Device(delays_of(["15m"]))
    device.see(START)
    o = device.observe(START)
    assert len(o) == len(OBSERVATION) == 39 and o.dtype.name == "float32"
    # start, battery, charging, lte, and three times since something that never happened
    assert o[INDEX["callback=start"]] == 1 and o.sum() == 1 + 0.5 + 1 + 1 + 3 * 168
    now = 9 * 24 * HOUR + 13 * HOUR + 30 * MINUTE  # Wednesday of the second week, 13:30
    opened = {**START, "type": "opened", "seq": 1, "now": now}
    device.see(opened)
    device.decide(2, now - 2 * HOUR)  # a request made two hours earlier
    ended = {**opened, "type": "run_ended", "seq": 2, "status": "killed", "network": "wifi"}
    o = device.observe(ended)
    expected = {
        "callback=run_ended": 1, "hour_of_day": 13.5, "weekday": 2, "elapsed": 1.0, "battery": 0.5, "charging": 1,
        "network=wifi": 1, "hours_since_open": 0, "hours_since_run": 168, "hours_since_request": 2, "status=killed": 1,
    }  # fmt: skip
    assert {name: float(o[i]) for name, i in INDEX.items() if o[i] != 0} == {k: v for k, v in expected.items() if v}
    denied = {**opened, "type": "denied", "reason": "budget", "retry_at": None, "now": now + HOUR}
    o = device.observe(denied)
    assert o[INDEX["reason=budget"]] == 1 and o[INDEX["hours_since_open"]] == 1 and o[INDEX["callback=denied"]] == 1
    end = device.observe(denied, end=True)
    assert end[INDEX["callback=end"]] == 1 and end[INDEX["callback=denied"]] == 0 and end[INDEX["reason=budget"]] == 0


# -- without gymnasium


def test_without_gymnasium_bgbench_imports_and_bgbench_gym_says_how_to_install() -> None:
    blocked = "import sys; sys.modules['gymnasium'] = None; "
    plain = subprocess.run(
        [sys.executable, "-c", blocked + "import bgbench; print(bgbench.Policy.__name__)"],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(SRC)},
    )  # fmt: skip
    assert plain.returncode == 0 and plain.stdout == "Policy\n", plain.stderr
    gym = subprocess.run(
        [sys.executable, "-c", blocked + "import bgbench.gym"],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(SRC)},
    )  # fmt: skip
    assert gym.returncode == 1
    assert gym.stderr.splitlines()[-1] == (
        "ImportError: bgbench.gym needs gymnasium, which is not installed: "
        "pip install './python[gym]' (or pip install gymnasium)"
    )


# -- the environment, with the binary

DAYS = 3


@pytest.fixture(scope="module")
def gym_module(binary: str):
    """bgbench.gym, or skip when gymnasium is not installed."""
    pytest.importorskip("gymnasium", reason="gymnasium is not installed: pip install './python[gym]'")
    import bgbench.gym

    return bgbench.gym


def _episode(env, seed: int, choose) -> tuple:
    """Plays one episode; `choose(message type, step)` gives each action. Returns the
    observations, the rewards and the last info."""
    observation, info = env.reset(seed=seed)
    observations, rewards = [observation], []
    while True:
        action = choose(env.unwrapped._message["type"], len(rewards))
        observation, reward, terminated, truncated, info = env.step(action)
        observations.append(observation)
        rewards.append(reward)
        assert not truncated
        if terminated:
            return observations, rewards, info


def _as_fixed(grid: int):
    """fixed's decisions for `_episode`: `grid` at start, at run starts and at denials."""
    return lambda kind, _: grid if kind in ("start", "run_started", "denied") else 0


def _fixed_row(binary: str, interval: str, seed: int, days: int, out: Path) -> dict:
    """The built-in fixed's devices.csv row for device 0 of a one-device run."""
    command = [
        binary, "run", "--policy", "fixed", "--set", f"policies.fixed.interval={interval}", "--devices", "1",
        "--days", str(days), "--seed", str(seed), "--per-device", "--quiet", "--out", str(out),
    ]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True)
    (row,) = rows(out / "devices.csv")
    return row


@pytest.mark.parametrize("interval", ["15m", "1h"])
@pytest.mark.parametrize("denial_grid", [False, True])
def test_an_agent_playing_fixed_gets_fixeds_device_row(gym_module, binary: str, tmp_path: Path, interval, denial_grid):
    """The oracle: `grid INTERVAL` at start, at each run start and at each denial (or the
    denial rule) is fixed; every column of the device's row but `policy` is fixed's, the
    reward is its fresh opens minus the price of its energy."""
    rule = interval if denial_grid else None
    env = gym_module.DeviceEnv(days=DAYS, delays=["5m", interval], denial_grid=rule, energy_price=0.25)
    grid = env.actions.index(f"grid {interval}")
    for seed in (1, 2, 5):
        fixed = _fixed_row(binary, interval, seed, DAYS, tmp_path / f"fixed-{seed}")
        _, rewards, info = _episode(env, seed, _as_fixed(grid))
        del info["device"]["policy"], fixed["policy"]  # external and fixed
        assert info["device"] == fixed
        assert float(fixed["runs"]) > 0
        assert info["fresh_opens"] == float(fixed["fresh_opens"])
        assert rewards[-1] == float(fixed["fresh_opens"]) - 0.25 * float(fixed["background_energy_j"])
        assert set(rewards[:-1]) <= {0.0}
    env.close()


def test_check_env_and_the_registered_id(gym_module) -> None:
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(gym_module.ENV_ID, days=1)
    check_env(env.unwrapped)
    observation, info = env.reset(seed=3)
    assert env.observation_space.contains(observation) and info["seed"] == 3
    assert env.action_space.n == 2 + 2 * 7
    assert env.unwrapped.actions[:4] == ["keep", "cancel", "in 5m", "in 15m"] and env.unwrapped.actions[-1] == "grid 8h"
    env.close()


def test_same_seed_and_actions_give_the_same_episode(gym_module) -> None:
    import numpy as np

    def play(env, seed):
        rng = np.random.default_rng(11)
        return _episode(env, seed, lambda kind, step: int(rng.integers(env.action_space.n)))

    env = gym_module.DeviceEnv(days=DAYS)
    first, again = play(env, 4), play(env, 4)
    other = play(gym_module.DeviceEnv(days=DAYS), 4)
    for a, b in ((first, again), (first, other)):
        assert len(a[0]) == len(b[0]) > 10
        assert all(np.array_equal(x, y) for x, y in zip(a[0], b[0]))
        assert a[1] == b[1] and a[2]["device"] == b[2]["device"]
    assert play(env, 5)[2]["device"] != first[2]["device"]
    env.close()


def test_a_reset_without_seed_draws_from_the_seeded_generator(gym_module) -> None:
    env = gym_module.DeviceEnv(days=1)
    env.reset(seed=8)
    drawn = [env.reset()[1]["seed"] for _ in range(2)]
    env.reset(seed=8)
    assert [env.reset()[1]["seed"] for _ in range(2)] == drawn and len(set(drawn)) == 2
    env.close()


def _running(pid: Optional[int]) -> bool:
    from bgbench.gym import _running as running

    return pid is not None and running(pid)


def _gone(pids: List[Optional[int]]) -> bool:
    deadline = time.monotonic() + 5
    while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.01)
    return not any(_running(pid) for pid in pids)


def test_no_process_is_left_after_close_or_an_exception(gym_module) -> None:
    env = gym_module.DeviceEnv(days=DAYS)
    env.reset(seed=1)
    pids = list(env.pids)
    assert all(_running(pid) for pid in pids), pids
    folder = env._live.folder
    env.close()
    assert _gone(pids) and not folder.exists() and env.pids == (None, None)

    env.reset(seed=1)  # usable again after close
    env.step(0)
    pids = list(env.pids)
    with pytest.raises(ValueError) as bad:
        env.step(99)
    assert str(bad.value) == f"action 99: expected 0 to 15 ({', '.join(env.actions)})"
    assert _gone(pids)
    with pytest.raises(RuntimeError) as after:
        env.step(0)
    assert str(after.value) == "bgbench.gym: step() without an episode: call reset() first (the last one ended)"
    env.close()


def test_no_process_is_left_when_the_environment_is_collected_without_close(gym_module) -> None:
    env = gym_module.DeviceEnv(days=DAYS)
    env.reset(seed=2)
    pids, folder = list(env.pids), env._live.folder
    del env
    gc.collect()
    assert _gone(pids) and not folder.exists()


def test_bgbench_failing_is_its_error_and_leaves_no_process(gym_module) -> None:
    from bgbench import BGBenchError

    env = gym_module.DeviceEnv(days=1, set={"policies.fixed.interval": "fortnightly"})
    with pytest.raises(BGBenchError) as failed:
        env.reset(seed=1)
    assert failed.value.returncode == 64
    assert failed.value.first_line == (
        'error: --set policies.fixed.interval: expected a duration such as 90, "90s", "15m", "2h" or "1d"'
    )
    assert env.pids == (None, None)
    env.close()


def test_bgbench_killed_during_an_episode_is_an_error_and_leaves_no_process(gym_module) -> None:
    from bgbench import BGBenchError

    env = gym_module.DeviceEnv(days=DAYS)
    env.reset(seed=1)
    pids = list(env.pids)
    os.kill(pids[0], signal.SIGKILL)
    with pytest.raises(BGBenchError) as failed:
        for _ in range(10_000):
            env.step(0)
    assert failed.value.returncode == -signal.SIGKILL
    assert _gone(pids) and env.pids == (None, None)
    env.close()


def test_arguments_are_checked(gym_module) -> None:
    for arguments, message in [
        ({"days": 0}, "days 0: expected an integer from 1 to 36500"),
        ({"energy_price": -1.0}, "energy_price -1.0: expected a finite number of fresh opens per joule, ≥ 0"),
        ({"denial_grid": "0s"}, "denial_grid '0s': expected 1 s to 7 days"),
        ({"delays": []}, "delays: expected at least one delay"),
    ]:
        with pytest.raises(ValueError) as bad:
            gym_module.DeviceEnv(**arguments)
        assert str(bad.value) == message


def test_the_readmes_observation_table_is_observation() -> None:
    """python/README.md's table, row by row: its indexes and components are OBSERVATION's."""
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    table = text.split("**Observation**", 1)[1].split("**Actions**", 1)[0]
    names: List[str] = []
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0][:1].isdigit():
            continue
        first, _, last = cells[0].partition("–")
        listed = [name.strip().strip("`") for name in cells[1].split(",")]
        prefix = listed[0].split("=")[0] + "=" if "=" in listed[0] else ""
        listed = [listed[0]] + [name if "=" in name or not prefix else prefix + name for name in listed[1:]]
        assert int(first) == len(names) and int(last or first) == len(names) + len(listed) - 1, line
        names += listed
    assert names == [name for name, _, _ in OBSERVATION]


def test_trace_gives_the_episodes_events(gym_module) -> None:
    """With trace=True the last info holds events.csv's rows: its opens marked fresh are
    devices.csv's fresh opens, its run starts its runs (two files bgbench writes apart)."""
    env = gym_module.DeviceEnv(days=DAYS, trace=True)
    grid = env.actions.index("grid 15m")
    _, _, info = _episode(env, 2, _as_fixed(grid))
    events = info["events"]
    assert {e["device"] for e in events} == {"0"} and {e["policy"] for e in events} == {"external"}
    fresh = sum(1 for e in events if e["event"] == "open" and e["detail"] == "fresh")
    assert fresh == info["fresh_opens"] > 0
    assert sum(1 for e in events if e["event"] == "started") == info["runs"] > 0
    env.close()
    plain = gym_module.DeviceEnv(days=1)
    assert "events" not in _episode(plain, 2, lambda kind, _: 0)[2]
    plain.close()
