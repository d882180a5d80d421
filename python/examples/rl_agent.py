"""A small reinforcement-learning agent: REINFORCE over a softmax table, trained in the
Gymnasium environment (bgbench.gym), then served as bgbench's external policy. numpy only.

    python3 python/examples/rl_agent.py train --out agent.json          # a few minutes
    python3 python/examples/rl_agent.py evaluate agent.json             # against fixed
    python3 python/examples/rl_agent.py show agent.json                 # what it learned
    bgbench --allow-external --policy external,fixed \\
        --set 'policies.external.command=["python3","python/examples/rl_agent.py","serve","agent.json"]'

The table has one row of logits per state, a state being the decision's callback (start,
opened, denied, run_started, run_ended, midnight), its hour of the day in buckets of
`--hours` hours and whether the last open was within `--recent-open` hours; a row's softmax is the distribution over the environment's actions
(keep, cancel, `in D`, `grid D`: bgbench.decisions). An episode is one device-week of a
user from a pool of `--users` users (bgbench seeds SEED+1000, SEED+1001, ...: never the
devices `evaluate` runs); its reward comes at the end (fresh opens minus the price of the
energy, bgbench.gym), so every decision of the episode is credited with the episode's
return per day minus that user's running mean (a baseline per user: the same user meets
the same opens whatever the agent does, so what remains is the agent's doing).

Training is deterministic given `--seed` (the action draws and the users), so the
parameters are the same bytes on every machine with the same bgbench. Serving is greedy
(each state's most likely action) and draws nothing, or with `serve --sample` draws each
action from the device's own stream (reproducible too); the handshake's knob is the
parameter file's SHA-256, so run.json names the parameters a report was made with.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from typing import List, Optional

import numpy as np

# From a checkout, the package beside this example (installed or not) comes first.
_SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
if os.path.isdir(os.path.join(_SRC, "bgbench")):
    sys.path.insert(0, _SRC)
import bgbench  # noqa: E402
from bgbench.decisions import CALLBACKS, INDEX, SUBSCRIBED, Device, delays_of, label  # noqa: E402

#: The callbacks a state distinguishes (not `end`: no decision is taken there).
STATE_CALLBACKS = CALLBACKS[:-1]
FORMAT = "bgbench-rl-agent/1"


class Table:
    """The softmax table: logits[state, action]. A state is (callback, hour bucket), and
    with `recent_open` (hours) also whether the user opened the app within that time."""

    def __init__(self, hours: int, actions: int, logits=None, recent_open: Optional[float] = None):
        if 24 % hours:
            raise ValueError(f"--hours {hours}: expected a divisor of 24 (1, 2, 3, 4, 6, 8, 12, 24)")
        self.hours = hours
        self.buckets = 24 // hours
        self.recent_open = recent_open
        shape = ((1 if recent_open is None else 2) * len(STATE_CALLBACKS) * self.buckets, actions)
        self.logits = np.zeros(shape) if logits is None else np.asarray(logits, dtype=float).reshape(shape)

    def state(self, observation: np.ndarray) -> int:
        callback = int(np.argmax(observation[: len(STATE_CALLBACKS)]))
        bucket = min(self.buckets - 1, int(observation[INDEX["hour_of_day"]]) // self.hours)
        recent = self.recent_open is not None and observation[INDEX["hours_since_open"]] < self.recent_open
        return ((1 if recent else 0) * len(STATE_CALLBACKS) + callback) * self.buckets + bucket

    def probabilities(self, state: int) -> np.ndarray:
        z = self.logits[state] - self.logits[state].max()
        p = np.exp(z)
        return p / p.sum()

    def greedy(self, state: int) -> int:
        return int(np.argmax(self.logits[state]))  # the first of ties: keep before the others


# -- train


def play(env, seed: int, choose) -> tuple:
    """One episode of user `seed`: the observations, the actions `choose(observation)`
    gave, the return per day and the last step's info."""
    observation, _ = env.reset(seed=seed)
    observations, actions = [], []
    while True:
        action = choose(observation)
        observations.append(observation)
        actions.append(action)
        observation, reward, terminated, _, info = env.step(action)
        if terminated:
            return observations, actions, reward / env.days, info


