#!/usr/bin/env python3
"""Regenerates README.md's results of the external example policies (between
<!-- external-results:begin --> and <!-- external-results:end -->): each policy of EXAMPLES,
trained on users the evaluation never meets, then served over the external protocol
beside `fixed`'s curve, `oracle` and `prophet`, on the default scenario and on a trace of
users with habits (`bgbench habits`, a population unlike MODEL.md's).

For each example and population, one `bgbench frontier` with the example as its baseline
point (`--baseline-policy external`): frontier-matched.csv then reads `fixed`'s curve
(its interval knob) at the example's own J/day, with the interval across seeds; and
frontier.csv gives every arm's fresh-open rate per seed, from which the shares of the
gaps fixed -> oracle and fixed -> prophet the example closes are computed as
replications.csv's `gap_closed` is: (policy - fixed) / (bound - fixed) per seed, the mean
and its Student-t 95 % interval across the seeds, `fixed` at its own point (15 min).

Never edit the README's table by hand. Usage, from the checkout:

    BGBENCH_BINARY=.build/release/bgbench Scripts/external-results.py       # the README's sizes
    DEVICES=50 DAYS=14 SEEDS=2 Scripts/external-results.py --no-write        # a quick look

Needs python3 with pandas, numpy, scipy and scikit-learn (the examples' own needs).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python" / "src"))
import bgbench  # noqa: E402

EXAMPLES_DIR = ROOT / "python" / "examples"
TRAIN_SEED = 1001  # the default scenario's training users: a seed the evaluation (1, 2, ...) never runs
HABITS_SEED, HABITS_TRAIN_SEED = 2026, 2027  # the habits users scored, and others to train on
# fixed's point (15 min) and the intervals that bring it down to a run a week:
# below 4 h the platform's budget, not the interval, sets fixed's runs on both populations.
FIXED_KNOB = ["15m", "1h", "4h", "8h", "12h", "1d", "2d", "4d", "7d"]
BEGIN, END = "<!-- external-results:begin -->", "<!-- external-results:end -->"


@dataclass
class Example:
    """An example policy: how to train it ({trace}: an opens trace of users the evaluation
    does not meet, events.csv or `device,timestamp`; {model}: the file to write) and how
    bgbench runs it ({model}). Paths are relative to python/examples; python3 runs them."""

    label: str
    train: Sequence[str]
    serve: Sequence[str]
    #: With no train command: the file of python/examples it serves ({model}), trained once and committed.
    committed: str = ""

    def command(self, template: Sequence[str], **values: str) -> List[str]:
        args = [arg.format(**values) for arg in template]
        return [sys.executable, str(EXAMPLES_DIR / args[0]), *args[1:]]


# One line per example policy (another, e.g. an agent trained in bgbench.gym, is one more
# Example(label, its train command, its serve command)).
SKLEARN_TRAIN = ["sklearn_policy.py", "train", "--trace", "{trace}", "--model", "{model}"]
SKLEARN_SERVE = ["sklearn_policy.py", "serve", "--model", "{model}", "--threshold"]
EXAMPLES = [
    Example("`sklearn_policy.py`, threshold 0.1", SKLEARN_TRAIN, SKLEARN_SERVE + ["0.1"]),
    Example("`sklearn_policy.py`, threshold 0.15", SKLEARN_TRAIN, SKLEARN_SERVE + ["0.15"]),
    Example("`sklearn_policy.py`, threshold 0.25", SKLEARN_TRAIN, SKLEARN_SERVE + ["0.25"]),
    # Trained in bgbench.gym on MODEL.md's users of seeds 1001 on (python/README.md, "A learning agent").
    Example("`rl_agent.py` (greedy)", [], ["rl_agent.py", "serve", "{model}"], committed="rl_agent.json"),
]


def t_interval(values: Sequence[float]):
    """Mean and Student-t 95 % interval across seeds (replications.csv's)."""
    import numpy as np
    from scipy import stats

    v = np.asarray(values, dtype=float)
    if len(v) < 2:
        return v.mean(), float("nan"), float("nan")
    half = stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v))
    return v.mean(), v.mean() - half, v.mean() + half


