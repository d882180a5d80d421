"""Reading a bgbench report folder: `read(folder)` returns a `Report`.

A report folder (a run's, a replicated run's, a shard's, a merged run's, a sweep's or a
frontier's) is trusted only when its run.json's manifest matches it: every file listed is
there with that size (and SHA-256), and every report file (`.csv`, `.json`) is listed
(Reports/README.md, "How a folder is written"). Units come from the folder's long.csv,
written by the binary from its metric table: this package keeps no table of units.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

import pandas as pd

from .errors import ReportError

# Suffixes that make a column hold its metric's figure in the metric's unit: summary.csv's
# intervals, frontier.csv's paired differences and their intervals.
_METRIC_SUFFIXES = ("_difference_ci_low", "_difference_ci_high", "_difference", "_ci_low", "_ci_high")

# frontier-matched.csv's energy columns are values of the frontier's energy axis,
# background_energy_j_per_day (Reports/README.md, "A frontier folder").
_ENERGY_COLUMNS = ("energy_j_per_day", "energy_low_j_per_day", "energy_high_j_per_day")
_ENERGY_METRIC = "background_energy_j_per_day"

# pandas 3 parses every number exactly by default (and deprecates the option); before 3,
# only float_precision="round_trip" does.
_ROUND_TRIP: Dict[str, str] = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


@dataclass
class Report:
    """A report folder read into pandas.

    Every CSV of the folder is a DataFrame, as an attribute named after the file
    (`frontier-matched.csv` is `frontier_matched`) and in `tables`; a file the folder does
    not have is None. Empty fields are missing values (NaN, <NA>); `seed` columns are exact
    unsigned 64-bit integers; `true`/`false` columns are booleans.

    `units` maps every metric (a summary.csv metric column, and `gap_closed`) to its unit,
    as the folder's long.csv gives it. Each DataFrame also carries
    `.attrs["units"]`: its metric columns (`<metric>`, `<metric>_ci_low`, ...) → unit; and
    a long-form frame (with a `metric` column: paired, replications, long)
    `.attrs["metric_units"]`: each metric in it → unit.
    """

    folder: Path
    kind: str
    run: Dict[str, Any]
    units: Dict[str, str]
    tables: Dict[str, pd.DataFrame]
    scenarios: Dict[str, Any] = field(default_factory=dict)
    output: str = ""

    summary: Optional[pd.DataFrame] = None
    daily: Optional[pd.DataFrame] = None
    hourly: Optional[pd.DataFrame] = None
    server: Optional[pd.DataFrame] = None
    devices: Optional[pd.DataFrame] = None
    events: Optional[pd.DataFrame] = None
    paired: Optional[pd.DataFrame] = None
    replications: Optional[pd.DataFrame] = None
    long: Optional[pd.DataFrame] = None
    frontier: Optional[pd.DataFrame] = None
    frontier_matched: Optional[pd.DataFrame] = None

    @property
    def shard(self) -> Optional[Dict[str, Any]]:
        """run.json's `shard` (index, count, devices) in a shard folder, else None."""
        return self.run.get("shard")

    @property
    def merged(self) -> bool:
        """True for a folder `bgbench merge` wrote (its run.json lists the shards)."""
        return "shards" in self.run.get("execution", {})

    @property
    def scenario(self) -> Optional[Dict[str, Any]]:
        """scenario.json, the resolved scenario (a run's or a frontier's), else None."""
        return self.scenarios.get("scenario.json")

    def unit(self, metric: str) -> str:
        """The unit of `metric` (KeyError naming the metrics known when it is none)."""
        try:
            return self.units[metric]
        except KeyError:
            raise KeyError(f"no metric '{metric}' in {self.folder}/long.csv; known: {sorted(self.units)}") from None

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}: {len(frame)} rows" for name, frame in self.tables.items())
        return f"Report(kind={self.kind!r}, folder='{self.folder}', {shown})"


