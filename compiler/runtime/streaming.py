"""A streaming job's run: the query until it ends, each micro-batch's counts printed as Spark commits it."""

from __future__ import annotations

import argparse
import functools
import os
import threading

import pyspark
from pyspark.sql import SparkSession
from pyspark.sql.streaming import StreamingQueryListener

from .arguments import _CLIENT
from .counts import Counts, say, unavailable
from .job_names import read_source
from .no_handover import print_handed  # or .handover's (by the job)
from .straight_through import start  # or .micro_batches' (by the job)


def by_name(metric) -> dict:
    """An observed metric's values by name: a Row, a dict (Connect 3.5), a Row of values and schema (Connect 4)."""
    values = metric.asDict() if hasattr(metric, "asDict") else dict(metric)
    if set(values) == {"values", "schema"} and isinstance(values["schema"], dict):
        return {f["name"]: v for f, v in zip(values["schema"]["fields"], values["values"])}
    return values


def progress_lines(batch: int, metrics: dict, read: int | None = None) -> list[tuple[str, bool]]:
    """Counts.lines of a micro-batch's observed metrics (`in`, where not observed: `read`), or why there are none."""
    label = f"micro-batch {batch}"
    try:
        metrics = metrics if read is None else {"pipec_in": {"rows": read}, **metrics}
        observed = {p[6:]: by_name(m) for p, m in metrics.items() if p.startswith("pipec_")}
        return Counts.lines(label, observed)
    except Exception as exc:
        return [(unavailable(label, exc), False)]


def report_progress(progress, after: int, session: SparkSession) -> int:
    """Print the counts of a progress newer than batch `after` (or the lines its function handed over); the newest."""
    # Spark Connect 3.5's progress is its JSON, parsed
    get = progress.get if isinstance(progress, dict) else functools.partial(getattr, progress)
    batch, metrics = get("batchId"), get("observedMetrics") or {}
    if batch <= after:
        return after
    if "pipec_out" in metrics:  # and `in`, observed after decoding or the progress's numInputRows
        say(progress_lines(batch, metrics, get("numInputRows")))
        return batch
    return batch if _CLIENT[1] and print_handed(session, batch) else after


class CountLines(StreamingQueryListener):
    """Each micro-batch's counts as Spark commits it (a killed run has said its committed ones); Connect 3.5: polled."""

    def __init__(self, session: SparkSession) -> None:
        self.session, self.reported, self.terminated = session, -1, threading.Event()

    def onQueryStarted(self, event) -> None:
        pass

    def onQueryProgress(self, event) -> None:
        self.reported = report_progress(event.progress, self.reported, self.session)

    def onQueryTerminated(self, event) -> None:
        self.terminated.set()

    def poll(self, query) -> None:
        for progress in query.recentProgress:
            self.reported = report_progress(progress, self.reported, self.session)


def run(spark: SparkSession, args: argparse.Namespace) -> None:
    """The query until it ends, with its counts."""
    # Spark Connect 3.5 runs a listener on its server: the client polls the progress instead
    polled = "SPARK_REMOTE" in os.environ and int(pyspark.__version__.split(".")[0]) < 4
    lines = CountLines(spark)
    if not polled:
        spark.streams.addListener(lines)
    query = start(read_source(spark, args), args, Counts(True))
    try:
        while not query.awaitTermination(5):
            if polled:
                lines.poll(query)
    finally:
        if polled:
            lines.poll(query)
        else:
            lines.terminated.wait(10)
            spark.streams.removeListener(lines)
