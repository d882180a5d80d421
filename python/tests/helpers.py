"""Reading a report CSV as text, to check the DataFrames against it by hand."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Dict, List


def rows(path: Path) -> List[Dict[str, str]]:
    """A CSV's rows as dicts of the fields' text."""
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))
