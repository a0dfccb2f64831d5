"""`pipec explain PATH`: the record shape after the source and after each step, and the sink's columns."""

from __future__ import annotations

import re

import pytest
import yaml
from cli_harness import EXAMPLE, ROOT, VALID, rel, run_cli

SHAPES = VALID / "explain_shapes.yaml"


def explain(path, capsys, monkeypatch) -> str:
    monkeypatch.chdir(ROOT)
    run = run_cli(["explain", rel(path)], capsys)
    assert run.code == 0, run.text
    return run.out


def sections(text: str) -> list[list[str]]:
    """Blank-line separated blocks of the output."""
    return [block.splitlines() for block in text.strip().split("\n\n")]


def step_aliases(path) -> list[str]:
    return [step["name"] for step in yaml.safe_load(path.read_text(encoding="utf-8")).get("transforms") or []]


@pytest.mark.parametrize("path", [EXAMPLE, SHAPES], ids=lambda p: p.stem)
def test_explain_names_every_step_in_order(path, capsys, monkeypatch):
    out = explain(path, capsys, monkeypatch)
    positions = [out.find(f"'{alias}'") for alias in step_aliases(path)]
    assert all(p >= 0 for p in positions), positions
    assert positions == sorted(positions)


def test_explain_shows_key_and_value_after_the_source_and_each_step(capsys, monkeypatch):
    blocks = sections(explain(SHAPES, capsys, monkeypatch))
    # header, source, three steps, sink
    shapes = blocks[1:-1]
    assert len(shapes) == 1 + len(step_aliases(SHAPES))
    for block in shapes:
        assert any(re.match(r"\s+key:\s", line) for line in block), block
        assert any(re.match(r"\s+value:\s", line) for line in block), block


def test_explain_tracks_fields_through_the_chain(capsys, monkeypatch):
    blocks = sections(explain(SHAPES, capsys, monkeypatch))
    source, keep, add, tidy = ("\n".join(b) for b in blocks[1:5])
    assert "line 5" in source and "STRUCT<id BIGINT>" in source  # key from key.fields
    assert "'keep_test_topics'" in keep and "line 18" in keep and "not is_test" in keep
    assert "kafka_topic STRING" in add and "kafka_offset BIGINT" in add
    assert "'tidy'" in tidy and "line 26" in tidy
    assert "customer_name STRING" in tidy and "source_file STRING" in tidy
    assert "note" not in tidy.split("value:")[1].split("\n")[0]
    assert "virtual" in add and "virtual" not in tidy  # the renamed virtual column is an ordinary field now


def test_explain_names_the_sink_columns(capsys, monkeypatch):
    last = sections(explain(SHAPES, capsys, monkeypatch))[-1]
    assert "line 31" in last[0]
    assert last[0].endswith(": id, customer_name, card, source_file, kafka_topic, kafka_offset")


def test_explain_of_the_example_drops_the_virtual_column_at_the_sink(capsys, monkeypatch):
    last = sections(explain(EXAMPLE, capsys, monkeypatch))[-1][0]
    assert last.endswith(": order_id, customer, total, kafka_topic, origin")


def test_explain_shows_headers_after_each_step(capsys, monkeypatch):
    for block in sections(explain(SHAPES, capsys, monkeypatch))[1:-1]:
        assert any(re.match(r"\s+headers:\s", line) for line in block), block