def evaluate(
    example: Example, population: str, trace: Path, score_args: List[str], work: Path, sizes: dict, binary: str, models: dict
):
    """Train the example on `trace` (once per training command and population: `models`),
    run the frontier, and return the table's figures."""
    key = (population, tuple(example.train))
    if not example.train:
        models[key] = EXAMPLES_DIR / example.committed
    elif key not in models:  # examples that differ only in how they serve share a model
        models[key] = work / f"model-{len(models)}.pkl"
        train = example.command(example.train, trace=str(trace), model=str(models[key]))
        subprocess.run(train, check=True, stdout=subprocess.DEVNULL)
    model = models[key]
    started = time.monotonic()
    report = bgbench.frontier(
        policy="fixed,external,oracle,prophet",
        knob={"fixed": FIXED_KNOB, "prophet": ["8"]},
        baseline_policy="external",
        external=example.command(example.serve, model=str(model)),
        replications=sizes["seeds"],
        seed=1,
        extra_args=score_args,
        out=work / f"frontier-{len(list(work.glob('frontier-*')))}",
        binary=binary,
    )
    wall = time.monotonic() - started
    load = os.getloadavg()[1]  # the machine's load over the last 5 minutes: the wall time's context
    arms = report.frontier
    per_seed = arms[arms["interval"] == "devices"].pivot(index="seed", columns="arm", values="fresh_open_rate")
    across = arms[arms["interval"] == "seeds"].set_index("arm")
    matched = report.frontier_matched
    at = matched.query("policy == 'fixed' and measure == 'at_baseline_energy' and interval == 'seeds'")
    fixed = per_seed["fixed[interval=15m]"]
    gaps = {
        bound: t_interval(((per_seed["external"] - fixed) / (per_seed[bound] - fixed)).tolist())
        for bound in ("oracle", "prophet[runs_per_day=8]")
    }
    return {
        "population": population,
        "example": example.label,
        "fresh": across.loc["external", "fresh_open_rate"],
        "energy": across.loc["external", "background_energy_j_per_day"],
        "runs": across.loc["external", "runs_per_day"],
        "fixed_at": at.iloc[0],
        "fixed15": across.loc["fixed[interval=15m]"],
        "oracle": across.loc["oracle"],
        "prophet": across.loc["prophet[runs_per_day=8]"],
        "gaps": gaps,
        "wall": wall,
        "threads": report.run["execution"]["threads"],
        "load": load,
        "commit": report.run.get("git_commit", "?")[:7],
    }


def verdict(r) -> str:
    """One line in words: the example against fixed at the same energy, and the gap to oracle."""
    at = r["fixed_at"]
    if at["status"] != "ok":
        same = f"`fixed`'s curve does not reach its {r['energy']:.1f} J/day ({at['status']}): no comparison at the same energy"
    else:
        low, high = -at["difference_ci_high"], -at["difference_ci_low"]
        word = "fresher than" if low > 0 else "less fresh than" if high < 0 else "not told apart from"
        same = f"{word} `fixed` at the same energy ({100 * -at['difference']:+.1f} pts)"
    mean, low, high = r["gaps"]["oracle"]
    holds = "its interval holds zero" if low <= 0 <= high else "its interval excludes zero"
    share = r["energy"] / r["fixed15"]["background_energy_j_per_day"]
    return (
        f"- {r['population']}, {r['example']}: {same}; at its own energy ({100 * share:.0f} % of `fixed`'s point) "
        f"it closes {100 * mean:+.1f} % of the gap from `fixed` to `oracle` ({holds})."
    )


