"""Table sources on real tables: pipelines/customers_gold reads a real Delta table's change data feed through its own
`read_source` (batch, and streaming from a checkpoint across two runs) into a history table; a declared column the
table lacks or types otherwise fails at start naming it; an Iceberg changelog and the record tests of an Iceberg
changelog pipeline where the line has an Iceberg runtime (`scripts/compat --lines 4.1 --steps tables`). The
compile-time rules need no Spark."""

from __future__ import annotations

from pathlib import Path

import pyspark
import pytest
from pipec.connectors.table_formats import runtimes
from pipec.spark_versions import line_of
from pipec.testing.runner import load_job

ROOT = Path(__file__).resolve().parents[2]
GOLD = (ROOT / "pipelines" / "customers_gold.yaml").read_text(encoding="utf-8")
CHANGES = ROOT / "tests" / "tables" / "pipelines" / "orders_changes.yaml"
LINE = line_of(pyspark.__version__)
needs_iceberg = pytest.mark.skipif(
    not runtimes("iceberg").get(LINE),
    reason=f"Iceberg publishes no Spark runtime for Spark {LINE}; lines with one: "
    + ", ".join(line for line, runtime in runtimes("iceberg").items() if runtime),
)
SILVER_COLUMNS = "id BIGINT, first_name STRING, last_name STRING, email STRING, source_ts TIMESTAMP"


def _job(tmp_path: Path, compile_text, text: str, name: str):
    _, files = compile_text(text)
    (tmp_path / f"{name}.py").write_text(files[f"{name}.py"], encoding="utf-8")
    return load_job(tmp_path / f"{name}.py")


def _silver(spark, path: Path) -> dict[int, object]:
    """A Delta table with its change data feed on, changed as customers_silver changes it: two inserts (version 1),
    an update (2), a delete (3). Returns each version's commit time."""
    spark.sql(
        f"CREATE TABLE delta.`{path}` ({SILVER_COLUMNS}, __SEQUENCE BIGINT) USING delta "
        "TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')"
    )
    spark.sql(
        f"INSERT INTO delta.`{path}` VALUES (1001, 'Sally', 'Thomas', 's@acme.com', TIMESTAMP'2023-11-14 22:13:20', 1), "
        "(1002, 'George', 'Bailey', 'g@acme.com', TIMESTAMP'2023-11-14 22:13:20', 1)"
    )
    spark.sql(
        f"UPDATE delta.`{path}` SET last_name = 'Kim', source_ts = TIMESTAMP'2023-11-14 22:14:20' WHERE id = 1001"
    )
    spark.sql(f"DELETE FROM delta.`{path}` WHERE id = 1002")
    return _commits(spark, path)


def _commits(spark, path: Path) -> dict[int, object]:
    return {r["version"]: r["timestamp"] for r in spark.sql(f"DESCRIBE HISTORY delta.`{path}`").collect()}


def _history(spark, path: Path) -> list[tuple]:
    rows = spark.read.format("delta").load(str(path)).drop("__SEQUENCE").collect()
    return sorted((tuple(r) for r in rows), key=lambda r: (r[0], r[4]))


def test_a_change_feed_metadata_column_needs_the_feed_and_iceberg_reads_changes_in_batch(compile_text):
    from pipec.diagnostics import CompileError

    plain = GOLD.replace("  read-change-feed: true\n", "")
    with pytest.raises(CompileError) as caught:
        compile_text(plain)
    assert any(
        "error[E224]: metadata key 'commit-version' is a change feed's" in d.render() for d in caught.value.diagnostics
    )
    text = (
        CHANGES.read_text(encoding="utf-8")
        .replace("mode: batch", "mode: streaming")
        .replace("  envelope: true\n", "  envelope: true\n  checkpoint: ck\n")
    )
    with pytest.raises(CompileError) as caught:
        compile_text(text)
    assert [d.code for d in caught.value.diagnostics] == ["E225"]


def test_a_job_reading_and_writing_delta_names_the_runtime_once(compile_text):
    _, files = compile_text(GOLD)
    source = files["customers_gold.py"]
    assert '"4.2": "io.delta:delta-spark_4.2_2.13:4.4.0",' in source
    assert "class SourceTable" in source and "class Table" in source
    assert source.count("def quoted(") == 1  # the table_sql part, pasted once for source and sink


@pytest.mark.spark
def test_gold_reads_silvers_change_feed_into_history_in_batch(spark, tmp_path, compile_text):
    silver, gold = tmp_path / "customers", tmp_path / "customers_history"
    at = _silver(spark, silver)
    job = _job(
        tmp_path,
        compile_text,
        GOLD.replace("mode: streaming", "mode: batch").replace("  trigger: available-now\n", ""),
        "customers_gold",
    )
    args = job.parse_args(["--source-path", str(silver), "--sink-path", str(gold)])
    job._PREPARED.clear()
    job.start(job.read_source(spark, args), args, job.Counts(False))
    first, second = spark.sql("SELECT TIMESTAMP'2023-11-14 22:13:20', TIMESTAMP'2023-11-14 22:14:20'").first()
    assert _history(spark, gold) == [
        (1001, "Sally", "Thomas", first, 1, at[1], at[2]),
        (1001, "Sally", "Kim", second, 2, at[2], None),
        (1002, "George", "Bailey", first, 1, at[1], at[3]),
    ]


