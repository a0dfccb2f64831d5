"""Table sinks on real Delta tables in temporary folders: record tests (history out of order, null keys), replayed
micro-batches that change nothing, an existing table whose columns differ, and an independent reader (delta-rs).
The compile-time rules (located errors, the Spark line check) need no Spark. One JVM for the module (the suite's);
each Spark test here runs a few micro-batches (seconds each on a quiet machine)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pipec.testing.runner import load_job

ROOT = Path(__file__).resolve().parents[2]
PIPELINES = ROOT / "tests" / "tables" / "pipelines"

UPSERT = """\
version: 1
name: accounts
mode: batch
source:
  connector: files
  path: in
  format: json
  columns:
    - {name: id, type: BIGINT}
    - {name: owner, type: STRING}
    - {name: version, type: INT}
sink:
  connector: delta
  path: lake/accounts
  apply: upsert
  primary-key: [id]
  sequence-by: version
"""


def errors(compile_text, text: str) -> list[str]:
    from pipec.diagnostics import CompileError

    with pytest.raises(CompileError) as caught:
        compile_text(text)
    return [d.render() for d in caught.value.diagnostics]


def test_key_and_sequence_columns_are_located_errors(compile_text):
    text = UPSERT.replace("primary-key: [id]", "primary-key: [idd]").replace("sequence-by: version", "sequence-by: ver")
    found = errors(compile_text, text)
    assert any(
        ":16:17: error[E563]: delta sink: primary-key column 'idd' is not in the table; columns: id, owner, version"
        in f
        for f in found
    ), found
    assert any(":17:16: error[E564]: delta sink: sequence-by column 'ver' is not in the table" in f for f in found), (
        found
    )


def test_upsert_needs_a_key_and_append_takes_none(compile_text):
    assert any(
        "E562" in f
        for f in errors(
            compile_text, UPSERT.replace("  primary-key: [id]\n", "").replace("  sequence-by: version\n", "")
        )
    )
    append = UPSERT.replace("apply: upsert", "apply: append")
    assert any(
        "E567" in f and "primary-key applies to apply: upsert and history" in f for f in errors(compile_text, append)
    )


def test_iceberg_on_a_line_without_its_runtime_is_a_compile_error(compile_text):
    text = UPSERT.replace("connector: delta\n  path: lake/accounts", "connector: iceberg\n  table: local.db.accounts")
    found = errors(compile_text, text.replace("mode: batch\n", 'mode: batch\nspark: {version: "4.2"}\n'))
    assert any(
        "E901" in f and "iceberg publishes no Spark runtime for Spark 4.2; Spark lines with one: 3.5, 4.0, 4.1" in f
        for f in found
    ), found
    compile_text(text.replace("mode: batch\n", 'mode: batch\nspark: {version: "4.1"}\n'))  # 4.1 has one


def test_a_job_names_its_table_runtime_per_line(compile_text):
    _, files = compile_text(UPSERT)
    source = files["accounts.py"]
    assert '"4.2": "io.delta:delta-spark_4.2_2.13:4.4.0"' in source
    assert "io.delta.sql.DeltaSparkSessionExtension" in source


def _job(tmp_path: Path, compile_text, text: str, name: str):
    _, files = compile_text(text)
    (tmp_path / f"{name}.py").write_text(files[f"{name}.py"], encoding="utf-8")
    return load_job(tmp_path / f"{name}.py")


def _rows(spark, table) -> list[tuple]:
    return sorted(tuple(r) for r in spark.read.table(table.ref).drop("__SEQUENCE").collect())


def _version(spark, table) -> int:
    return spark.sql(f"DESCRIBE HISTORY {table.ref}").agg({"version": "max"}).first()[0]


@pytest.mark.spark
def test_history_and_null_keys_record_tests(check_pipeline_records):
    check_pipeline_records(PIPELINES / "customers_history.yaml")


@pytest.mark.spark
def test_history_from_upsert_kafka_closes_a_version_at_its_tombstone(check_pipeline_records):
    """The default sequence of an upsert-kafka tombstone's `-D` is the tombstone's own (timestamp, partition, offset),
    not the deleted image's: the version ends when the key was deleted."""
    check_pipeline_records(PIPELINES / "accounts_history.yaml")


@pytest.mark.spark
def test_dead_letters_and_named_tables_in_table_sink_record_tests(check_pipeline_records):
    """A record a table cannot take (no primary key, no sequence, a value that does not decode) is a dead letter the
    record test compares, never a silent drop; a named Delta table starts empty in each case."""
    check_pipeline_records(PIPELINES / "accounts_dead_letters.yaml")