def train(args: argparse.Namespace) -> None:
    import bgbench.gym

    env = bgbench.gym.DeviceEnv(
        days=args.days, energy_price=args.energy_price, delays=args.delays, denial_grid=args.denial_grid
    )
    table = Table(args.hours, env.action_space.n, recent_open=args.recent_open or None)
    rng = np.random.default_rng(args.seed)
    started = time.monotonic()
    # The reference and first baseline of each user: fixed 15 min's return (grid 15m at
    # start, at run starts and at denials), so the learning curve reads against fixed.
    grid = env.actions.index("grid 15m") if "grid 15m" in env.actions else len(env.actions) - 1
    starts = {CALLBACKS.index(c) for c in ("start", "run_started", "denied")}
    as_fixed = lambda o: grid if int(np.argmax(o[: len(STATE_CALLBACKS)])) in starts else 0  # noqa: E731
    users = [1000 + args.seed + u for u in range(args.users)]
    fixed = {user: play(env, user, as_fixed)[2] for user in users}
    baseline = dict(fixed)
    scale = 0.0  # the running root mean square of the advantages
    gained: List[float] = []
    steps = 0
    for episode in range(args.episodes):
        user = users[int(rng.integers(args.users))]

        def sample(observation: np.ndarray) -> int:
            return int(rng.choice(env.action_space.n, p=table.probabilities(table.state(observation))))

        observations, actions, per_day, _ = play(env, user, sample)
        steps += len(actions)
        gained.append(per_day - fixed[user])
        advantage = per_day - baseline[user]
        baseline[user] += args.baseline_rate * advantage
        scale = abs(advantage) if episode == 0 else np.sqrt(0.95 * scale**2 + 0.05 * advantage**2)
        # REINFORCE: the gradient of log softmax is onehot(action) - probabilities, per decision.
        gradient = np.zeros_like(table.logits)
        for observation, action in zip(observations, actions):
            state = table.state(observation)
            gradient[state] -= table.probabilities(state)
            gradient[state, action] += 1.0
        table.logits += args.learning_rate * (advantage / max(scale, 1e-9)) * gradient
        if (episode + 1) % args.report_every == 0:
            recent = gained[-args.report_every :]
            print(
                f"episode {episode + 1}: return minus fixed 15m's on the same users {np.mean(recent):+.3f}/day "
                f"(last {len(recent)}), {steps / (time.monotonic() - started):.0f} steps/s",
                flush=True,
            )
    env.close()
    document = {
        "format": FORMAT,
        "hours": args.hours,
        "recent_open_hours": args.recent_open or None,
        "callbacks": list(STATE_CALLBACKS),
        "actions": env.actions,
        "delays": [label(d) for d in env.device.delays],
        "denial_grid": None if env.denial_grid is None else label(env.denial_grid),
        "training": {
            "episodes": args.episodes,
            "days": args.days,
            "users": args.users,
            "seed": args.seed,
            "energy_price": args.energy_price,
            "learning_rate": args.learning_rate,
            "baseline_rate": args.baseline_rate,
            "steps": steps,
        },
        "logits": [[round(float(x), 12) for x in row] for row in table.logits],
    }
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1)
        handle.write("\n")
    print(f"wrote {args.out}: {args.episodes} episodes, {steps} steps in {time.monotonic() - started:.0f} s")


# -- serve


def load(path: str) -> dict:
    with open(path, "rb") as handle:
        raw = handle.read()
    document = json.loads(raw)
    if document.get("format") != FORMAT:
        found = document.get("format")
        raise SystemExit(f"{path}: format {found!r}, expected '{FORMAT}' (rl_agent.py train writes it)")
    document["sha256"] = hashlib.sha256(raw).hexdigest()
    return document