@pytest.mark.spark
def test_gold_streams_silvers_change_feed_from_its_checkpoint(spark, tmp_path, compile_text):
    """Two available-now runs: the second reads only the commit made after the first (the checkpoint's place in the
    change feed), closing the version it supersedes and adding nothing twice."""
    silver, gold = tmp_path / "customers", tmp_path / "customers_history"
    at = _silver(spark, silver)
    job = _job(tmp_path, compile_text, GOLD, "customers_gold")
    args = job.parse_args(
        ["--source-path", str(silver), "--sink-path", str(gold), "--checkpoint", str(tmp_path / "ck")]
    )
    job._PREPARED.clear()
    job.start(job.read_source(spark, args), args, job.Counts(True)).awaitTermination()
    assert [(r[0], r[2], r[4], r[6] is None) for r in _history(spark, gold)] == [
        (1001, "Thomas", 1, False),
        (1001, "Kim", 2, True),
        (1002, "Bailey", 1, False),
    ]

    spark.sql(f"UPDATE delta.`{silver}` SET last_name = 'Lee' WHERE id = 1001")  # version 4
    at = _commits(spark, silver)
    job.start(job.read_source(spark, args), args, job.Counts(True)).awaitTermination()
    rows = _history(spark, gold)
    assert [(r[0], r[2], r[4], r[5], r[6]) for r in rows] == [
        (1001, "Thomas", 1, at[1], at[2]),
        (1001, "Kim", 2, at[2], at[4]),
        (1001, "Lee", 4, at[4], None),
        (1002, "Bailey", 1, at[1], at[3]),
    ]


@pytest.mark.spark
def test_a_declared_column_the_table_lacks_or_types_otherwise_fails_at_start(spark, tmp_path, compile_text):
    silver = tmp_path / "customers"
    spark.sql(
        f"CREATE TABLE delta.`{silver}` (id BIGINT, first_name INT, last_name STRING, source_ts TIMESTAMP) "
        "USING delta TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')"
    )
    job = _job(tmp_path, compile_text, GOLD, "customers_gold")
    args = job.parse_args(["--source-path", str(silver), "--checkpoint", str(tmp_path / "ck")])
    with pytest.raises(SystemExit) as failed:
        job.read_source(spark, args)
    assert str(failed.value) == (
        f"customers_gold: source table {silver} differs from the declared columns: columns not in the table: email; "
        "columns of another type: first_name (table int, pipeline string) (the table has id, first_name, last_name, "
        "source_ts, _change_type, _commit_version, _commit_timestamp)"
    )


@pytest.mark.spark
@needs_iceberg
def test_an_iceberg_changelogs_record_tests(check_pipeline_records):
    """The job checks its Spark line has an Iceberg runtime before it runs, so these run where one exists."""
    check_pipeline_records(CHANGES)


@pytest.mark.spark
@needs_iceberg
def test_an_iceberg_tables_changelog_read_by_the_job(spark, tmp_path, compile_text):
    import json

    warehouse = tmp_path / "wh"
    spark = spark.newSession()  # its own catalogs: `local` here is this warehouse, whatever another test made it
    for key, value in {
        "spark.sql.catalog.local": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.local.type": "hadoop",
        "spark.sql.catalog.local.warehouse": str(warehouse),
    }.items():
        spark.conf.set(key, value)
    spark.sql("CREATE TABLE local.shop.orders (order_id BIGINT, status STRING) USING iceberg")
    spark.sql("INSERT INTO local.shop.orders VALUES (1, 'placed'), (2, 'placed')")
    spark.sql("UPDATE local.shop.orders SET status = 'paid' WHERE order_id = 1")
    spark.sql("DELETE FROM local.shop.orders WHERE order_id = 2")
    job = _job(tmp_path, compile_text, CHANGES.read_text(encoding="utf-8"), "orders_changes")
    args = job.parse_args(["--source-path", str(warehouse), "--sink-path", str(tmp_path / "out")])
    job.start(job.read_source(spark, args), args, job.Counts(False))
    lines = [json.loads(line) for f in sorted((tmp_path / "out").glob("*.json")) for line in f.read_text().splitlines()]
    assert sorted((r["snapshot"], r["op"], r["order_id"], r["status"]) for r in lines) == [
        (1, "+I", 1, "placed"),
        (1, "+I", 2, "placed"),
        (2, "+U", 1, "paid"),
        (2, "-U", 1, "placed"),
        (3, "-D", 2, "placed"),
    ]
