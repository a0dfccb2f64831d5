"""The same generated file runs through Spark Connect (SPARK_REMOTE): no master, JVM options or py4j; relative
paths mean the client's working directory; the counts come back by name from Connect's metric shapes."""

from __future__ import annotations

import os
import subprocess
import sys

import pyspark
import pytest

from compiler.spark_versions import CONNECT_BATCH_COUNTS_SINCE, line_key, line_of
from jobs import BATCH, STREAMING, count_lines, job_args, reference, rows_written, run, written

pytestmark = [pytest.mark.spark, pytest.mark.connect]


@pytest.mark.parametrize("job", [BATCH, STREAMING], ids=["batch", "streaming"])
def test_the_job_runs_through_spark_connect(spark_connect, spark, tmp_path, job):
    address, _ = spark_connect
    client = tmp_path / "client"
    client.mkdir()
    done = run([sys.executable, str(job), *job_args(job, "out", "checkpoint")], cwd=client, SPARK_REMOTE=address)
    expected = reference(spark, job, tmp_path)
    assert expected and written(spark, client / "out") == expected  # where the client meant, not the server's cwd
    if job == BATCH and line_key(line_of(pyspark.__version__)) < line_key(CONNECT_BATCH_COUNTS_SINCE):
        # Connect before 4.1 does not return the counts: said on stderr, and the written run exits 0 all the same
        assert f"[{job.stem}] batch: counts unavailable (" in done.stderr, done.stderr
        return
    lines = count_lines(done.stdout, job)
    assert lines and rows_written(lines) == len(expected), done.stdout + done.stderr


def test_a_source_that_cannot_load_fails_in_one_line_through_connect(spark_connect, tmp_path):
    address, _ = spark_connect
    done = subprocess.run(
        [sys.executable, str(BATCH), "--source-path", str(tmp_path / "missing"), "--sink-path", str(tmp_path / "out")],
        env={**os.environ, "SPARK_REMOTE": address}, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith("orders_enriched: failed: ")
    assert "Traceback" not in done.stderr