def table_of(document: dict) -> Table:
    """The table a parameter file holds."""
    return Table(document["hours"], len(document["actions"]), document["logits"], document.get("recent_open_hours"))


class Agent(bgbench.Policy):
    """The trained table, served greedily over the external protocol: the environment's
    observation and actions (bgbench.decisions), so the agent sees and does what it did in
    training."""

    name = "rl-agent"
    version = "1"

    def __init__(self, document: dict, sample: bool = False):
        self.sample = sample
        if sample:
            self.name = "rl-agent-sampled"
        delays = delays_of(document["delays"])
        self.device = Device(delays)
        self.table = table_of(document)
        self.knob = {"name": "params_sha256", "value": document["sha256"]}
        grid = document.get("denial_grid")
        self.denial_grid = None if grid is None else delays_of([grid])[0]
        self.callbacks = tuple(c for c in SUBSCRIBED if not (c == "denied" and self.denial_grid is not None))

    def start(self, view):
        # The device's own policy stream (bgbench's generator): the same draws on any
        # thread count. Its first draw is the grid's phase (bgbench.decisions.Device).
        self.random = view.random
        self.random.uniform()
        return self.decide(view)

    def decide(self, view):
        message = view.__dict__
        self.device.see(message)
        state = self.table.state(self.device.observe(message))
        if self.sample:  # a draw of the softmax, by its inverse distribution function
            cumulative = np.cumsum(self.table.probabilities(state))
            drawn = int(np.searchsorted(cumulative, self.random.uniform() * cumulative[-1], side="right"))
            action = min(drawn, len(cumulative) - 1)
        else:
            action = self.table.greedy(state)
        return self.device.decide(action, message["now"])

    opened = denied = run_started = run_ended = midnight = decide


# -- evaluate


