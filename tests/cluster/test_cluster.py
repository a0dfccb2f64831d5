"""spark-submit to a standalone master and worker on loopback runs the generated jobs unchanged, with
spark-submit's master (a --master given to the job is ignored, and says so)."""

from __future__ import annotations

import sys

import pytest
from jobs import BATCH, STREAMING, count_lines, job_args, reference, rows_written, run, spark_submit, written

pytestmark = [pytest.mark.spark, pytest.mark.cluster]


@pytest.mark.parametrize("job", [BATCH, STREAMING], ids=["batch", "streaming"])
def test_spark_submit_runs_the_job_on_the_cluster(spark_cluster, spark, tmp_path, job):
    master, state = spark_cluster
    apps_before = set((state / "work").glob("app-*"))
    done = run(
        [
            spark_submit(),
            "--master",
            master,
            "--conf",
            "spark.driver.host=127.0.0.1",
            str(job),
            *job_args(job, tmp_path / "out", tmp_path / "checkpoint"),
            "--master",
            "local[1]",
        ],
        cwd=tmp_path,
        PYSPARK_PYTHON=sys.executable,
    )
    assert "--master local[1] ignored" in done.stdout  # spark-submit sends the Python driver's stderr to stdout
    # the executors ran on the worker: the run is one new application in the worker's work dir
    assert len(set((state / "work").glob("app-*")) - apps_before) == 1
    expected = reference(spark, job, tmp_path)
    assert expected and written(spark, tmp_path / "out") == expected
    lines = count_lines(done.stdout, job)
    assert lines and rows_written(lines) == len(expected), done.stdout
