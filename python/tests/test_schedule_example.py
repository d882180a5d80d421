"""python/examples/fit_schedule.py: the plan it fits, and a run of it with the binary."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("fit_schedule", ROOT / "python" / "examples" / "fit_schedule.py")
fit_schedule = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fit_schedule)

import bgbench  # noqa: E402


def test_a_device_asks_in_the_hours_it_opens() -> None:
    # Device "b" opens 3 times in hour 9 of both Mondays (3 an hour), and once in week 3,
    # which is not fitted; device "a" once at hour 30 in two weeks (0.5 an hour).
    week = 168 * 3600
    rows = [("a", 30 * 3600 + 60)]
    rows += [("b", k * week + 9 * 3600 + 600 * i) for k in range(2) for i in range(3)]
    rows += [("b", 2 * week + 50 * 3600)]
    trace = pd.DataFrame(rows, columns=["device", "timestamp"])
    plan = fit_schedule.fit_plan(trace, fit_weeks=2)
    assert list(plan.columns) == ["device", "platform", "opens_per_day", "hour_of_week", "interval"]
    assert len(plan) == 3 * 168  # two devices (0 = "a", 1 = "b") and "*"
    by = plan.set_index(["device", "hour_of_week"])["interval"]
    assert by[("1", 9)] == "20m"  # 3 opens an hour: 60 min / 3
    assert by[("0", 30)] == "120m"  # 0.5 an hour: 60 / 0.5
    assert by[("1", 50)] == "off"  # week 3 is not fitted
    assert by[("*", 9)] == "40m"  # the fleet's mean: 1.5 an hour
    assert (plan["interval"] != "off").sum() == 2 + 2


def test_the_plan_runs_against_fixed(binary: str, tmp_path: Path) -> None:
    trace = pd.read_csv(ROOT / "Datasets" / "traces" / "sample.csv")
    plan = tmp_path / "plan.csv"
    fit_schedule.fit_plan(trace, fit_weeks=1).to_csv(plan, index=False)
    report = bgbench.run(
        policy="fixed,schedule",
        set={"policies.schedule.plan": str(plan)},
        extra_args=["--opens-trace", str(ROOT / "Datasets" / "traces" / "sample.csv"), "--warmup-days", "7"],
        out=tmp_path / "run",
        binary=binary,
    )
    fleet = report.summary[report.summary["archetype"] == "all"].set_index("policy")
    assert list(fleet.index) == ["fixed", "schedule"]
    assert 0 < fleet.loc["schedule", "runs_per_day"] < fleet.loc["fixed", "requested_per_day"]
    shutil.rmtree(tmp_path / "run")
