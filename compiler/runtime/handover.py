"""A micro-batch function's counts under Spark Connect, handed from the server to the client."""

from __future__ import annotations

import os

from pyspark.sql import DataFrame, SparkSession

from .arguments import _CLIENT
from .batch_counts import batch_lines
from .counts import Counts, say, unavailable

# Spark Connect runs a micro-batch function in a Python worker of its server, whose output goes to the server's log,
# on the client's session or (from Spark 4.3) a clone of it. The function leaves its lines in a global temporary view,
# which every session of the server sees, named after the run (_RUN, taken once on the client: the function carries
# it) and the batch; the client prints the lines when that batch's progress arrives, then drops the view.
_RUN = os.urandom(8).hex()
GLOBAL_TEMP = "spark.sql.globalTempDatabase"


def handed_view(batch_id: int) -> str:
    return f"pipec_counts_{_RUN}_{batch_id}"


def report_micro_batch(counts: Counts, batch: DataFrame, batch_id: int) -> None:
    """A micro-batch function's counts, after its write: printed, or under Spark Connect left for the client, which
    prints them with the batch's progress (print_handed); failing to is said, and fails nothing."""
    lines = batch_lines(counts, f"micro-batch {batch_id}")
    if not _CLIENT[1]:
        return say(lines)
    try:
        # a local relation: the client reads the rows back in this order
        rows = [("out" if counted else "err", line) for line, counted in lines]
        handed = batch.sparkSession.createDataFrame(rows, "stream STRING, line STRING")
        handed.createOrReplaceGlobalTempView(handed_view(batch_id))
    except Exception as exc:
        say([(unavailable(f"micro-batch {batch_id}", exc), False)])


def print_handed(session: SparkSession, batch_id: int) -> bool:
    """Print the lines micro-batch `batch_id`'s function handed over, and drop them; False when there are none. A
    view the client cannot read is said on stderr: counts never fail a committed write."""
    view = handed_view(batch_id)
    try:
        qualified = f"{session.conf.get(GLOBAL_TEMP, 'global_temp')}.{view}"
        if not session.catalog.tableExists(qualified):
            return False
        rows = session.table(qualified).collect()
        session.catalog.dropGlobalTempView(view)
    except Exception as exc:
        say([(unavailable(f"micro-batch {batch_id}", exc), False)])
        return True
    say([(row.line, row.stream == "out") for row in rows])
    return True