def read(folder: Union[str, Path], *, checksums: bool = True) -> Report:
    """Read a report folder of any kind after checking it is whole.

    Raises ReportError naming the file when run.json is missing or unreadable, a file of
    its manifest is missing or of another size (or, with `checksums`, another SHA-256), a
    report file is not in the manifest, a CSV cannot be parsed, or long.csv (the units) is
    missing.
    """
    folder = Path(folder)
    run_json = _run_json(folder)
    names = verify(folder, run_json, checksums=checksums)
    tables = {_attribute(name): _read_csv(folder / name, run_json) for name in names if name.endswith(".csv")}
    scenarios = {name: _read_json(folder / name) for name in names if name.endswith(".json")}
    units = units_from_long(tables.get("long"), folder / "long.csv")
    for frame in tables.values():
        _attach_units(frame, units)
    known = {name: frame for name, frame in tables.items() if name in Report.__dataclass_fields__}
    return Report(
        folder=folder,
        kind=kind_of(run_json),
        run=run_json,
        units=units,
        tables=tables,
        scenarios=scenarios,
        **known,
    )


def kind_of(run_json: Dict[str, Any]) -> str:
    """The command that wrote the folder: `run`, `sweep` or `frontier` (a shard and a merged
    folder are of their command's kind; a replicated run is a run)."""
    if "sweep" in run_json:
        return "sweep"
    if "frontier" in run_json:
        return "frontier"
    return "run"


def verify(folder: Path, run_json: Dict[str, Any], *, checksums: bool = True) -> List[str]:
    """The names run.json's manifest lists, once each is checked against the folder."""
    manifest = run_json.get("manifest")
    if not isinstance(manifest, list):
        path = folder / "run.json"
        raise ReportError(f"'{path}' has no manifest (written by a bgbench before schema 3?)", path)
    names = [_check_entry(folder, entry, checksums) for entry in manifest]
    _check_unlisted(folder, set(names))
    return names


def _run_json(folder: Path) -> Dict[str, Any]:
    """run.json parsed, or ReportError: no folder, no run.json (written last), bad JSON."""
    if not folder.is_dir():
        raise ReportError(f"'{folder}' is not a folder", folder)
    path = folder / "run.json"
    if not path.is_file():
        raise ReportError(f"'{path}' is missing: not a whole report folder (bgbench writes run.json last)", path)
    parsed = _read_json(path)
    if not isinstance(parsed, dict):
        raise ReportError(f"'{path}' is not a JSON object", path)
    return parsed


def _read_json(path: Path) -> Any:
    """A JSON file parsed, or ReportError naming it."""
    try:
        with path.open(encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError) as error:
        raise ReportError(f"'{path}' cannot be read as JSON: {error}", path) from error


def _check_entry(folder: Path, entry: Any, checksums: bool) -> str:
    """One manifest entry checked: the file is there, of its size and SHA-256."""
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or "/" in entry["name"]:
        raise ReportError(f"'{folder / 'run.json'}' has a malformed manifest entry: {entry!r}", folder / "run.json")
    path = folder / entry["name"]
    if not path.is_file():
        raise ReportError(f"'{path}' is missing: run.json's manifest lists it", path)
    size = path.stat().st_size
    if size != entry.get("bytes"):
        raise ReportError(
            f"'{path}' is {size} bytes, run.json's manifest says {entry.get('bytes')}: truncated or changed", path
        )
    if checksums and _sha256(path) != entry.get("sha256"):
        raise ReportError(f"'{path}' does not have the SHA-256 run.json's manifest gives: changed since written", path)
    return entry["name"]


def _check_unlisted(folder: Path, listed: set) -> None:
    """ReportError for a report file (.csv, .json) the manifest does not list."""
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or path.name == "run.json" or path.name in listed:
            continue
        if path.suffix in (".csv", ".json"):
            raise ReportError(f"'{path}' is not in run.json's manifest: not a file of this report", path)


def _sha256(path: Path) -> str:
    """SHA-256 of a file, hex."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _attribute(name: str) -> str:
    """A file's attribute name: `frontier-matched.csv` → `frontier_matched`."""
    return name[: -len(".csv")].replace("-", "_")


