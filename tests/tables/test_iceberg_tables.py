"""The iceberg sink on real Iceberg tables in a filesystem (hadoop) catalog, read back by pyiceberg too. Iceberg
publishes no Spark runtime for Spark 4.2 (the default line) yet: these run where the installed line has one
(`scripts/compat --lines 4.1 --steps tables`), and are skipped, saying so, elsewhere."""

from __future__ import annotations

from pathlib import Path

import pyspark
import pytest
from pipec.connectors.table_formats import runtimes
from pipec.spark_versions import line_of
from pipec.testing.runner import load_job

PIPELINES = Path(__file__).resolve().parent / "pipelines"
LINE = line_of(pyspark.__version__)
needs_runtime = pytest.mark.skipif(
    not runtimes("iceberg").get(LINE),
    reason=f"Iceberg publishes no Spark runtime for Spark {LINE}; lines with one: "
    + ", ".join(line for line, runtime in runtimes("iceberg").items() if runtime),
)


@pytest.mark.spark
@needs_runtime
def test_iceberg_upsert_record_tests(check_pipeline_records):
    check_pipeline_records(PIPELINES / "orders_iceberg.yaml")


@pytest.mark.spark
@needs_runtime
def test_pyiceberg_reads_what_the_job_wrote(spark, tmp_path, compile_text):
    from pyiceberg.table import StaticTable

    _, files = compile_text((PIPELINES / "orders_iceberg.yaml").read_text(encoding="utf-8"))
    (tmp_path / "orders_iceberg.py").write_text(files["orders_iceberg.py"], encoding="utf-8")
    job = load_job(tmp_path / "orders_iceberg.py")
    session = spark.newSession()
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "orders.json").write_text(
        '{"order_id": 1, "status": "placed", "version": 1}\n{"order_id": 1, "status": "paid", "version": 2}\n'
        '{"order_id": 2, "status": "placed", "version": 1}\n',
        encoding="utf-8",
    )
    args = job.parse_args(["--source-path", str(tmp_path / "in"), "--sink-path", str(tmp_path / "wh")])
    job._PREPARED.clear()
    job.start(job.read_source(session, args), args, job.Counts(False))
    metadata = sorted(
        (tmp_path / "wh" / "shop" / "orders" / "metadata").glob("v*.metadata.json"),
        key=lambda p: int(p.name[1:].split(".")[0]),
    )[-1]
    rows = StaticTable.from_metadata(str(metadata)).scan().to_arrow().to_pylist()
    assert sorted((r["order_id"], r["status"], r["version"]) for r in rows) == [(1, "paid", 2), (2, "placed", 1)]
