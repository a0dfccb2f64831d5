"""The runtime functions every generated job carries, without Spark: observed metrics by name whatever their
shape, counts that never fail a committed write, and paths under Spark Connect."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pyspark.sql import Row

from compiler.testing.runner import load_job

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def job():
    return load_job(ROOT / "generated" / "orders_enriched.py")


SCHEMA = {"type": "struct", "fields": [{"name": "rows", "type": "long", "nullable": False, "metadata": {}},
                                       {"name": "dead", "type": "long", "nullable": False, "metadata": {}}]}


@pytest.mark.parametrize(
    "metric",
    [
        Row(rows=3, dead=1),  # Spark: an Observation's value and a streaming progress's observed metric
        {"rows": 3, "dead": 1},  # Spark Connect 4.x: an Observation's value
        Row(values=[3, 1], schema=SCHEMA),  # Spark Connect 4.x: a streaming progress's observed metric
    ],
    ids=["row", "dict", "connect-progress"],
)
def test_metrics_by_name_whatever_their_shape(job, metric):
    assert job.Counts.by_name(metric) == {"rows": 3, "dead": 1}


class Unavailable:
    """An observation whose metrics never arrived."""

    @property
    def get(self):
        raise RuntimeError("[NO_METRICS] the query reported no observed metrics")


def test_counts_that_cannot_be_read_do_not_fail_the_run(job, capsys):
    counts = job.Counts(False)
    counts.observations = {"in": Unavailable(), "out": Unavailable()}
    counts.report_batch()  # no exception: the write it reports on is committed already
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == (
        "[orders_enriched] batch: counts unavailable (RuntimeError: [NO_METRICS] the query reported no observed metrics)\n"
    )


def test_paths_are_made_absolute_on_the_client_only_under_spark_connect(job, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(job, "_CLIENT", (str(tmp_path), False))  # started without SPARK_REMOTE
    assert job.location("out/x") == "out/x"  # classic: relative to the cluster's default file system
    monkeypatch.setattr(job, "_CLIENT", (str(tmp_path), True))  # started with SPARK_REMOTE set
    assert job.location("out/x") == os.path.join(str(tmp_path), "out/x")
    for kept in ("/data/x", "s3a://bucket/x", "hdfs:///x", "file:/x", None):
        assert job.location(kept) == kept
    args = job.parse_args(["--sink-path", "out", "--checkpoint", "ck"])
    assert (args.sink_path, args.checkpoint) == (str(tmp_path / "out"), str(tmp_path / "ck"))


def test_a_path_resolves_against_the_client_even_where_the_server_runs_the_function(job, monkeypatch, tmp_path):
    """A micro-batch function Spark Connect runs in its server's Python worker, without SPARK_REMOTE and in another
    working directory, still resolves the YAML's relative paths against the client's directory it carries."""
    client, server = tmp_path / "client", tmp_path / "server"
    server.mkdir()
    monkeypatch.setattr(job, "_CLIENT", (str(client), True))
    monkeypatch.delenv("SPARK_REMOTE", raising=False)
    monkeypatch.chdir(server)
    assert job.location("out/x") == str(client / "out" / "x")