def _text_columns(run_json: Dict[str, Any]) -> List[str]:
    """Columns that hold values as typed: a sweep's axes, a frontier's knob values."""
    axes = [axis["path"] for axis in run_json.get("sweep", {}).get("axes", []) if "path" in axis]
    return axes + ["knob_value", "scenario", "policy", "baseline", "arm", "arm_policy", "knob"]


def _read_csv(path: Path, run_json: Dict[str, Any]) -> pd.DataFrame:
    """A report CSV as bgbench writes it: only an empty field is missing, and every number
    reads back to the double written (bgbench writes the shortest form that round-trips).
    """
    try:
        header = pd.read_csv(path, nrows=0).columns
        dtypes: Dict[str, Any] = {column: str for column in _text_columns(run_json) if column in header}
        if "seed" in header:
            dtypes["seed"] = "UInt64"
        frame = pd.read_csv(
            path,
            dtype=dtypes,
            keep_default_na=False,
            na_values=[""],
            true_values=["true"],
            false_values=["false"],
            **_ROUND_TRIP,
        )
    except (OSError, ValueError, pd.errors.ParserError) as error:
        raise ReportError(f"'{path}' cannot be read as a report CSV: {error}", path) from error
    return _booleans(frame)


def _booleans(frame: pd.DataFrame) -> pd.DataFrame:
    """Columns of true/false with empty fields (read as objects) as nullable booleans."""
    for column in frame.columns:
        values = frame[column]
        if values.dtype == object:
            present = values.dropna()
            if len(present) > 0 and all(isinstance(value, bool) for value in present):
                frame[column] = values.astype("boolean")
    return frame


def units_from_long(long: Optional[pd.DataFrame], path: Path) -> Dict[str, str]:
    """Each metric's unit from long.csv's `metric` and `unit` columns (one unit a metric)."""
    if long is None:
        raise ReportError(
            f"'{path}' is missing: the units come from it (written by a bgbench older than long.csv?)", path
        )
    if "metric" not in long.columns or "unit" not in long.columns:
        raise ReportError(f"'{path}' has no `metric` and `unit` columns", path)
    pairs = long[["metric", "unit"]].dropna().drop_duplicates()
    clashes = pairs[pairs["metric"].duplicated(keep=False)]
    if len(clashes) > 0:
        raise ReportError(f"'{path}' gives metric '{clashes['metric'].iloc[0]}' more than one unit", path)
    return dict(zip(pairs["metric"].astype(str), pairs["unit"].astype(str)))


def metric_of_column(column: str, units: Dict[str, str]) -> Optional[str]:
    """The metric a wide column holds a figure of (`fresh_open_rate_ci_low` →
    `fresh_open_rate`), or None."""
    if column in units:
        return column
    for suffix in _METRIC_SUFFIXES:
        if column.endswith(suffix) and column[: -len(suffix)] in units:
            return column[: -len(suffix)]
    return None


def column_units(frame: pd.DataFrame, units: Dict[str, str]) -> Dict[str, str]:
    """The unit of each metric column of a frame, by column name."""
    found = {}
    quality = _single_value(frame, "quality_metric")
    for column in frame.columns:
        metric = metric_of_column(str(column), units)
        if metric is None and quality is not None:
            metric = metric_of_column(str(column).replace("quality", quality, 1), units)
        if metric is None and column in _ENERGY_COLUMNS:
            metric = _ENERGY_METRIC
        if metric is not None and metric in units:
            found[str(column)] = units[metric]
    return found


def _single_value(frame: pd.DataFrame, column: str) -> Optional[str]:
    """The one value of a column (frontier.csv's `quality_metric`), else None."""
    if column not in frame.columns:
        return None
    values = frame[column].dropna().unique()
    return str(values[0]) if len(values) == 1 else None


def _attach_units(frame: pd.DataFrame, units: Dict[str, str]) -> None:
    """Set `.attrs["units"]` (by column) and, for a long-form frame, `.attrs["metric_units"]`."""
    frame.attrs["units"] = column_units(frame, units)
    if "metric" in frame.columns:
        metrics = frame["metric"].dropna().astype(str).unique()
        frame.attrs["metric_units"] = {metric: units[metric] for metric in metrics if metric in units}
