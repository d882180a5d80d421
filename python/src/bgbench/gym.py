"""A Gymnasium environment: one device of a bgbench scenario for N days is an episode, and
the agent is its wake-prediction policy (python/README.md, "Gymnasium environment").

    import gymnasium, bgbench.gym
    env = gymnasium.make("bgbench/Device-v0", days=7, energy_price=0.01)
    observation, info = env.reset(seed=1)
    while True:
        observation, reward, terminated, truncated, info = env.step(env.action_space.sample())
        if terminated:
            break
    env.close()

`reset(seed=S)` starts `bgbench run --allow-external --policy external --devices 1
--days N --seed S --threads 1 --per-device` (and the scenario's options) in a private
temporary folder; the external policy is a relay (bgbench/_relay.py) that hands bgbench's
protocol channels to the environment over a Unix socket there, so the environment
answers bgbench itself (docs/protocol.md). Each decision message is a step's observation
(`bgbench.decisions.OBSERVATION`), each action its answer (`actions`). The reward comes
at the last step: bgbench tells a policy neither whether an open was fresh nor what a
run cost, so the episode's reward is read from its devices.csv row when bgbench ends,
`fresh_opens - energy_price * background_energy_j`, and every other step's is 0.
"""

from __future__ import annotations

try:
    import gymnasium
    from gymnasium import spaces
except ImportError:  # gymnasium is an optional extra
    raise ImportError(
        "bgbench.gym needs gymnasium, which is not installed: pip install './python[gym]' (or pip install gymnasium)"
    ) from None

import csv
import json
import os
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import weakref
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .binary import find_binary
from .decisions import DELAYS, SUBSCRIBED, Device, delays_of, duration
from .errors import BGBenchError
from .policy import PROTOCOL, answer
from .runner import _common_options

#: The environment's id in gymnasium's registry.
ENV_ID = "bgbench/Device-v0"
#: The default price of a joule of background energy, in fresh opens (`energy_price`).
DEFAULT_ENERGY_PRICE = 0.01
#: The relay bgbench starts as the external policy.
RELAY = Path(__file__).with_name("_relay.py")
#: The longest bgbench waits for a step (policies.external.timeout's largest value).
STEP_TIMEOUT = "60m"
#: devices.csv's columns given in the last step's `info`, beside the whole row.
INFO_COLUMNS = (
    "opens", "fresh_opens", "runs", "requested", "denied", "killed", "throttle_events",
    "background_energy_j", "foreground_energy_j",
)  # fmt: skip


