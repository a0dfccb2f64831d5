"""What pipec knows about Spark versions: the supported lines, their connectors, and what needs which line.

Everything version-specific lives here. Generated jobs get the connector table as data (`job_tables`) and pick
their coordinates from the Spark they run on, so the compiled output never depends on the compiling machine.
Measured facts (docs/compatibility.md, `scripts/compat`): a connector of one patch release works with any Spark of
its minor line; the releases below are those whose connector, token provider and spark-avro all resolve from Maven
Central on this project's machines (4.0.5, 4.1.4, 4.2.1 and 4.3.0 do not).
"""

from __future__ import annotations

from dataclasses import dataclass

GROUP = "org.apache.spark"
KAFKA = "spark-sql-kafka-0-10"  # brings spark-token-provider-kafka-0-10 and kafka-clients
AVRO = "spark-avro"
CONNECT_SERVER = "spark-connect"  # the Spark Connect server: in pyspark's jars from 4.0, from Maven Central for 3.5
# The option and the environment variable that choose another connector release (a mirror without the default).
PACKAGES_VERSION_OPTION = "--spark-packages-version"
PACKAGES_VERSION_ENV = "PIPEC_SPARK_PACKAGES_VERSION"


@dataclass(frozen=True, slots=True)
class Line:
    """One Spark minor line: the Scala suffix of its PyPI build, the connector release jobs ask for (None: the
    running Spark's own version, as no release of the line resolves from Maven Central here), and the pyspark
    release `scripts/compat` tests the line with (its newest on PyPI)."""

    scala: str
    connectors: str | None
    pyspark: str
    note: str = ""
    # the table formats' Spark runtimes (SPEC 7.1) on Maven Central, or None where the format publishes none
    delta: str | None = None
    iceberg: str | None = None


# Table runtimes tried from Maven Central on this project's machines: Delta 4.4.0 for Spark 4.2 runs the default suite;
# the others resolve (pom and jar served) and scripts/compat runs them. Iceberg publishes no runtime for Spark 4.2 or
# 4.3 yet, and 1.12.0 none for 4.0 (1.11.0 does); Delta Lake has none for Spark 4.3.
LINES: dict[str, Line] = {
    "3.5": Line(
        "2.12",
        "3.5.7",
        "3.5.9",
        "3.5.8 and 3.5.9 Kafka connectors are not on Maven Central here",
        delta="io.delta:delta-spark_2.12:3.3.2",
        iceberg="org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.12.0",
    ),
    "4.0": Line(
        "2.13",
        "4.0.0",
        "4.0.5",
        "the token provider has no 4.0.1-4.0.5 here",
        delta="io.delta:delta-spark_4.0_2.13:4.4.0",
        iceberg="org.apache.iceberg:iceberg-spark-runtime-4.0_2.13:1.11.0",
    ),
    "4.1": Line(
        "2.13",
        "4.1.1",
        "4.1.4",
        "no 4.1.0 spark-avro; no 4.1.2-4.1.4 token provider or spark-avro here",
        delta="io.delta:delta-spark_4.1_2.13:4.4.0",
        iceberg="org.apache.iceberg:iceberg-spark-runtime-4.1_2.13:1.12.0",
    ),
    "4.2": Line(
        "2.13",
        "4.2.0",
        "4.2.1",
        "no 4.2.1 Kafka connector, token provider or spark-avro here",
        delta="io.delta:delta-spark_4.2_2.13:4.4.0",
    ),
    "4.3": Line("2.13", None, "4.3.0", "no 4.3 connector release resolves from Maven Central here (4.3.0: 404)"),
}
DEFAULT_LINE = "4.2"  # pyproject.toml's pyspark: the newest line whose connectors resolve here
OLDEST_LINE = "3.5"
UNKNOWN_LINE_SCALA = "2.13"  # a line newer than this table: Spark 4's Scala

# Spark Connect returns a batch job's observed metrics (its counts) from this line on. Measured: Connect 3.5 has no
# Observation.get (NOT_IMPLEMENTED); with 4.0.5 an Observation came back without its metrics (KeyError 'rows').
# Jobs still write everything and exit 0, printing "counts unavailable" (docs/compatibility.md).
CONNECT_BATCH_COUNTS_SINCE = "4.1"

# Functions and Column methods generated code calls that not every supported line has: the line that added them
# to PySpark. Every other name in render.SPARK_FUNCTIONS / COLUMN_METHODS exists in PySpark 3.5.
SINCE: dict[str, str] = {
    "is_valid_utf8": "4.0",  # Cast bytes -> string (UTF-8 check)
    "try_cast": "4.0",  # Column.try_cast: Cast string -> number, canal-json fields
}


# Features other than a function call, and the line that added them; their names are how jobs and errors say them.
FEATURES_SINCE: dict[str, str] = {
    "trigger real-time": "4.1",  # Trigger.RealTime: real-time mode (SPARK-53736)
}


def line_of(version: str) -> str:
    """'4.2.1' -> '4.2'."""
    return ".".join(version.split(".")[:2])


def line_key(line: str) -> tuple[int, ...]:
    """A line as a sortable tuple: '3.5' -> (3, 5)."""
    return tuple(int(part) for part in line.split("."))


def coordinates(spark_version: str, artifacts: tuple[str, ...] | list[str], release: str | None = None) -> list[str]:
    """Maven coordinates of `artifacts` for a Spark version: its line's Scala suffix and connector release, or
    `release` when given (PACKAGES_VERSION_OPTION). The job's own `spark_packages` does the same from its table."""
    line = LINES.get(line_of(spark_version))
    scala = line.scala if line else UNKNOWN_LINE_SCALA
    chosen = release or (line.connectors if line and line.connectors else spark_version)
    return [f"{GROUP}:{artifact}_{scala}:{chosen}" for artifact in artifacts]


def needed_line(names: set[str]) -> tuple[str, list[str]]:
    """The oldest line that has every one of `names` (functions, FEATURES_SINCE), and the names that need exactly
    that line."""
    since = {**SINCE, **FEATURES_SINCE}
    lines = [since[n] for n in names if n in since]
    if not lines:
        return OLDEST_LINE, []
    newest = max(lines, key=line_key)
    return newest, sorted(n for n in names if since.get(n) == newest)


def job_tables() -> dict[str, tuple[str, str | None]]:
    """The connector table a generated job carries: line -> (Scala suffix, connector release or None)."""
    return {name: (line.scala, line.connectors) for name, line in LINES.items()}
