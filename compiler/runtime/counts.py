"""The job's counts: rows in, written, filtered, superseded and dead-lettered, from Spark's observed metrics."""

from __future__ import annotations

import sys

from pyspark.sql import Column, DataFrame, Observation
from pyspark.sql import functions as F

from .failures import failure
from .job_names import PIPELINE


class Counts:
    """One line per micro-batch, or per batch run: in = written + filtered + superseded + dead_lettered."""

    POINTS = ("in", "out")  # after decoding; at the sink (and an upsert sink's `fates`)

    def __init__(self, streaming: bool):
        self.streaming = streaming
        self.observations: dict[str, Observation] = {}

    def mark(self, records: DataFrame, point: str, *metrics: Column) -> DataFrame:
        """The records, observed at `point`: how many, and `metrics`."""
        metrics = (F.count(F.lit(1)).alias("rows"), *metrics)
        if self.streaming:
            return records.observe(f"pipec_{point}", *metrics)
        self.observations[point] = Observation(f"pipec_{point}")
        return records.observe(self.observations[point], *metrics)

    @staticmethod
    def lines(label: str, metrics: dict[str, dict]) -> list[tuple[str, bool]]:
        """The counts line (True: stdout), and log.enable's first dead letter (False: stderr)."""
        rows_in, out = metrics["in"]["rows"], metrics["out"]["rows"]
        fates = metrics.get("fates", {})
        dead, first = metrics["out"].get("dead", 0), metrics["out"].get("first")
        superseded, dropped = fates.get("superseded", 0), fates.get("filtered", 0)
        written = out - dead - superseded - dropped
        line = (
            f"[{PIPELINE}] {label}: in={rows_in} written={written} filtered={rows_in - out + dropped} "
            f"superseded={superseded} dead_lettered={dead}"
        )
        if "table" in metrics:  # a table sink: the rows as the table took them (appends insert)
            table = {"inserted": written, "updated": 0, "deleted": 0, **metrics["table"]}
            line += f" inserted={table['inserted']} updated={table['updated']} deleted={table['deleted']}"
        if first is None:
            return [(line, True)]
        also = f" (and {dead - 1} more in this batch)" if dead > 1 else ""
        return [(line, True), (f"[{PIPELINE}] dead letter: {first}{also}", False)]


def unavailable(label: str, exc: BaseException) -> str:
    return f"[{PIPELINE}] {label}: counts unavailable ({type(exc).__name__}: {failure(exc)})"


def say(lines: list[tuple[str, bool]]) -> None:
    """Counts lines on stdout (True); why there are none, and logged dead letters, on stderr (False)."""
    for line, counted in lines:
        print(line, file=sys.stdout if counted else sys.stderr, flush=True)
