"""bgbench.read on every folder kind, checked against the CSV text and long.csv's units."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Dict

import numpy as np
import pandas as pd
import pytest
from helpers import rows

import bgbench

def same(value: float, text: str) -> bool:
    """A DataFrame cell equals a CSV field: the same double, or missing for an empty one."""
    return math.isnan(value) if text == "" else value == float(text)


KINDS = ["run", "replicated", "shard", "merged", "sweep", "frontier"]

# The files each folder kind has (Reports/README.md, the table of report files).
EXPECTED = {
    "run": {"summary", "daily", "hourly", "server", "paired", "paired_archetypes", "long"},
    "replicated": {
        "summary", "daily", "hourly", "server", "paired", "paired_archetypes", "long", "replications", "devices",
        "events",
    },
    "shard": {"summary", "daily", "hourly", "server", "paired", "paired_archetypes", "long"},
    "merged": {"summary", "daily", "hourly", "server", "paired", "paired_archetypes", "long"},
    "sweep": {"summary", "daily", "hourly", "server", "long", "pareto_pairs"},
    "frontier": {"summary", "paired", "long", "frontier", "frontier_matched", "pareto_pairs"},
}


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_reads_with_its_files(folders: Dict[str, Path], kind: str) -> None:
    report = bgbench.read(folders[kind])
    assert set(report.tables) == EXPECTED[kind]
    for name in ["summary", "daily", "hourly", "server", "devices", "events", "paired", "replications"]:
        assert (getattr(report, name) is not None) == (name in EXPECTED[kind]), name
    assert report.kind == {"replicated": "run", "shard": "run", "merged": "run"}.get(kind, kind)
    assert (report.shard is not None) == (kind == "shard")
    assert report.merged == (kind == "merged")
    assert report.run["manifest"], "run.json is read as a dict"
    assert len(report.summary) == len(rows(folders[kind] / "summary.csv"))


def test_shard_and_sweep_details(folders: Dict[str, Path]) -> None:
    assert bgbench.read(folders["shard"]).shard["index"] == 1
    sweep = bgbench.read(folders["sweep"])
    assert set(sweep.scenarios) == {"scenario-1.json", "scenario-2.json", "scenario-3.json", "scenario-4.json"}
    assert bgbench.read(folders["run"]).scenario["platform"]["name"] == "ios-bgtask"


def test_summary_cells_are_the_csv_text(folders: Dict[str, Path]) -> None:
    report = bgbench.read(folders["replicated"])
    text = rows(folders["replicated"] / "summary.csv")
    for index in [0, 3, len(text) - 1]:
        row, frame = text[index], report.summary.iloc[index]
        assert frame["policy"] == row["policy"] and frame["archetype"] == row["archetype"]
        assert int(frame["seed"]) == int(row["seed"])
        assert same(frame["fresh_open_rate"], row["fresh_open_rate"])
        assert same(frame["background_energy_j_per_day_ci_high"], row["background_energy_j_per_day_ci_high"])
        assert frame["devices"] == int(row["devices"])


def test_empty_fields_are_missing_and_flags_are_booleans(folders: Dict[str, Path]) -> None:
    report = bgbench.read(folders["replicated"])
    long = report.long
    text = rows(folders["replicated"] / "long.csv")
    pooled = [i for i, row in enumerate(text) if row["pooled"] == "true"]
    assert pooled and all(row["seed"] == "" for row in (text[i] for i in pooled))
    assert long["seed"].iloc[pooled].isna().all()
    assert long["pooled"].iloc[pooled].all() and not long["pooled"].iloc[0]
    assert str(long["seed"].dtype) == "UInt64"
    quantile = next(i for i, row in enumerate(text) if row["unstable"] != "")
    assert bool(long["unstable"].iloc[quantile]) == (text[quantile]["unstable"] == "true")
    paired_text = rows(folders["replicated"] / "paired.csv")
    flags = {"true": True, "false": False, "": None}
    assert [None if pd.isna(v) else bool(v) for v in report.paired["excludes_zero"]] == [
        flags[row["excludes_zero"]] for row in paired_text
    ]
    gap = report.replications[report.replications["metric"] == "gap_closed"]
    assert len(gap) > 0 and gap["difference"].isna().all()


def test_sweep_axes_keep_their_values_as_typed(folders: Dict[str, Path]) -> None:
    summary = bgbench.read(folders["sweep"]).summary
    text = rows(folders["sweep"] / "summary.csv")
    assert list(summary["population.bar_off_share"].unique()) == ["0", "0.20"]
    assert list(summary["policies.fixed.interval"]) == [row["policies.fixed.interval"] for row in text]


@pytest.mark.parametrize("kind", KINDS)
def test_units_are_long_csv_units(folders: Dict[str, Path], kind: str) -> None:
    report = bgbench.read(folders[kind])
    long_rows = rows(folders[kind] / "long.csv")
    unit_of = {row["metric"]: row["unit"] for row in long_rows}
    assert report.units["fresh_open_rate"] == unit_of["fresh_open_rate"] == "ratio"
    assert report.units["background_energy_j_per_day"] == unit_of["background_energy_j_per_day"] == "J/device-day"
    assert report.units["staleness_p95_s"] == "s" and report.units["opens_per_day"] == "1/device-day"
    assert all(report.units[row["metric"]] == row["unit"] for row in long_rows)
    summary_units = report.summary.attrs["units"]
    assert summary_units["fresh_open_rate_ci_low"] == "ratio"
    assert summary_units["battery_pct_per_day"] == unit_of["battery_pct_per_day"]
    assert "policy" not in summary_units and "staleness_p95_s_unstable" not in summary_units
    assert report.long.attrs["metric_units"]["fresh_open_rate"] == "ratio"


def test_units_of_replications_and_frontier(folders: Dict[str, Path]) -> None:
    replicated = bgbench.read(folders["replicated"])
    assert replicated.unit("gap_closed") == "ratio"
    assert replicated.replications.attrs["metric_units"]["background_energy_j_per_day"] == "J/device-day"
    assert replicated.daily.attrs["units"]["runs_per_day_ci_high"] == "1/device-day"
    frontier = bgbench.read(folders["frontier"])
    units = frontier.frontier.attrs["units"]
    assert units["quality"] == units["quality_difference_ci_low"] == frontier.units["fresh_open_rate"]
    assert units["staleness_mean_s_difference"] == "s"
    assert frontier.frontier_matched.attrs["units"]["energy_j_per_day"] == "J/device-day"
    with pytest.raises(KeyError, match="no metric 'fresh_opens'"):
        frontier.unit("fresh_opens")


def test_a_metric_with_two_units_is_refused(tmp_path: Path) -> None:
    from bgbench.report import units_from_long

    long = pd.DataFrame(
        {"metric": ["fresh_open_rate", "fresh_open_rate", "runs_per_day"], "unit": ["ratio", "%", "1/device-day"]}
    )
    with pytest.raises(bgbench.ReportError, match="gives metric 'fresh_open_rate' more than one unit"):
        units_from_long(long, tmp_path / "long.csv")
    units = units_from_long(long.iloc[1:], tmp_path / "long.csv")
    assert units == {"fresh_open_rate": "%", "runs_per_day": "1/device-day"}


def cell_is_text(value: object, text: str) -> bool:
    """A DataFrame cell is its CSV field: missing for an empty one, else the same boolean,
    string, integer or double."""
    if text == "":
        return bool(pd.isna(value))
    if isinstance(value, (bool, np.bool_)):
        return text == ("true" if value else "false")
    if isinstance(value, str):
        return value == text
    if isinstance(value, (int, np.integer)):
        return int(value) == int(text)
    return float(value) == float(text)  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", KINDS)
def test_every_cell_is_the_csv_text(folders: Dict[str, Path], kind: str) -> None:
    report = bgbench.read(folders[kind])
    for name, frame in report.tables.items():
        text = rows(folders[kind] / f"{name.replace('_', '-')}.csv")
        assert list(frame.columns) == list(text[0].keys()) if text else True
        assert len(frame) == len(text), name
        for index, (cells, fields) in enumerate(zip(frame.itertuples(index=False), text)):
            for column, value, field in zip(frame.columns, cells, fields.values()):
                assert cell_is_text(value, field), f"{name} row {index + 1} {column}: {value!r} vs {field!r}"
