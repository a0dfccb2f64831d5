"""The same generated file runs through Spark Connect (SPARK_REMOTE): no master, JVM options or py4j; relative
paths mean the client's working directory; the counts come back by name from Connect's metric shapes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pyspark
import pytest
from jobs import BATCH, STREAMING, count_lines, job_args, reference, rows_written, run, written
from pipec.spark_versions import CONNECT_BATCH_COUNTS_SINCE, line_key, line_of
from pipec.testing.runner import compile_job

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
        env={**os.environ, "SPARK_REMOTE": address},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith("orders_enriched: failed: ")
    assert "Traceback" not in done.stderr


# A streaming files -> files job with dead letters: the record path runs in foreachBatch, which Spark Connect runs
# in its server's Python worker; every path is the YAML's own, relative (no --source-path, --sink-path, --checkpoint).
# Its dead letter is a line that is not JSON and its step a rename, so the job runs on every line from 3.5 (a Cast
# from a string needs Spark 4.0's try_cast).
RELATIVE_PATHS_YAML = """\
version: 1
name: relative_paths
mode: streaming
source: {connector: files, path: in, format: json, columns: [{name: id, type: STRING}, {name: amount, type: STRING}]}
transforms:
  - {name: tidy, type: ReplaceField$Value, renames: ["amount:total"]}
sink: {connector: files, path: out, format: json, checkpoint: checkpoint, trigger: available-now}
errors: {tolerance: all, deadletterqueue.path: letters}
"""


def test_a_micro_batch_job_writes_the_yamls_relative_paths_where_the_client_runs(spark_connect, spark, tmp_path):
    address, _ = spark_connect
    client = tmp_path / "client"
    (client / "in").mkdir(parents=True)
    (client / "in" / "part.json").write_text('{"id": "a", "amount": "5"}\n{"id": "c", "amount"\n')
    compile_job(client, RELATIVE_PATHS_YAML)
    done = run([sys.executable, "relative_paths.py"], cwd=client, SPARK_REMOTE=address)
    assert written(spark, client / "out") == ['{"id": "a", "total": "5"}'], done.stdout + done.stderr
    letters = [
        json.loads(line) for f in sorted((client / "letters").rglob("*.json")) for line in f.read_text().splitlines()
    ]
    assert len(letters) == 1 and "VALUE_CONVERTER" in json.dumps(letters[0]), letters
    assert (client / "checkpoint" / "commits").is_dir()
