"""The runtime modules (compiler/runtime/) as code, without Spark: observed metrics by name whatever their shape,
counts that never fail a committed write, paths under Spark Connect and the hand-over of a micro-batch's counts.
Each module is imported as it is; a test sets the job's names (`job_names`) a part reads where it matters."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pipec.emit import runtime_text
from pipec.runtime import arguments, batch_counts, counts, handover, streaming
from pyspark.sql import Row

ROOT = Path(__file__).resolve().parents[2]


class Runtime:
    """The runtime's names as a job holds them in one namespace, over the modules that define them."""

    Counts = counts.Counts
    by_name = staticmethod(streaming.by_name)
    batch_lines = staticmethod(batch_counts.batch_lines)
    say = staticmethod(counts.say)
    location = staticmethod(arguments.location)
    parse_args = staticmethod(arguments.parse_args)
    report_progress = staticmethod(streaming.report_progress)

    @staticmethod
    def report_micro_batch(counted, batch, batch_id):
        handover.report_micro_batch(counted, batch, batch_id)

    @property
    def _RUN(self):
        return handover._RUN


@pytest.fixture
def job(monkeypatch):
    """The runtime with the job's name `orders_enriched`, wired as a micro-batch job (handover's print_handed)."""
    for module in (counts, handover, streaming, arguments):
        if hasattr(module, "PIPELINE"):
            monkeypatch.setattr(module, "PIPELINE", "orders_enriched")
    monkeypatch.setattr(streaming, "print_handed", handover.print_handed)
    return Runtime()


@pytest.fixture
def started(monkeypatch):
    """Sets where the job was started, and whether through Spark Connect, in every part that reads it."""

    def started_at(value):
        for module in (arguments, handover, streaming):
            monkeypatch.setattr(module, "_CLIENT", value)

    return started_at


SCHEMA = {
    "type": "struct",
    "fields": [
        {"name": "rows", "type": "long", "nullable": False, "metadata": {}},
        {"name": "dead", "type": "long", "nullable": False, "metadata": {}},
    ],
}


@pytest.mark.parametrize(
    "metric",
    [
        Row(rows=3, dead=1),  # Spark: a streaming progress's observed metric
        {"rows": 3, "dead": 1},  # Spark Connect 3.5: a streaming progress's, parsed from its JSON
        Row(values=[3, 1], schema=SCHEMA),  # Spark Connect 4.x: a streaming progress's observed metric
    ],
    ids=["row", "dict", "connect-progress"],
)
def test_metrics_by_name_whatever_their_shape(job, metric):
    assert job.by_name(metric) == {"rows": 3, "dead": 1}


class Unavailable:
    """An observation whose metrics never arrived."""

    @property
    def get(self):
        raise RuntimeError("[NO_METRICS] the query reported no observed metrics")


def test_counts_that_cannot_be_read_do_not_fail_the_run(job, capsys):
    counts = job.Counts(False)
    counts.observations = {"in": Unavailable(), "out": Unavailable()}
    job.say(job.batch_lines(counts, "batch"))  # no exception: the write it reports on is committed already
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == (
        "[orders_enriched] batch: counts unavailable (RuntimeError: [NO_METRICS] the query reported no observed metrics)\n"
    )


