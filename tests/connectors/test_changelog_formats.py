"""debezium-json and canal-json beyond what record tests can say: the exact record errors (with topic,
partition and offset, for dead-letter routing), the counts (skipped messages are rows in and filtered),
the debezium-json Kafka sink's bytes, and the compile-time rules of changelogs."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from native_plan import python_operators
from pipec.project.driver import build_all, generate_all
from pipec.testing.frames import rows_frame
from pipec.testing.kafka_rows import KAFKA_ROW_SCHEMA, kafka_rows
from pipec.testing.runner import load_job

HERE = Path(__file__).resolve().parent / "pipelines"


def job_for(path: Path, tmp_path: Path):
    result = build_all([str(path)])
    result.diags.check()
    files = generate_all(result)
    ((name, text),) = files.items()
    (tmp_path / name).write_text(text, encoding="utf-8")
    (compiled,) = result.compiled
    return compiled, load_job(tmp_path / name)


def raw_frame(spark, compiled, given: list[dict]):
    from pipec.diagnostics import Location
    from pipec.model import TestRecord

    records = [TestRecord(g, Location("t", 1, 1), {}) for g in given]
    rows = kafka_rows(compiled.pipeline.source, records)
    return rows_frame(spark, [r for _, r in rows], KAFKA_ROW_SCHEMA)


ERROR_CASES = [
    (
        "kafka_debezium.yaml",
        {"value": {"op": "x", "after": {"id": 1}}, "topic": "inventory.customers", "offset": 17},
        'value format debezium-json: unknown or missing "op" value (expected c, r, u or d); a message with schema and '
        "payload needs debezium-json.schema-include: true (topic inventory.customers, partition 0, offset 17)",
    ),
    (
        "kafka_debezium.yaml",
        {"value": {"op": "d", "before": None}, "partition": 3, "offset": 2},
        'value format debezium-json: the "before" field of a DELETE message is null (a Postgres table needs REPLICA '
        "IDENTITY FULL) (topic inventory.customers, partition 3, offset 2)",
    ),
    (
        "kafka_debezium.yaml",
        {"value": {"base64": "eyJvcCI6"}},
        "value format debezium-json: the message is not valid JSON of this format's shape (topic inventory.customers, partition 0, offset 0)",
    ),
    (
        "kafka_debezium.yaml",
        {"value": {"op": "c", "after": {"id": "not a number"}}},
        "value format debezium-json: the message is not valid JSON of this format's shape (topic inventory.customers, partition 0, offset 0)",
    ),
    (
        "kafka_canal.yaml",
        {"value": {"type": "TRUNCATE", "data": [{"id": "1"}]}, "offset": 9},
        'value format canal-json: unknown or missing "type" value (expected INSERT, INIT, UPDATE, DELETE, or a DDL message) '
        "(topic products, partition 0, offset 9)",
    ),
    (
        "kafka_canal.yaml",
        {"value": {"type": "INSERT", "data": [{"weight": "heavy"}]}},
        "value format canal-json: column 'weight' does not hold a DECIMAL(10, 2) (topic products, partition 0, offset 0)",
    ),
    (
        "kafka_canal.yaml",
        {"value": {"type": "DELETE"}},
        'value format canal-json: a DML message has no "data" field (topic products, partition 0, offset 0)',
    ),
]


@pytest.mark.spark
@pytest.mark.parametrize("file,given,message", ERROR_CASES, ids=[f"{f}-{i}" for i, (f, _, _) in enumerate(ERROR_CASES)])
def test_format_errors_are_record_errors_naming_the_record(file, given, message, spark, tmp_path):
    compiled, job = job_for(HERE / file, tmp_path)
    with pytest.raises(Exception) as failure:
        job.transform(raw_frame(spark, compiled, [given])).collect()
    assert message in str(failure.value)


@pytest.mark.spark
def test_skipped_messages_count_as_rows_in_and_filtered(spark, tmp_path):
    compiled, job = job_for(HERE / "kafka_canal.yaml", tmp_path)
    given = [
        {"value": {"type": "INSERT", "data": [{"id": "1"}, {"id": "2"}, {"id": "3"}]}},
        {"value": {"type": "UPDATE", "data": [{"id": "1", "name": "b"}], "old": [{"name": "a"}]}},
        {"value": {"type": "CREATE", "isDdl": True, "data": None}},
        {"value": None},
        {"value": {"base64": ""}},  # an empty message: skipped as Flink does
    ]
    counts = job.Counts(streaming=False)
    rows = job.transform(raw_frame(spark, compiled, given), counts).collect()
    assert [r.op for r in rows] == ["+I", "+I", "+I", "-U", "+U"]
    seen = {p: counts.observations[p].get["rows"] for p in ("in", "out")}
    assert seen == {"in": 8, "out": 5}  # 5 changes + 3 skipped messages (filtered)
    [(line, counted)] = job.Counts.lines("batch", {p: dict(o.get) for p, o in counts.observations.items()})
    assert counted and line.endswith("batch: in=8 written=5 filtered=3 superseded=0 dead_lettered=0")


@pytest.mark.spark
def test_plans_stay_native(spark, tmp_path):
    for file in ("kafka_debezium.yaml", "kafka_canal.yaml", "kafka_debezium_schema.yaml"):
        compiled, job = job_for(HERE / file, tmp_path)
        frame = job.transform(raw_frame(spark, compiled, [{"value": None}]))
        assert python_operators(frame) == []
        assert "Generate" in frame._jdf.queryExecution().executedPlan().toString()


DEBEZIUM_SINK = """\
    version: 1
    name: cdc_to_debezium
    mode: batch
    source:
      connector: kafka
      topics: [customers]
      properties: {bootstrap.servers: "localhost:9092"}
      key: {format: json, fields: [id]}
      value: {format: canal-json}
      columns:
        - {name: id, type: BIGINT}
        - {name: name, type: STRING}
    sink:
      connector: kafka
      topic: customers_cdc
      value: {format: debezium-json}
