"""Record tests of the transform library: every pipeline under tests/transforms/pipelines/ (and pipelines/)
runs its `tests:` through its generated job on the shared Spark session, and its physical plan stays native.

Adding a case is adding a YAML file (or a test case inside one).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.spark
HERE = Path(__file__).resolve().parent
# tests/transforms/pipelines, tests/connectors/pipelines; the table pipelines (tests/tables/pipelines) run in
# tests/tables, beside the independent readers of their tables and on the Spark lines their formats support
FILES = sorted(p for p in HERE.parent.glob("*/pipelines/**/*.yaml") if p.parent.parent.name != "tables")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_pipeline_records(path: Path, check_pipeline_records):
    check_pipeline_records(path)