def test_explain_of_an_invalid_file_exits_2_and_prints_no_shapes(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    run = run_cli(["explain", rel(ROOT / "tests/cli/fixtures/errors/predicate_not_defined.yaml")], capsys)
    assert run.code == 2
    assert "value:" not in run.out


def test_explain_names_the_header_keys_the_chain_adds_and_drops(capsys, monkeypatch):
    blocks = sections(explain(VALID / "explain_headers.yaml", capsys, monkeypatch))
    header_lines = [[line.strip() for line in block if "by the chain" in line] for block in blocks[1:-1]]
    assert header_lines == [
        [],  # after the source: only the headers the records bring
        ["added by the chain: source"],
        ["added by the chain: source, order-id, region"],
        ["added by the chain: order-id, region", "dropped by the chain: source, debug"],
    ]


# Every example and every connector's pipelines: explain must never crash on a valid pipeline.
EXPLAINED = sorted(
    [*(ROOT / "pipelines").glob("*.yaml"), *(ROOT / "tests").glob("*/pipelines/**/*.yaml"), *VALID.glob("*.yaml")]
)


def connectors(path) -> tuple[str, str]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data["source"]["connector"], data["sink"]["connector"]


def test_explained_pipelines_cover_every_connector():
    from pipec.connectors import SINKS, SOURCES

    used = [connectors(p) for p in EXPLAINED]
    assert set(SOURCES) <= {source for source, _ in used}, "a source connector no explained pipeline uses"
    assert set(SINKS) <= {sink for _, sink in used}, "a sink connector no explained pipeline uses"


@pytest.mark.parametrize("path", EXPLAINED, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_explain_of_every_valid_pipeline_names_the_sink_columns(path, capsys, monkeypatch):
    last = sections(explain(path, capsys, monkeypatch))[-1]
    _, sink = connectors(path)
    assert re.fullmatch(rf"sink \({re.escape(sink)}, line \d+\) writes columns: \S.*", last[0]), last
    assert last[-1].startswith("  dead letters: "), last
    if sink in ("delta", "iceberg"):  # a table sink's section also names the table, its key and order, the types
        assert any(line.strip().startswith("table:") for line in last) and any(
            line.strip().startswith("types:") for line in last
        ), last


def test_explain_of_an_upsert_kafka_sink_names_the_kafka_record_it_writes(capsys, monkeypatch):
    """Flink's upsert-kafka writes a Kafka record: the primary key as key, the row (or a tombstone) as value; never a
    partition of its own."""
    last = sections(explain(ROOT / "tests/connectors/pipelines/upsert_sink.yaml", capsys, monkeypatch))[-1][0]
    assert last.endswith("writes columns: key, value, topic, headers"), last


def test_explain_shows_the_sink_encodings_partitioning_and_dead_letters(capsys, monkeypatch):
    """What a consumer of the sink reads: the key and value formats and types, the topic, how records are
    partitioned, and where bad records go."""
    sink = dict(
        line.strip().split(":", 1)
        for line in sections(explain(ROOT / "pipelines/payments_cleared.yaml", capsys, monkeypatch))[-1][1:]
    )
    assert sink["topic"].strip() == "${env:PAYMENTS_OUT_TOPIC:-payments-cleared}"
    assert sink["key"].strip() == "json STRUCT<account STRING>"
    assert sink["value"].strip().startswith("json STRUCT<payment_id STRING, account STRING, amount DECIMAL(12, 2)")
    assert sink["partitioning"].strip() == "the producer's, from the serialized key"
    assert (
        sink["dead letters"]
        .strip()
        .startswith("topic ${env:PAYMENTS_DLQ_TOPIC:-payments-dlq}, with __connect.errors.* context headers")
    )
    files = sections(explain(ROOT / "pipelines/sensor_readings.yaml", capsys, monkeypatch))[-1]
    assert "  partitioning: folders by site" in files
    assert "  dead letters: none: the job fails on a bad record (errors.tolerance: none)" in files
    stamps = "\n".join(
        sections(explain(ROOT / "tests/connectors/pipelines/json_timestamp_formats.yaml", capsys, monkeypatch))[-1]
    )
    assert "(timestamp-format sql)" in stamps and "(timestamp-format epoch-millis)" in stamps


def test_explain_format_json_is_one_document(capsys, monkeypatch):
    """stdout is exactly one JSON document: the diagnostics and the pipelines (with the same facts as the text)."""
    import json

    monkeypatch.chdir(ROOT)
    run = run_cli(["explain", "pipelines/payments_cleared.yaml", "--format", "json"], capsys)
    assert run.code == 0
    doc = json.loads(run.out)
    assert doc["diagnostics"] == []
    (p,) = doc["pipelines"]
    assert [s["name"] for s in p["steps"]] == step_aliases(ROOT / "pipelines/payments_cleared.yaml")
    assert p["sink"]["key"] == {"format": "json", "type": "STRUCT<account STRING>", "timestamp-format": "iso-8601"}
    assert p["sink"]["dead_letters"]["context_headers"] is True
    bad = run_cli(
        ["explain", rel(ROOT / "tests/cli/fixtures/errors/predicate_not_defined.yaml"), "--format", "json"], capsys
    )
    assert bad.code == 2
    doc = json.loads(bad.out)
    assert doc["pipelines"] == [] and doc["diagnostics"] and doc["diagnostics"][0]["severity"] == "error"