"""


@pytest.mark.spark
def test_debezium_json_sink_writes_changes_as_flink_does(spark, tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text(textwrap.dedent(DEBEZIUM_SINK), encoding="utf-8")
    compiled, job = job_for(path, tmp_path)
    given = [
        {"key": {"id": 1}, "value": {"type": "INSERT", "data": [{"id": "1", "name": "a"}]}},
        {"key": {"id": 1}, "value": {"type": "UPDATE", "data": [{"id": "1", "name": "b"}], "old": [{"name": "a"}]}},
        {"key": {"id": 1}, "value": {"type": "DELETE", "data": [{"id": "1", "name": "b"}]}},
    ]
    rows = job.transform(raw_frame(spark, compiled, given)).collect()
    assert [json.loads(r.key) for r in rows] == [{"id": 1}] * 4
    assert [json.loads(r.value) for r in rows] == [
        {"before": None, "after": {"id": 1, "name": "a"}, "op": "c"},
        {"before": {"id": 1, "name": "a"}, "after": None, "op": "d"},
        {"before": None, "after": {"id": 1, "name": "b"}, "op": "c"},
        {"before": {"id": 1, "name": "b"}, "after": None, "op": "d"},
    ]
    assert {r.topic for r in rows} == {"customers_cdc"}


def compile_errors(tmp_path, text: str) -> list[str]:
    path = tmp_path / "p.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    result = build_all([str(path)])
    return [f"{d.code} {d.message}" for d in result.diags.errors]


def test_a_changelog_into_an_append_only_sink_is_a_compile_error(tmp_path):
    text = DEBEZIUM_SINK.replace("value: {format: debezium-json}", "value: {format: json}")
    (error,) = compile_errors(tmp_path, text)
    assert error.startswith("E540 the source yields a changelog") and "kafka sink is append-only" in error


def test_a_debezium_json_sink_also_takes_an_append_only_stream(tmp_path):
    text = DEBEZIUM_SINK.replace("value: {format: canal-json}", "value: {format: json}")
    assert compile_errors(tmp_path, text) == []
