"""The job's counts: rows in, written, filtered, superseded and dead-lettered, from Spark's observed metrics."""

from __future__ import annotations

import sys

from pyspark.sql import Column, DataFrame, Observation
from pyspark.sql import functions as F

from .failures import failure
from .job_names import PIPELINE, TABLE_SINK


class Counts:
    """One line per micro-batch, or per batch run: in = written + filtered + superseded + dead_lettered."""

    def __init__(self, streaming: bool):
        self.streaming, self.observations = streaming, {}

    def mark(self, records: DataFrame, point: str, *metrics: Column) -> DataFrame:
        """The records observed at `point` (in: after decoding; out: at the sink): how many, and `metrics`."""
        name = f"pipec_{point}"
        if not self.streaming:
            name = self.observations[point] = Observation(name)
        return records.observe(name, F.count(F.lit(1)).alias("rows"), *metrics)

    @staticmethod
    def lines(label: str, metrics: dict[str, dict]) -> list[tuple[str, bool]]:
        """The counts line (True: stdout), and log.enable's first dead letter (False: stderr)."""
        rows_in, out, fates = metrics["in"]["rows"], metrics["out"], metrics.get("fates", {})
        dead, superseded = out.get("dead", 0), fates.get("superseded", 0)
        dropped = fates.get("filtered", 0)  # by the sink (an upsert's reduction)
        written = out["rows"] - dead - superseded - dropped
        line = (
            f"[{PIPELINE}] {label}: in={rows_in} written={written} filtered={rows_in - out['rows'] + dropped} "
            f"superseded={superseded} dead_lettered={dead}"
        )
        # a table sink: the rows as the table took them (a MERGE's own counts; an append inserts every written row)
        if TABLE_SINK:
            table = {"inserted": written, "updated": 0, "deleted": 0, **metrics.get("table", {})}
            line += " " + " ".join(f"{name}={count}" for name, count in table.items())
        if out.get("first") is None:
            return [(line, True)]
        also = f" (and {dead - 1} more in this batch)" if dead > 1 else ""
        return [(line, True), (f"[{PIPELINE}] dead letter: {out['first']}{also}", False)]


def unavailable(label: str, exc: BaseException) -> str:
    return f"[{PIPELINE}] {label}: counts unavailable ({type(exc).__name__}: {failure(exc)})"


def say(lines: list[tuple[str, bool]]) -> None:
    """Counts lines on stdout (True); why there are none, and logged dead letters, on stderr (False)."""
    for line, counted in lines:
        print(line, file=sys.stdout if counted else sys.stderr, flush=True)