class DeviceEnv(gymnasium.Env):
    """One device of a bgbench scenario for `days` days as an episode.

    - `days`: the episode's length in simulated days (bgbench's `--days`).
    - `scenario`, `set`: bgbench's `--scenario` (a file or a preset's name) and `--set`
      overrides (a dict {PATH: VALUE} or a list of "PATH=VALUE"), as `bgbench.run`.
    - `energy_price`: fresh opens a joule of background energy costs (≥ 0).
    - `delays`: the actions' delays (`"15m"`, `"2h"`, or seconds), default
      `bgbench.decisions.DELAYS`.
    - `denial_grid`: None (each denial is a step, callback `denied`) or a duration: the
      protocol's denial rule, bgbench answers every denial itself with the next point of
      that grid through the last requested time (`fixed`'s answer), and no denial is a step.
    - `trace`: also give the episode's events at the last step (`info["events"]`: the
      rows of bgbench's events.csv, `--trace-devices 1`): each open fresh or stale and
      each run with its time, for a learner that credits the reward after the fact.
    - `binary`: the bgbench binary (else BGBENCH_BINARY, else PATH).
    - `start_timeout`: seconds to wait for bgbench to start the relay.
    """

    metadata: Dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        days: int = 7,
        scenario: Optional[Union[str, Path]] = None,
        set: Union[Mapping[str, Any], Sequence[str], None] = None,
        energy_price: float = DEFAULT_ENERGY_PRICE,
        delays: Sequence[Union[str, int, float]] = DELAYS,
        denial_grid: Union[str, int, float, None] = None,
        trace: bool = False,
        binary: Optional[str] = None,
        start_timeout: float = 60.0,
    ):
        if isinstance(days, bool) or not isinstance(days, (int, np.integer)) or not 1 <= days <= 36500:
            raise ValueError(f"days {days!r}: expected an integer from 1 to 36500")
        if not np.isfinite(energy_price) or energy_price < 0:
            raise ValueError(f"energy_price {energy_price!r}: expected a finite number of fresh opens per joule, ≥ 0")
        self.days = int(days)
        self.energy_price = float(energy_price)
        self.denial_grid = None if denial_grid is None else duration(denial_grid, "denial_grid")
        self.device = Device(delays_of(delays))
        self.actions: List[str] = self.device.labels
        self.observation_space = spaces.Box(self.device.low, self.device.high, dtype=np.float32)
        self.action_space = spaces.Discrete(len(self.actions))
        self._binary = find_binary(binary)
        self._options = _common_options(None, self.days, 1, None, scenario, set, None, None)
        self.trace = bool(trace)
        if self.trace:
            self._options += ["--trace-devices", "1"]
        self._start_timeout = float(start_timeout)
        self._live = _Live()
        self._finalizer = weakref.finalize(self, self._live.close)
        self._message: Optional[Dict[str, Any]] = None
        #: The bgbench seed of the current episode.
        self.bgbench_seed: Optional[int] = None

    # -- gymnasium's API

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None):
        """Starts an episode: bgbench's `--seed` is `seed` when given, else a draw of the
        environment's generator (seeded by the last `seed`). Returns the observation of
        the device's `start` message."""
        super().reset(seed=seed)
        self._live.stop()
        self.bgbench_seed = int(seed) if seed is not None else int(self.np_random.integers(0, 2**32))
        try:
            self._live.start(self._command(self.bgbench_seed), self._start_timeout)
            self._hello()
            message = self._live.read()
            if message is None or message.get("type") != "start":
                self._live.finish()  # raises bgbench's error, if it failed
                raise RuntimeError(f"bgbench.gym: expected the device's 'start' message, got {message!r}")
        except BaseException:
            self._live.stop()
            raise
        self.device.see(message)
        self._message = message
        return self.device.observe(message), {"seed": self.bgbench_seed, "now": 0, "message": "start"}

    def step(self, action):
        """Answers the current decision with `action`; returns the next decision's
        observation, or at the device's horizon the terminal one with the episode's
        reward (terminated=True)."""
        if self._message is None:
            raise RuntimeError("bgbench.gym: step() without an episode: call reset() first (the last one ended)")
        try:
            return self._step(action)
        except BaseException:
            self._message = None
            self._live.stop()
            raise

    def close(self):
        """Ends the episode's processes (bgbench and the relay) and removes the temporary
        folder. The environment can be reset again afterwards."""
        self._message = None
        self._live.close()
        super().close()

    # -- the episode

    @property
    def pids(self) -> Tuple[Optional[int], Optional[int]]:
        """The process ids of the current episode's bgbench and relay (None when none)."""
        return self._live.pids()

    def _command(self, seed: int) -> List[str]:
        relay = json.dumps([sys.executable, "-I", "-S", str(RELAY), str(self._live.socket_path())])
        return [
            self._binary, "run", "--allow-external", "--policy", "external", "--seed", str(seed),
            "--threads", "1", "--per-device", "--quiet", *self._options,
            "--set", f"policies.external.command={relay}",
            "--set", f"policies.external.timeout={STEP_TIMEOUT}",
        ]  # fmt: skip

    def _hello(self) -> None:
        theirs = self._live.read()
        if theirs is None or theirs.get("type") != "hello" or theirs.get("protocol") != PROTOCOL:
            self._live.finish()
            raise RuntimeError(f"bgbench.gym: expected bgbench's hello of protocol {PROTOCOL}, got {theirs!r}")
        callbacks = [c for c in SUBSCRIBED if not (c == "denied" and self.denial_grid is not None)]
        hello: Dict[str, Any] = {
            "type": "hello",
            "protocol": PROTOCOL,
            "name": "bgbench-gym",
            "version": "1",
            "knob": {"name": "actions", "value": self.actions},
            "callbacks": callbacks,
        }
        if self.denial_grid is not None:
            hello["denials"] = {"rule": "grid", "interval": self.denial_grid}
        self._live.write(json.dumps(hello) + "\n")

    def _step(self, action):
        message = self._message
        assert message is not None
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"action {action!r}: expected an integer from 0 to {len(self.actions) - 1}")
        decision = self.device.decide(int(action), int(message["now"]))
        following = self._live.write(answer(message["seq"], decision)) and self._live.read()
        if following:
            self.device.see(following)
            self._message = following
            info = {"now": following["now"], "message": following["type"]}
            return self.device.observe(following), 0.0, False, False, info
        # bgbench closed the channel: the device reached its horizon.
        self._message = None
        row, events = self._live.finish()
        fresh, energy = float(row["fresh_opens"]), float(row["background_energy_j"])
        reward = fresh - self.energy_price * energy
        info: Dict[str, Any] = {name: float(row[name]) for name in INFO_COLUMNS}
        info.update(seed=self.bgbench_seed, energy_price=self.energy_price, now=self.device.horizon, message="end")
        info["device"] = row
        if self.trace:
            info["events"] = events
        return self.device.observe(message, end=True), reward, True, False, info