def test_paths_are_made_absolute_on_the_client_only_under_spark_connect(job, started, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    started((str(tmp_path), False))  # started without SPARK_REMOTE
    assert job.location("out/x") == "out/x"  # classic: relative to the cluster's default file system
    started((str(tmp_path), True))  # started with SPARK_REMOTE set
    assert job.location("out/x") == os.path.join(str(tmp_path), "out/x")
    for kept in ("/data/x", "s3a://bucket/x", "hdfs:///x", "file:/x", None):
        assert job.location(kept) == kept
    monkeypatch.setattr(arguments, "OPTIONS", runtime_text.OPTIONS)
    args = job.parse_args(["--sink-path", "out", "--checkpoint", "ck"])
    assert (args.sink_path, args.checkpoint) == (str(tmp_path / "out"), str(tmp_path / "ck"))


def test_a_path_resolves_against_the_client_even_where_the_server_runs_the_function(
    job, started, monkeypatch, tmp_path
):
    """A micro-batch function Spark Connect runs in its server's Python worker, without SPARK_REMOTE and in another
    working directory, still resolves the YAML's relative paths against the client's directory it carries."""
    client, server = tmp_path / "client", tmp_path / "server"
    server.mkdir()
    started((str(client), True))
    monkeypatch.delenv("SPARK_REMOTE", raising=False)
    monkeypatch.chdir(server)
    assert job.location("out/x") == str(client / "out" / "x")


class Observed:
    """An observation whose metrics arrived."""

    def __init__(self, **metrics):
        self.get = metrics


class Server:
    """What the handover uses of a Spark Connect server's sessions: the global temporary views all of them see."""

    def __init__(self):
        self.views: dict[str, list[Row]] = {}


class Session:
    """A session of the server (the client's, or the clone a micro-batch function runs on)."""

    def __init__(self, server: Server):
        self.server = server
        self.conf = {"spark.sql.globalTempDatabase": "global_temp"}  # RuntimeConfig.get(key, default) as dict.get
        self.catalog = self

    def createDataFrame(self, rows, schema):
        assert schema == "stream STRING, line STRING"
        return LocalFrame(self.server, [Row(stream=stream, line=line) for stream, line in rows])

    def tableExists(self, name):
        database, view = name.split(".")
        return database == "global_temp" and view in self.server.views

    def table(self, name):
        database, view = name.split(".")
        assert database == "global_temp"
        return LocalFrame(self.server, self.server.views[view])

    def dropGlobalTempView(self, name):
        return self.server.views.pop(name, None) is not None


class LocalFrame:
    def __init__(self, server: Server, rows: list[Row]):
        self.server, self.rows = server, rows

    def createOrReplaceGlobalTempView(self, name):
        self.server.views[name] = self.rows

    def collect(self):
        return self.rows


class Untouchable:
    """A session the embedded job must not use to hand counts over."""

    def __getattr__(self, name):
        raise AssertionError(f"the embedded job used the session's {name}")


class MicroBatch:
    """What a micro-batch function's counts need of its DataFrame: its session."""

    def __init__(self, session):
        self.sparkSession = session


def counted(job):
    counts = job.Counts(False)
    counts.observations = {"in": Observed(rows=5), "out": Observed(rows=4, dead=1)}
    return counts


LINE = "[orders_enriched] micro-batch 7: in=5 written=3 filtered=1 superseded=0 dead_lettered=1"


def test_under_spark_connect_the_micro_batch_line_is_handed_to_the_client_and_printed_with_its_progress(
    job, started, monkeypatch, capsys
):
    """The function runs in the server's Python worker (whose output the client never sees), on the client's session
    or a clone of it: it leaves its line in a global temporary view of this run; the client prints it once, with the
    batch's progress (a progress without the job's observed metrics), and drops the view."""
    started(("/client", True))
    server = Server()
    job.report_micro_batch(counted(job), MicroBatch(Session(server)), 7)
    assert capsys.readouterr().out == ""
    assert list(server.views) == [f"pipec_counts_{job._RUN}_7"]
    client = Session(server)
    progress = {"batchId": 7, "observedMetrics": {}}  # Spark Connect 3.5's shape; 4.x: an object, same fields
    assert job.report_progress(progress, 6, client) == 7
    assert capsys.readouterr().out == LINE + "\n"
    assert server.views == {}
    assert job.report_progress(progress, 7, client) == 7  # a batch reported once
    # a progress whose batch handed nothing over (no data yet): nothing printed, not counted as reported
    assert job.report_progress({"batchId": 8, "observedMetrics": {}}, 7, client) == 7
    assert capsys.readouterr().out == ""


def test_log_enables_dead_letter_line_is_handed_over_with_the_counts_and_reaches_the_clients_stderr(
    job, started, monkeypatch, capsys
):
    """log.enable: the batch's first dead letter (gathered with the counts) goes to stderr after the counts line,
    under Spark Connect through the same view, so the client says it rather than the server's log."""
    started(("/client", True))
    server = Server()
    counts = job.Counts(False)
    counts.observations = {"in": Observed(rows=5), "out": Observed(rows=4, dead=2, first="Error converting value")}
    job.report_micro_batch(counts, MicroBatch(Session(server)), 7)
    assert capsys.readouterr().err == ""  # nothing in the server's log
    assert job.report_progress({"batchId": 7, "observedMetrics": {}}, 6, Session(server)) == 7
    out = capsys.readouterr()
    assert out.out == "[orders_enriched] micro-batch 7: in=5 written=2 filtered=1 superseded=0 dead_lettered=2\n"
    assert out.err == "[orders_enriched] dead letter: Error converting value (and 1 more in this batch)\n"
    assert server.views == {}


def test_counts_a_micro_batch_could_not_read_reach_the_clients_stderr(job, started, monkeypatch, capsys):
    started(("/client", True))
    server = Server()
    counts = job.Counts(False)
    counts.observations = {"in": Unavailable(), "out": Unavailable()}
    job.report_micro_batch(counts, MicroBatch(Session(server)), 2)
    assert job.report_progress({"batchId": 2, "observedMetrics": {}}, -1, Session(server)) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert (
        out.err == "[orders_enriched] micro-batch 2: counts unavailable (RuntimeError: [NO_METRICS] the query "
        "reported no observed metrics)\n"
    )
    assert server.views == {}


def test_embedded_the_micro_batch_function_prints_its_line_itself(job, started, monkeypatch, capsys):
    started(("/client", False))
    job.report_micro_batch(counted(job), MicroBatch(Untouchable()), 7)
    assert capsys.readouterr().out == LINE + "\n"
    assert job.report_progress({"batchId": 7, "observedMetrics": {}}, 6, Untouchable()) == 6
    assert capsys.readouterr().out == ""


class Refusing(Session):
    """A session on which the view cannot be made."""

    def createDataFrame(self, rows, schema):
        raise RuntimeError("[INTERNAL_ERROR] no")


def test_a_line_the_function_cannot_hand_over_never_fails_the_micro_batch(job, started, monkeypatch, capsys):
    started(("/client", True))
    server = Server()
    job.report_micro_batch(counted(job), MicroBatch(Refusing(server)), 3)  # no exception: the batch still commits
    assert (
        capsys.readouterr().err == "[orders_enriched] micro-batch 3: counts unavailable (RuntimeError: "
        "[INTERNAL_ERROR] no)\n"
    )  # in the server's log
    assert server.views == {}