def rows_markdown(results, command: str, sizes: dict) -> List[str]:
    commit = results[0]["commit"]
    lines = [
        BEGIN,
        "<!-- generated by Scripts/external-results.py; do not edit by hand -->",
        "",
        f"`{command}` (bgbench binary of commit {commit}; {sizes['devices']} devices × {sizes['days']} days × {sizes['seeds']} seeds "
        "per population). Each example policy is trained on users the evaluation never meets: on the default "
        f"scenario the opens of seed {TRAIN_SEED}'s users (events.csv of `bgbench --policy none --seed {TRAIN_SEED} "
        f"--trace-devices {sizes['devices']}`), scored on seeds 1 to {sizes['seeds']}; on the habits population "
        f"a trace of seed {HABITS_TRAIN_SEED} (`bgbench habits --seed {HABITS_TRAIN_SEED}`), scored on seed "
        f"{HABITS_SEED}'s users (the trace's opens are the same in every seed; the seeds change the rest); "
        "but `rl_agent.py`, whose parameters (python/examples/rl_agent.json) were trained once in bgbench.gym on "
        "one-device episodes of MODEL.md's users of seeds 1001 to 1064 and are served unchanged on both populations. "
        "Then one `bgbench frontier --policy fixed,external,oracle,prophet --baseline-policy external` per "
        "example and population (a frontier cannot sweep an external policy's knob, so each threshold is a "
        f"frontier of its own): `fixed`'s curve over its interval ({', '.join(FIXED_KNOB)}) read at the example's own J/day "
        "(frontier-matched.csv, interpolated between the two knob values around it), and the share of the gaps from "
        "`fixed` (its own point, 15 min) to `oracle` and to `prophet` (8 runs a day, its default) the example "
        "closes on the fresh-open rate, per seed as replications.csv's `gap_closed`; means across the seeds with "
        "their 95 % Student-t intervals (`*`: the interval excludes zero).",
        "",
        "| population | policy | fresh-open % | J/day | runs/day | `fixed` at that J/day: fresh-open % | policy − `fixed` there, pts | gap fixed → oracle closed % | gap fixed → prophet closed % | frontier's wall time |",
        "|---|---|---:|---:|---:|---:|---|---|---|---:|",
    ]

    def cell(mean, low, high, digits=1):
        mark = "*" if low > 0 or high < 0 else ""
        return f"{100 * mean:+.{digits}f} [{100 * low:+.{digits}f}, {100 * high:+.{digits}f}]{mark}"

    for r in results:
        at = r["fixed_at"]
        if at["status"] == "ok":
            fixed_fresh = f"{100 * at['value']:.1f}"
            # frontier-matched's difference is fixed's curve minus the example: negate it.
            diff = cell(-at["difference"], -at["difference_ci_high"], -at["difference_ci_low"])
        else:
            fixed_fresh, diff = f"– ({at['status']})", "–"
        oracle, prophet = r["gaps"]["oracle"], r["gaps"]["prophet[runs_per_day=8]"]
        lines.append(
            f"| {r['population']} | {r['example']} | {100 * r['fresh']:.1f} | {r['energy']:.1f} | {r['runs']:.2f} | "
            f"{fixed_fresh} | {diff} | {cell(*oracle)} | {cell(*prophet)} | {r['wall']:.0f} s (load {r['load']:.1f}) |"
        )
    lines += [""] + [verdict(r) for r in results]
    lines += [
        "",
        f"A frontier's wall time is all its arms' (the built-in ones too) on {results[0]['threads']} threads, one policy "
        f"process each, with the machine's 5-minute load average as it ended ({os.cpu_count()} cores; other work ran too). "
        "The reference points, means across the same seeds (the same in every frontier of a population):",
        "",
        "| population | `fixed` (15 min) | `oracle` | `prophet` (8 runs a day) |",
        "|---|---|---|---|",
    ]
    for r in {r["population"]: r for r in results}.values():
        ref = [f"{100 * r[k]['fresh_open_rate']:.1f} % at {r[k]['background_energy_j_per_day']:.1f} J/day" for k in ("fixed15", "oracle", "prophet")]
        lines.append(f"| {r['population']} | {' | '.join(ref)} |")
    lines.append(END)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-write", action="store_true", help="print the table, leave README.md as it is")
    parser.add_argument("--binary", default=None, help="the bgbench binary (default: BGBENCH_BINARY, then PATH)")
    args = parser.parse_args()
    sizes = {k: int(os.environ.get(k.upper(), v)) for k, v in {"devices": 200, "days": 28, "seeds": 3}.items()}
    binary = bgbench.find_binary(args.binary)
    command = "Scripts/external-results.py" + "".join(
        f" {k.upper()}={v}" for k, v in sizes.items() if v != {"devices": 200, "days": 28, "seeds": 3}[k]
    )
    work = Path(tempfile.mkdtemp(prefix="bgbench-external-"))
    n, d = str(sizes["devices"]), str(sizes["days"])

    # Training opens: the default scenario's users of another seed; habits users of another seed.
    bgbench.run(policy="none", days=sizes["days"], devices=sizes["devices"], seed=TRAIN_SEED,
                extra_args=["--trace-devices", n], out=work / "train-default", binary=binary)
    habits, habits_train = work / "habits.csv", work / "habits-train.csv"
    for path, seed in ((habits, HABITS_SEED), (habits_train, HABITS_TRAIN_SEED)):
        subprocess.run([binary, "habits", "--devices", n, "--days", d, "--seed", str(seed), "--out", str(path)], check=True)

    populations = [
        ("default scenario", work / "train-default" / "events.csv", ["--days", d, "--devices", n]),
        ("habits", habits_train, ["--opens-trace", str(habits)]),
    ]
    results, models = [], {}
    for population, trace, score_args in populations:
        for example in EXAMPLES:
            results.append(evaluate(example, population, trace, score_args, work, sizes, binary, models))
            print(f"{population}: {example.label}: done in {results[-1]['wall']:.0f} s", file=sys.stderr)
    lines = rows_markdown(results, command, sizes)
    if args.no_write:
        print("\n".join(lines))
    else:
        readme = ROOT / "README.md"
        text = readme.read_text()
        begin, end = text.index(BEGIN), text.index(END) + len(END)
        readme.write_text(text[:begin] + "\n".join(lines) + text[end:])
        print("README.md: external results regenerated")
    print(f"reports: {work}", file=sys.stderr)


if __name__ == "__main__":
    main()