class _Live:
    """What an episode holds: the temporary folder, the Unix socket the relay connects
    to, bgbench's process and the protocol's channels. Kept apart from the environment so
    that a finalizer can end it when the environment is collected without close()."""

    def __init__(self) -> None:
        self.folder: Optional[Path] = None
        self.listener: Optional[socket.socket] = None
        self.process: Optional[subprocess.Popen] = None
        self.command: List[str] = []
        self.connection: Optional[socket.socket] = None
        self.relay_pid: Optional[int] = None
        self.reader: Any = None
        self.writer: Any = None

    def socket_path(self) -> Path:
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="bgbench-gym-"))  # mode 0700: only us
        return self.folder / "relay.sock"

    def pids(self) -> Tuple[Optional[int], Optional[int]]:
        return (self.process.pid if self.process is not None else None, self.relay_pid)

    def start(self, command: List[str], timeout: float) -> None:
        """Starts bgbench and waits for the relay to hand over the channels."""
        path = self.socket_path()
        assert self.folder is not None
        if self.listener is None:
            self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.listener.bind(str(path))
            self.listener.listen(1)
        shutil.rmtree(self.folder / "run", ignore_errors=True)
        command = [*command, "--out", str(self.folder / "run")]
        self.command = command
        with open(self.folder / "stderr", "wb") as stderr:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr)
        deadline = time.monotonic() + timeout
        while not select.select([self.listener], [], [], 0.05)[0]:
            if self.process.poll() is not None:
                self.finish()  # raises bgbench's error
            if time.monotonic() > deadline:
                raise RuntimeError(f"bgbench.gym: bgbench did not start its external policy within {timeout:g} s")
        self.connection, _ = self.listener.accept()
        self.relay_pid = _peer_pid(self.connection)
        _, fds, _, _ = socket.recv_fds(self.connection, 16, 2)
        if len(fds) != 2:
            raise RuntimeError(f"bgbench.gym: the relay handed over {len(fds)} file descriptors, expected 2")
        self.reader = os.fdopen(fds[0], "rb", buffering=1 << 16)
        self.writer = os.fdopen(fds[1], "wb", buffering=0)

    def read(self) -> Optional[Dict[str, Any]]:
        """bgbench's next message, or None when it closed the channel."""
        line = self.reader.readline()
        return json.loads(line) if line else None

    def write(self, line: str) -> bool:
        """Sends one line (LF included); False when bgbench is gone (its error is finish()'s)."""
        try:
            self.writer.write(line.encode())
            return True
        except BrokenPipeError:
            return False

    def finish(self) -> Tuple[Dict[str, str], List[Dict[str, str]]]:
        """After bgbench closed the channel: lets the relay go, waits for bgbench and
        returns the device's devices.csv row and its events.csv rows (none without
        `--trace-devices`); raises BGBenchError when bgbench failed."""
        self._disconnect()
        assert self.process is not None and self.folder is not None
        code = self.process.wait()
        self.process = None
        self.relay_pid = None
        stderr = (self.folder / "stderr").read_text(errors="replace")
        if code != 0:
            raise BGBenchError(code, stderr, self.command)
        rows = _rows(self.folder / "run" / "devices.csv")
        if len(rows) != 1:
            raise RuntimeError(f"bgbench.gym: devices.csv holds {len(rows)} rows, expected the episode's device's one")
        events = self.folder / "run" / "events.csv"
        return rows[0], _rows(events) if events.exists() else []

    def _disconnect(self) -> None:
        for channel in (self.reader, self.writer, self.connection):
            if channel is not None:
                try:
                    channel.close()
                except OSError:
                    pass
        self.reader = self.writer = self.connection = None

    def stop(self) -> None:
        """Ends the episode's processes, if any: closing the socket lets the relay go,
        SIGTERM ends bgbench (which ends its policy processes too)."""
        self._disconnect()
        relay, self.relay_pid = self.relay_pid, None
        if self.process is not None:
            if self.process.poll() is None:
                self.process.terminate()
                try:
                    self.process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
            self.process = None
        deadline = time.monotonic() + 5
        while relay is not None and _running(relay) and time.monotonic() < deadline:
            time.sleep(0.005)

    def close(self) -> None:
        self.stop()
        if self.listener is not None:
            self.listener.close()
            self.listener = None
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


def _rows(path: Path) -> List[Dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _peer_pid(connection: socket.socket) -> Optional[int]:
    """The process id of the socket's peer (Linux's SO_PEERCRED; None elsewhere)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    pid, _, _ = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    return pid


def _running(pid: int) -> bool:
    """Whether process `pid` is running (a zombie is not: it has ended, unreaped)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
            return True
        except ProcessLookupError:
            return False


gymnasium.register(id=ENV_ID, entry_point="bgbench.gym:DeviceEnv")