@pytest.mark.spark
def test_a_replayed_micro_batch_changes_nothing_and_delta_rs_reads_the_table(spark, tmp_path, compile_text):
    """A crash between the table's commit and the checkpoint's runs the micro-batch again: the upsert's sequence
    rule makes it change nothing (no new table version); an append's Delta txnAppId/txnVersion skips it."""
    import deltalake

    job = _job(tmp_path, compile_text, UPSERT, "accounts")
    args = job.parse_args(["--sink-path", str(tmp_path / "accounts"), "--checkpoint", str(tmp_path / "ck")])
    table = job.sink_table(args)
    raw = spark.createDataFrame(
        [(1, "ann", 1), (2, "bob", 1), (1, "anna", 2), (3, "cy", 5), (3, "cy-late", 4)],
        "id BIGINT, owner STRING, version INT",
    )
    records = raw.selectExpr(
        "CAST(NULL AS BINARY) AS key",
        "struct(id, owner, version) AS value",
        "'t' AS topic",
        "0 AS partition",
        "CAST(monotonically_increasing_id() AS BIGINT) AS offset",
        "TIMESTAMP'2024-01-01 00:00:00' AS timestamp",
        "0 AS timestampType",
    )
    rows = job.encode(job.chain(records))
    args.batch_id = 7
    job.write_sink(rows, args)
    assert job.SINK_COUNTS["table"] == {"inserted": 3, "updated": 0, "deleted": 0}
    assert job.SINK_COUNTS["fates"]["superseded"] == 2
    job.SINK_COUNTS.clear()
    expected = [(1, "anna", 2), (2, "bob", 1), (3, "cy", 5)]
    assert _rows(spark, table) == expected
    version = _version(spark, table)
    job.write_sink(rows, args)  # the replay
    assert _rows(spark, table) == expected
    assert _version(spark, table) == version
    assert job.SINK_COUNTS["table"] == {"inserted": 0, "updated": 0, "deleted": 0}

    # an independent reader sees the same rows
    read = deltalake.DeltaTable(str(tmp_path / "accounts")).to_pyarrow_table().to_pylist()
    assert sorted((r["id"], r["owner"], r["version"]) for r in read) == expected

    append = _job(
        tmp_path,
        compile_text,
        UPSERT.replace("name: accounts", "name: ledger").replace(
            "apply: upsert\n  primary-key: [id]\n  sequence-by: version\n", "apply: append\n"
        ),
        "ledger",
    )
    args = append.parse_args(["--sink-path", str(tmp_path / "ledger"), "--checkpoint", str(tmp_path / "ck2")])
    args.batch_id = 0
    append.write_sink(append.encode(append.chain(records)), args)
    append.write_sink(append.encode(append.chain(records)), args)  # replayed: Delta skips the same txnVersion
    assert len(_rows(spark, append.sink_table(args))) == 5


@pytest.mark.spark
def test_an_existing_table_whose_columns_differ_fails_at_start_naming_them(spark, tmp_path, compile_text):
    job = _job(tmp_path, compile_text, UPSERT, "accounts")
    path = tmp_path / "accounts"
    spark.sql(
        f"CREATE TABLE delta.`{path}` (id BIGINT, owner INT, version INT, extra STRING, __SEQUENCE STRUCT<version: INT>) USING delta"
    )
    args = job.parse_args(["--sink-path", str(path)])
    job._PREPARED.clear()
    with pytest.raises(SystemExit) as failed:
        job.sink_table(args).prepare(spark)
    message = str(failed.value)
    assert "table columns the pipeline does not write: extra" in message
    assert "columns of another type: owner (table int, pipeline string)" in message

    evolving = _job(
        tmp_path,
        compile_text,
        UPSERT.replace("sequence-by: version", "sequence-by: version\n  schema-evolution: add-columns").replace(
            "name: accounts", "name: evolving"
        ),
        "evolving",
    )
    path = tmp_path / "evolving"
    spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, version INT, __SEQUENCE STRUCT<version: INT>) USING delta")
    evolving._PREPARED.clear()
    evolving.sink_table(evolving.parse_args(["--sink-path", str(path)])).prepare(spark)
    assert spark.read.format("delta").load(str(path)).columns == ["id", "version", "__SEQUENCE", "owner"]
