"""A job that needs no Spark connector jars."""

from __future__ import annotations

from pyspark.sql import SparkSession


def spark_packages(spark_version: str, release: str | None = None) -> list[str]:
    return []


def check_connectors(spark: SparkSession) -> None:
    pass
