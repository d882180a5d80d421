"""Running the bgbench binary: `run`, `sweep` and `frontier` return the folder's Report."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Union

from .binary import find_binary
from .errors import BGBenchError
from .report import Report, read

Overrides = Union[Mapping[str, Any], Sequence[str], None]


def run(
    *,
    policy: Union[str, Sequence[str], None] = None,
    days: Optional[int] = None,
    devices: Optional[int] = None,
    seed: Optional[int] = None,
    scenario: Optional[Union[str, Path]] = None,
    set: Overrides = None,
    replications: Optional[int] = None,
    baseline_policy: Optional[str] = None,
    per_device: bool = False,
    external: Optional[Sequence[str]] = None,
    out: Optional[Union[str, Path]] = None,
    extra_args: Optional[Sequence[str]] = None,
    binary: Optional[str] = None,
) -> Report:
    """`bgbench run` into `out` (default: a new temporary folder, which the caller owns and
    finds as `report.folder`), then `read(out)`.

    `policy` is a name, a comma-separated list or a sequence of names; `set` a dict
    {PATH: VALUE} or a list of "PATH=VALUE" (`--set`); `extra_args` any other options, as
    on the command line (`["--warmup-days", "7"]`). `external` is the program the policy
    `external` runs, as an argument list (`["python3", "my_policy.py"]`): it adds
    `--allow-external` and sets `policies.external.command` (docs/protocol.md). Raises
    BGBenchError (exit code, first line of stderr) when the binary fails, BinaryNotFound
    when there is none.
    """
    options = _common_options(policy, days, devices, seed, scenario, set, replications, baseline_policy, external)
    if per_device:
        options.append("--per-device")
    return _execute("run", options, out, extra_args, binary)


def sweep(
    *,
    set: Overrides,
    policy: Union[str, Sequence[str], None] = None,
    days: Optional[int] = None,
    devices: Optional[int] = None,
    seed: Optional[int] = None,
    scenario: Optional[Union[str, Path]] = None,
    replications: Optional[int] = None,
    baseline_policy: Optional[str] = None,
    per_device: bool = False,
    external: Optional[Sequence[str]] = None,
    out: Optional[Union[str, Path]] = None,
    extra_args: Optional[Sequence[str]] = None,
    binary: Optional[str] = None,
) -> Report:
    """`bgbench sweep`: the grid of the `set` values, e.g.
    `{"policies.fixed.interval": ["15m", "30m"]}` (a list value is joined with commas, so
    `"15m,30m"` is the same). Otherwise as `run`."""
    options = _common_options(policy, days, devices, seed, scenario, set, replications, baseline_policy, external)
    if per_device:
        options.append("--per-device")
    return _execute("sweep", options, out, extra_args, binary)


def frontier(
    *,
    policy: Union[str, Sequence[str], None] = None,
    knob: Optional[Mapping[str, Union[str, Sequence[Any]]]] = None,
    quality: Optional[str] = None,
    days: Optional[int] = None,
    devices: Optional[int] = None,
    seed: Optional[int] = None,
    scenario: Optional[Union[str, Path]] = None,
    set: Overrides = None,
    replications: Optional[int] = None,
    baseline_policy: Optional[str] = None,
    external: Optional[Sequence[str]] = None,
    out: Optional[Union[str, Path]] = None,
    extra_args: Optional[Sequence[str]] = None,
    binary: Optional[str] = None,
) -> Report:
    """`bgbench frontier`: every policy over its knob's values (`knob`: {POLICY: values},
    `--knob`), `quality` the curves' metric (`--quality`). Otherwise as `run`."""
    options = _common_options(policy, days, devices, seed, scenario, set, replications, baseline_policy, external)
    for name, values in (knob or {}).items():
        options += ["--knob", f"{name}={_joined(values)}"]
    if quality is not None:
        options += ["--quality", quality]
    return _execute("frontier", options, out, extra_args, binary)


def _common_options(
    policy: Union[str, Sequence[str], None],
    days: Optional[int],
    devices: Optional[int],
    seed: Optional[int],
    scenario: Optional[Union[str, Path]],
    overrides: Overrides,
    replications: Optional[int],
    baseline_policy: Optional[str],
    external: Optional[Sequence[str]] = None,
) -> List[str]:
    """The options every command shares, as arguments; None leaves the binary's default."""
    options: List[str] = []
    if policy is not None:
        options += ["--policy", _joined(policy)]
    named = [("--days", days), ("--devices", devices), ("--seed", seed), ("--scenario", scenario)]
    named += [("--replications", replications), ("--baseline-policy", baseline_policy)]
    for flag, value in named:
        if value is not None:
            options += [flag, str(value)]
    for override in _overrides(overrides):
        options += ["--set", override]
    if external is not None:
        options += ["--allow-external", "--set", f"policies.external.command={external_command(external)}"]
    return options


def external_command(program: Sequence[str]) -> str:
    """`policies.external.command`'s value for an argument list: a JSON array of strings
    (no shell: each element is one argument), e.g. `["python3","p.py","--knob","2"]`."""
    if isinstance(program, (str, bytes)) or not all(isinstance(arg, str) for arg in program):
        raise TypeError(f"external= takes the program as a list of strings, e.g. ['python3', 'policy.py'], not {program!r}")
    if not program:
        raise ValueError("external= names no program: give its argument list, e.g. ['python3', 'policy.py']")
    return json.dumps(list(program))


def _overrides(overrides: Overrides) -> List[str]:
    """`set=` as "PATH=VALUE" strings: a mapping's items (a list value joined with commas,
    for a sweep's grid), or a sequence of strings as given."""
    if overrides is None:
        return []
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, Mapping):
        return [f"{path}={_joined(value)}" for path, value in overrides.items()]
    return [str(override) for override in overrides]


def _joined(values: Union[str, Iterable[Any], Any]) -> str:
    """A string as is; a list of values joined with commas; any other value as str()."""
    if isinstance(values, str):
        return values
    if isinstance(values, Iterable):
        return ",".join(_scalar(value) for value in values)
    return _scalar(values)


def _scalar(value: Any) -> str:
    """A value as the command line spells it (booleans as JSON does)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _execute(
    command: str,
    options: List[str],
    out: Optional[Union[str, Path]],
    extra_args: Optional[Sequence[str]],
    binary: Optional[str],
) -> Report:
    """Run one command (no shell), raise BGBenchError on failure, read the folder."""
    executable = find_binary(binary)
    folder = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="bgbench-"))
    args = [executable, command, *options, "--quiet", "--out", str(folder), *(extra_args or [])]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        if out is None:
            shutil.rmtree(folder, ignore_errors=True)  # the empty folder made for this run
        raise BGBenchError(done.returncode, done.stderr, args)
    report = read(folder)
    report.output = done.stdout
    return report
