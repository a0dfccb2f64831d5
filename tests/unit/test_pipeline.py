"""pipeline.STAGES: one file through the stages in order, each filling in the Unit, an error stopping the file."""

from __future__ import annotations

from pathlib import Path

from pipec.diagnostics import Collector
from pipec.pipeline import CHECKS, STAGES, Unit, run

ROOT = Path(__file__).resolve().parents[2]
PIPELINE = ROOT / "pipelines" / "orders_enriched.yaml"


def test_the_stages_read_as_the_flow_and_checks_stop_before_the_job():
    assert [stage.__name__ for stage in STAGES] == ["load", "validate", "resolve", "lower", "check_spark_line", "emit"]
    unit = run(Unit(PIPELINE, Collector()), CHECKS)
    assert unit.diags.errors == []
    assert unit.compiled.pipeline.name == "orders_enriched" and unit.lowered.chain
    assert unit.name_loc.line == next(
        i for i, line in enumerate(PIPELINE.read_text().splitlines(), 1) if line.startswith("name:")
    )
    assert unit.job is None


def test_every_stage_writes_the_job_generated_holds():
    unit = run(Unit(PIPELINE, Collector()))
    assert unit.job.source == (ROOT / "generated" / "orders_enriched.py").read_text(encoding="utf-8")


def test_an_error_stops_the_file_at_its_stage(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(PIPELINE.read_text(encoding="utf-8") + "surprise: 1\n", encoding="utf-8")
    unit = run(Unit(bad, Collector()))
    assert unit.document is None and unit.compiled is None and unit.lowered is None and unit.job is None
    ((code, message, file),) = [(d.code, d.message, d.loc.file) for d in unit.diags.errors]  # validate's, only
    assert (code, message) == ("E100", "unknown top-level key 'surprise'") and file.endswith("bad.yaml")
