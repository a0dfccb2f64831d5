"""The Spark connectors a job asks for, by the Spark line it runs on."""

from __future__ import annotations

from pyspark.sql import SparkSession

from .job_names import PIPELINE, SPARK_CONNECTORS, TABLE_RUNTIMES

# Spark line -> (Scala suffix, connector release that resolves from Maven Central; None: the Spark's own version)
SPARK_LINES = {
    "3.5": ("2.12", "3.5.7"),
    "4.0": ("2.13", "4.0.0"),
    "4.1": ("2.13", "4.1.1"),
    "4.2": ("2.13", "4.2.0"),
    "4.3": ("2.13", None),
}


def spark_packages(spark_version: str, release: str | None = None) -> list[str]:
    """The connectors' Maven coordinates for a Spark version (of `release` when given), and the table formats'."""
    line = ".".join(spark_version.split(".")[:2])
    scala, known = SPARK_LINES.get(line, ("2.13", None))
    version = release or known or spark_version
    tables = TABLE_RUNTIMES[line].split(",") if TABLE_RUNTIMES.get(line) else []
    return [f"org.apache.spark:{name}_{scala}:{version}" for name in SPARK_CONNECTORS] + tables


def check_connectors(spark: SparkSession) -> None:
    """Stop on a connector of another Spark line (4.0's Kafka fails on 4.1 mid-stream), or a table format's."""
    line = ".".join(spark.version.split(".")[:2])
    if TABLE_RUNTIMES and not TABLE_RUNTIMES.get(line):
        lines = ", ".join(name for name, coordinate in TABLE_RUNTIMES.items() if coordinate)
        raise SystemExit(
            f"{PIPELINE}: the table format publishes no Spark runtime for Spark {spark.version}; Spark lines with one: {lines}"
        )
    for coordinate in spark.conf.get("spark.jars.packages", "").replace(" ", "").split(","):
        artifact, release = [*coordinate.split(":"), "", ""][1:3]
        if artifact.rsplit("_", 1)[0] in SPARK_CONNECTORS and not release.startswith(line + "."):
            raise SystemExit(
                f"{PIPELINE}: connector {coordinate} does not match Spark {spark.version}: pass "
                f"--spark-packages-version {line}.N (or set PIPEC_SPARK_PACKAGES_VERSION), or to spark-submit "
                f"--packages {','.join(spark_packages(spark.version))}"
            )
