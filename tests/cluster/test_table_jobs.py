"""A table job (a streaming upsert into Delta Lake: foreachBatch, MERGE, the sequence rule) runs as users run it:
spark-submit to the standalone cluster, given the format's runtime and session settings as the job's --help says,
and through Spark Connect, whose server has them (scripts/spark-connect). The table is read back by the tests'
own session and must hold each key's newest change, with the job's counts."""

from __future__ import annotations

import sys
from pathlib import Path

import pyspark
import pytest
from jobs import run, spark_submit
from pipec.testing.runner import compile_job
from pipec.testing.session import table_settings

TABLE_YAML = """\
version: 1
name: accounts_stream
mode: streaming
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
  checkpoint: checkpoint
  trigger: available-now
"""
# one file, one micro-batch: per key the highest version wins, a late change (cy-late) changes nothing
CHANGES = [(1, "ann", 1), (2, "bob", 1), (1, "anna", 2), (3, "cy", 5), (3, "cy-late", 4)]
TABLE = [(1, "anna", 2), (2, "bob", 1), (3, "cy", 5)]
COUNTS = "inserted=3 updated=0 deleted=0"


def _delta() -> tuple[list[str], dict[str, str]]:
    packages, conf = table_settings(pyspark.__version__)
    if not any(p.startswith("io.delta:") for p in packages):
        pytest.skip(f"Delta Lake publishes no Spark runtime for Spark {pyspark.__version__}, or tables are off")
    return packages, conf


def _client(tmp_path: Path) -> Path:
    client = tmp_path / "client"
    (client / "in").mkdir(parents=True)
    lines = (f'{{"id": {i}, "owner": "{o}", "version": {v}}}' for i, o, v in CHANGES)
    (client / "in" / "part.json").write_text("\n".join(lines) + "\n", encoding="utf-8")
    compile_job(client, TABLE_YAML)
    return client


def _table(spark, folder: Path) -> list[tuple]:
    return sorted(tuple(r) for r in spark.read.format("delta").load(str(folder)).drop("__SEQUENCE").collect())


@pytest.mark.cluster
@pytest.mark.table
def test_spark_submit_runs_a_delta_upsert_job_on_the_cluster(spark_cluster, spark, tmp_path):
    packages, conf = _delta()
    master, state = spark_cluster
    apps_before = set((state / "work").glob("app-*"))
    client = _client(tmp_path)
    settings = [word for key, value in conf.items() for word in ("--conf", f"{key}={value}")]
    done = run(
        [
            spark_submit(),
            "--master",
            master,
            "--conf",
            "spark.driver.host=127.0.0.1",
            "--packages",
            ",".join(packages),
            *settings,
            "accounts_stream.py",
            # absolute paths: the executors run in the worker's own folder
            *("--source-path", str(client / "in"), "--sink-path", str(client / "lake" / "accounts")),
            *("--checkpoint", str(client / "checkpoint")),
        ],
        cwd=client,
        PYSPARK_PYTHON=sys.executable,
    )
    assert len(set((state / "work").glob("app-*")) - apps_before) == 1  # the executors ran on the worker
    assert _table(spark, client / "lake" / "accounts") == TABLE
    assert COUNTS in done.stdout, done.stdout


@pytest.mark.connect
@pytest.mark.table
def test_a_delta_upsert_job_runs_through_spark_connect(spark_connect, spark, tmp_path):
    _delta()
    address, _ = spark_connect
    client = _client(tmp_path)
    done = run([sys.executable, "accounts_stream.py"], cwd=client, SPARK_REMOTE=address)
    # the YAML's relative paths mean the client's folder, not the server's
    assert _table(spark, client / "lake" / "accounts") == TABLE
    assert COUNTS in done.stdout, done.stdout + done.stderr
