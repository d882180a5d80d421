"""The speed of bgbench.gym: steps/s and device-days/s of whole episodes, and where the
time goes (an episode's start, its steps, its end; what the start is made of), for three
agents:

- `random`: uniform actions (each denial is a step);
- `fixed 15m`: fixed's decisions (`grid 15m` at start, run starts and denials), each
  denial a step;
- `fixed 15m, denial rule`: the same with `denial_grid="15m"`: bgbench answers denials.

    BGBENCH_BINARY=/work/bin/bgbench-s13 python3 python/examples/gym_speed.py --episodes 40 --days 7

The figures of python/README.md ("Gymnasium environment", "Speed") are this command's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

_SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
if os.path.isdir(os.path.join(_SRC, "bgbench")):
    sys.path.insert(0, _SRC)
import bgbench  # noqa: E402
import bgbench.gym  # noqa: E402


def measure(name: str, env, choose, episodes: int, days: int) -> None:
    starts, middles, ends, steps = 0.0, 0.0, 0.0, 0
    for episode in range(episodes):
        t0 = time.perf_counter()
        env.reset(seed=episode + 1)
        t1 = time.perf_counter()
        while True:
            t = time.perf_counter()
            _, _, terminated, _, _ = env.step(choose(env.unwrapped._message["type"]))
            steps += 1
            if terminated:
                ends += time.perf_counter() - t  # bgbench writes the report and exits
                break
        middles += t - t1  # every step but the last
        starts += t1 - t0
    total = starts + middles + ends
    decisions = steps - episodes
    print(
        f"| {name} | {steps / episodes:.0f} | {steps / total:,.0f} | {episodes * days / total:.1f} "
        f"| {1000 * starts / episodes:.0f} | {1e6 * middles / decisions:.0f} | {1000 * ends / episodes:.0f} "
        f"| {decisions / middles:,.0f} |"
    )


def startup(episodes: int, days: int) -> None:
    """What an episode's start is made of: bgbench alone on one device (start to exit,
    its report written) and the relay's interpreter starting (`python3 -I -S`)."""
    binary = bgbench.find_binary()
    with tempfile.TemporaryDirectory() as folder:
        command = [binary, "run", "--policy", "fixed", "--devices", "1", "--days", str(days), "--threads", "1"]
        command += ["--per-device", "--quiet", "--out", os.path.join(folder, "r")]
        t = time.perf_counter()
        for episode in range(episodes):
            subprocess.run([*command, "--seed", str(episode + 1)], check=True, stdout=subprocess.DEVNULL)
        alone = (time.perf_counter() - t) / episodes
    t = time.perf_counter()
    for _ in range(episodes):
        subprocess.run([sys.executable, "-I", "-S", "-c", "import _socket"], check=True)
    interpreter = (time.perf_counter() - t) / episodes
    print()
    print(
        f"bgbench run --policy fixed --devices 1 --days {days} alone, start to exit: {1000 * alone:.0f} ms; "
        f"the relay's interpreter starting: {1000 * interpreter:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=40)
    parser.add_argument("--days", type=int, default=7)
    args = parser.parse_args()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"{args.episodes} episodes of {args.days} days (bgbench seeds 1 to {args.episodes}), default scenario; "
        f"{os.cpu_count()} cores, load average {load} at the start"
    )
    print()
    print(
        "| agent | steps/episode | steps/s | device-days/s | start, ms | step, µs | end, ms "
        "| steps/s within an episode |"
    )
    print("|---|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(1)
    env = bgbench.gym.DeviceEnv(days=args.days)
    measure("random", env, lambda kind: int(rng.integers(env.action_space.n)), args.episodes, args.days)
    grid = env.actions.index("grid 15m")
    fixed = lambda kind: grid if kind in ("start", "run_started", "denied") else 0  # noqa: E731
    measure("fixed 15m", env, fixed, args.episodes, args.days)
    env.close()
    env = bgbench.gym.DeviceEnv(days=args.days, denial_grid="15m")
    measure("fixed 15m, denial rule", env, fixed, args.episodes, args.days)
    env.close()
    startup(args.episodes, args.days)


if __name__ == "__main__":
    main()
