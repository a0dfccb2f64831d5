"""Where a streaming micro-batch's `in` comes from (issue 28): its progress's numInputRows where the query reads each
source record once and decode yields one row for each; an observation after decoding everywhere else."""

from __future__ import annotations

from pathlib import Path

import pytest
from pipec import ir
from pipec.emit.job import in_from_progress
from pipec.lower.record_path import lower
from pipec.project.driver import build_all
from pipec.runtime import counts, streaming
from pyspark.sql import Row

ROOT = Path(__file__).resolve().parents[2]

# each example: whether its streaming query takes `in` from numInputRows, and why not
COUNTED_IN = {
    "payments_cleared": True,  # Kafka -> Kafka, its dead letters in the sink's write
    "clicks_traced": True,  # Kafka -> files
    "clicks_bronze": True,  # Kafka -> a Delta table's append (the query's own sink)
    "customers_changelog": False,  # debezium-json: decode explodes each message into its changes
    "customers_silver": False,  # an upsert table: foreachBatch (MERGE reads the micro-batch again)
    "customer_profiles": False,  # upsert-kafka: per-key state, foreachBatch
    "customers_gold": False,  # a table's change feed
    "sensor_readings": False,  # files: a filter may reach the reader
    "orders_enriched": False,  # a batch job keeps its Observations
}


def test_the_examples_take_in_from_the_progress_only_where_their_decode_is_one_to_one():
    result = build_all([str(ROOT / "pipelines")])
    assert not result.diags.errors
    decided = {c.pipeline.name: in_from_progress(c.pipeline, lower(c)) for c in result.compiled}
    assert decided == COUNTED_IN
    job = (ROOT / "generated" / "payments_cleared.py").read_text(encoding="utf-8")
    assert '    if counts and not counts.streaming:\n        records = counts.mark(records, "in")' in job


@pytest.mark.parametrize(
    ("ops", "one"),
    [
        ((ir.SetColumns((("v", ir.Func("from_json", (ir.Col("value"),))),)),), True),
        ((ir.Where(ir.IsNull(ir.Col("value"))),), False),
        ((ir.SetColumns((("c", ir.Func("explode_outer", (ir.Col("changes"),))),)),), False),
        (
            (ir.Select((("c", ir.If(ir.IsNull(ir.Col("a")), ir.Func("inline", (ir.Col("b"),)), ir.Null("STRING"))),)),),
            False,
        ),
    ],
    ids=["parse", "where", "explode", "nested-generator"],
)
def test_one_row_per_row_sees_filters_and_generators_anywhere(ops, one):
    assert ir.one_row_per_row(ir.Block("decode", ops)) is one


@pytest.fixture
def named(monkeypatch):
    for module in (counts, streaming):
        if hasattr(module, "PIPELINE"):
            monkeypatch.setattr(module, "PIPELINE", "payments_cleared")


def test_a_progress_without_an_in_observation_counts_its_num_input_rows(named, capsys):
    out = Row(rows=9, dead=3, first=None)
    assert (
        streaming.report_progress({"batchId": 4, "numInputRows": 12, "observedMetrics": {"pipec_out": out}}, -1, None)
        == 4
    )
    line = "[payments_cleared] micro-batch 4: in=12 written=6 filtered=3 superseded=0 dead_lettered=3\n"
    assert capsys.readouterr().out == line
    # a job that observes `in` after decoding: its observation, whatever numInputRows says
    observed = {"pipec_in": Row(rows=10), "pipec_out": out}
    assert streaming.report_progress({"batchId": 5, "numInputRows": 12, "observedMetrics": observed}, -1, None) == 5
    assert capsys.readouterr().out == line.replace("4: in=12", "5: in=10").replace("filtered=3", "filtered=1")
