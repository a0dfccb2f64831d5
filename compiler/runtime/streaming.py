"""A streaming job's run: the query until it ends, each micro-batch's counts printed as Spark commits it."""

from __future__ import annotations

import argparse
import os
import threading

import pyspark
from pyspark.sql import SparkSession
from pyspark.sql.streaming import StreamingQueryListener

from .counts import Counts, say, unavailable
from .job_names import read_source
from .no_handover import print_handed  # or .handover's (by the job)
from .paths import _CLIENT
from .progress_metrics import by_name
from .straight_through import start  # or .micro_batches' (by the job)


def progress_lines(batch: int, metrics: dict, read: int | None = None) -> list[tuple[str, bool]]:
    """A micro-batch's lines (Counts.lines) from its progress's observed metrics, or why there are none; `read`, its
    numInputRows, is the `in` of a job that observes none (its decode yields one row per record)."""
    if read is not None:
        metrics = {"pipec_in": {"rows": read}, **metrics}
    label = f"micro-batch {batch}"
    try:
        observed = {p[6:]: by_name(m) for p, m in metrics.items() if p.startswith("pipec_")}
        return Counts.lines(label, observed)
    except Exception as exc:
        return [(unavailable(label, exc), False)]


def report_progress(progress, after: int = -1, session: SparkSession | None = None) -> int:
    """Print the counts of a micro-batch's progress newer than batch `after` (from its observed metrics or, Spark
    Connect, the lines its micro-batch function handed over); returns the newest batch reported."""
    if isinstance(progress, dict):  # Spark Connect 3.5: the progress as parsed JSON
        batch, metrics = progress["batchId"], progress.get("observedMetrics") or {}
        read = progress.get("numInputRows")
    else:
        batch, metrics, read = progress.batchId, progress.observedMetrics, progress.numInputRows
    if batch <= after:
        return after
    if "pipec_out" in metrics:  # and `in`, observed after decoding or the progress's numInputRows
        say(progress_lines(batch, metrics, read))
        return batch
    handed = session is not None and _CLIENT[1] and print_handed(session, batch)
    return batch if handed else after


class CountLines(StreamingQueryListener):
    """Prints each micro-batch's counts as Spark reports its progress, once the batch is committed: a killed run
    has printed the line of every batch it committed (but one in its last milliseconds, maybe)."""

    def __init__(self, session: SparkSession) -> None:
        self.session = session
        self.terminated = threading.Event()

    def onQueryStarted(self, event) -> None:
        pass

    def onQueryProgress(self, event) -> None:
        report_progress(event.progress, session=self.session)

    def onQueryTerminated(self, event) -> None:
        self.terminated.set()


def run(spark: SparkSession, args: argparse.Namespace) -> None:
    """The query until it ends, with its counts: from a listener, or (Spark Connect before 4.0, which runs a
    listener on its server) from the query's progress every few seconds."""
    connect_3 = "SPARK_REMOTE" in os.environ and int(pyspark.__version__.split(".")[0]) < 4
    lines = None if connect_3 else CountLines(spark)
    if lines:
        spark.streams.addListener(lines)
    query = start(read_source(spark, args), args, Counts(True))
    reported = -1

    def poll() -> None:
        nonlocal reported
        for progress in query.recentProgress:
            reported = report_progress(progress, reported, spark)

    try:
        while not query.awaitTermination(5):
            if lines is None:
                poll()
    finally:
        if lines is None:
            poll()
        else:
            lines.terminated.wait(10)
            spark.streams.removeListener(lines)
