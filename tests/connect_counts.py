"""What a Spark Connect client prints of the counts of a job's micro-batch function: its lines, once per committed
micro-batch, from Connect 4.1 on. Before 4.1 Spark Connect returns no Observation's metrics of a write (compiler/
spark_versions.py: CONNECT_BATCH_COUNTS_SINCE), in the server's Python worker too: the function's counts are
unavailable, and the client says so on stderr, once per committed micro-batch, as a batch job does. The function
hands its line to the client through a global temporary view, which the client drops once it printed the line."""

from __future__ import annotations

import os
import subprocess
import sys

import pyspark
from pipec.spark_versions import CONNECT_BATCH_COUNTS_SINCE, line_key, line_of

COUNTS_COME_BACK = line_key(line_of(pyspark.__version__)) >= line_key(CONNECT_BATCH_COUNTS_SINCE)
UNAVAILABLE = ": counts unavailable ("


def check_count_lines(done: subprocess.CompletedProcess, name: str, expected: list[str]) -> None:
    """The run printed exactly the `expected` count lines ([NAME] micro-batch N: in=...), or before Connect 4.1
    said, for each of them, that its counts are unavailable."""
    printed = [line for line in done.stdout.splitlines() if line.startswith(f"[{name}] ") and " in=" in line]
    unavailable = [line.split(UNAVAILABLE)[0] for line in done.stderr.splitlines() if UNAVAILABLE in line]
    wanted = (expected, []) if COUNTS_COME_BACK else ([], [line.split(": in=")[0] for line in expected])
    assert (printed, unavailable) == wanted, f"printed {printed}, unavailable {unavailable}\n{done.stdout}{done.stderr}"


LIST_VIEWS = """
from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
for table in spark.catalog.listTables(spark.conf.get("spark.sql.globalTempDatabase")):
    print(table.name)
"""


def handed_views(address: str) -> list[str]:
    """The views a micro-batch function handed its line over in, left on the Spark Connect server."""
    done = subprocess.run(
        [sys.executable, "-c", LIST_VIEWS],
        env={**os.environ, "SPARK_REMOTE": address},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return [name for name in done.stdout.split() if name.startswith("pipec_counts_")]