def evaluate(args: argparse.Namespace) -> None:
    """The served agent against fixed at each interval, on the same devices (paired): a
    Markdown table, the agent's row first, then each fixed with the agent minus it."""
    serve = [sys.executable, os.path.abspath(__file__), "serve", os.path.abspath(args.params)]
    command = json.dumps(serve + (["--sample"] if args.sample else []))
    price = load(args.params)["training"]["energy_price"]
    print(
        f"{args.devices} devices x {args.days} days, seed {args.seed}; the return per day at the training's "
        f"energy price ({price} fresh opens/J); the agent minus each fixed, device by device, with 95 % intervals"
    )
    print()
    print(
        "| policy | fresh-open rate | fresh opens/day | runs/day | J/day | return/day "
        "| agent − it: fresh-open rate, points | agent − it: J/day |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for index, interval in enumerate(args.fixed):
        report = bgbench.run(
            policy="external,fixed",
            days=args.days,
            devices=args.devices,
            seed=args.seed,
            scenario=args.scenario,
            set={"policies.external.command": command, "policies.fixed.interval": interval},
            extra_args=["--allow-external", "--threads", str(args.threads)],
        )
        summary = report.summary
        s = summary[summary["archetype"] == "all"].set_index("policy")
        if index == 0:
            name = "rl-agent" + (" (sampled)" if args.sample else "")
            print(_row(name, s.loc["external"], price) + " | | |")
        paired = report.paired
        differences = []
        for metric, scale in (("fresh_open_rate", 100), ("background_energy_j_per_day", 1)):
            p = paired[paired["metric"] == metric].iloc[0]
            low, high = scale * p["difference_ci_low"], scale * p["difference_ci_high"]
            differences.append(f"{scale * p['difference']:+.2f} [{low:+.2f}, {high:+.2f}]")
        print(_row(f"fixed {interval}", s.loc["fixed"], price) + f" | {differences[0]} | {differences[1]} |")


def _row(name: str, s, price: float) -> str:
    fresh_per_day = s["fresh_open_rate"] * s["opens_per_day"]
    energy = s["background_energy_j_per_day"]
    return (
        f"| {name} | {s['fresh_open_rate']:.4f} | {fresh_per_day:.3f} | {s['runs_per_day']:.2f} | {energy:.2f} "
        f"| {fresh_per_day - price * energy:.3f}"
    )


def show(args: argparse.Namespace) -> None:
    """Each state's most likely action and its probability: what the table learned."""
    document = load(args.params)
    table = table_of(document)
    print("| callback | " + " | ".join(f"{h:02d}-{h + table.hours:02d} h" for h in range(0, 24, table.hours)) + " |")
    print("|---" * (1 + table.buckets) + "|")
    for recent in (0, 1) if table.recent_open is not None else (0,):
        for c, callback in enumerate(STATE_CALLBACKS):
            cells = []
            for b in range(table.buckets):
                state = (recent * len(STATE_CALLBACKS) + c) * table.buckets + b
                cells.append(f"{document['actions'][table.greedy(state)]} ({table.probabilities(state).max():.2f})")
            within = f", open < {table.recent_open:g} h" if recent else ""
            print(f"| {callback}{within} | " + " | ".join(cells) + " |")


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    t = commands.add_parser("train", help="train in bgbench.gym, write the parameters (JSON)")
    t.add_argument("--out", required=True, help="the parameter file to write")
    t.add_argument("--episodes", type=int, default=1500, help="episodes (default 1500: 6 min on a busy 2-core machine)")
    t.add_argument("--days", type=int, default=7, help="days per episode (default 7)")
    t.add_argument("--users", type=int, default=64, help="the pool of users trained on (default 64)")
    t.add_argument("--seed", type=int, default=1, help="the action draws' and the users' seed (default 1)")
    t.add_argument("--hours", type=int, default=4, help="hours per bucket of the day (default 4)")
    t.add_argument(
        "--recent-open", type=float, default=1.0, help="states apart when the last open is this recent, hours (0: not)"
    )
    t.add_argument("--energy-price", type=float, default=None, help="fresh opens per joule (default bgbench.gym's)")
    t.add_argument("--delays", default=None, help="the actions' delays, comma-separated (default bgbench.gym's)")
    t.add_argument("--denial-grid", default=None, help="a denial rule's grid (default: each denial is a decision)")
    t.add_argument("--learning-rate", type=float, default=0.05, help="step size (default 0.05)")
    t.add_argument("--baseline-rate", type=float, default=0.2, help="the per-user baseline's update rate (default 0.2)")
    t.add_argument("--report-every", type=int, default=100, help="print the mean return every N episodes")
    s = commands.add_parser("serve", help="serve the parameters as bgbench's external policy")
    s.add_argument("params")
    s.add_argument("--sample", action="store_true", help="draw each action from the softmax (the device's stream)")
    e = commands.add_parser("evaluate", help="run the served agent against fixed (bgbench run, paired)")
    e.add_argument("params")
    e.add_argument("--devices", type=int, default=200)
    e.add_argument("--days", type=int, default=30)
    e.add_argument("--seed", type=int, default=1)
    e.add_argument("--scenario", default=None)
    e.add_argument("--threads", type=int, default=2)
    e.add_argument("--fixed", default="15m,30m,1h,4h,8h", help="fixed's intervals to compare with")
    e.add_argument("--sample", action="store_true", help="serve with --sample")
    w = commands.add_parser("show", help="print each state's most likely action and its probability")
    w.add_argument("params")
    args = parser.parse_args(argv)
    if args.command == "show":
        show(args)
    elif args.command == "train":
        import bgbench.gym

        if args.energy_price is None:
            args.energy_price = bgbench.gym.DEFAULT_ENERGY_PRICE
        args.delays = bgbench.decisions.DELAYS if args.delays is None else args.delays.split(",")
        train(args)
    elif args.command == "serve":
        Agent(load(args.params), args.sample).serve()
    else:
        args.fixed = args.fixed.split(",")
        evaluate(args)


if __name__ == "__main__":
    main()
