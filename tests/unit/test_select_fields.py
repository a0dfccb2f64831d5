"""A table sink that writes the value's fields as they are selects `value.*` (one JVM call rather than three Column
methods per field); with tolerance: all it keeps the error and the record as read, so it selects each field."""

from __future__ import annotations

from pathlib import Path

from pipec.project.driver import build_all, generate_all

ROOT = Path(__file__).resolve().parents[2]
SPREAD = 'records = records.select(F.col("value").alias("value")).select("value.*")'


def _job(tmp_path: Path, extra: str = "") -> str:
    text = (ROOT / "bench" / "chain.yaml").read_text(encoding="utf-8")
    path = tmp_path / "pipeline.yaml"
    path.write_text(text[: text.index("\nsink:")] + "\nsink: {connector: delta, path: out}\n" + extra, encoding="utf-8")
    result = build_all([str(path)])
    result.diags.check()
    ((_, source),) = generate_all(result).items()
    return source


def test_a_table_of_the_value_fields_selects_value_star(tmp_path):
    source = _job(tmp_path)
    assert SPREAD in source
    assert 'F.col("value").getField("id").alias("id")' not in source


def test_with_dead_letters_each_field_is_selected_beside_the_error(tmp_path):
    source = _job(tmp_path, "errors:\n  tolerance: all\n  deadletterqueue.topic.name: dlq\n")
    assert SPREAD not in source
    encode = source[source.index("def encode(") : source.index("# The table's columns")]
    assert 'F.col("value").getField("kafka_ts").alias("kafka_ts"),\n        "__error",\n        "__raw",' in encode
