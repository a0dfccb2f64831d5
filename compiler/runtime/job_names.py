"""The names a job's pipeline part defines (its settings and functions) that the runtime parts read.

Placeholders, so that each part imports, lints and unit-tests as a module; a test sets what it needs. Never pasted
into a job: there the pipeline part above the runtime defines them.
"""

from __future__ import annotations

import argparse

from pyspark.sql import DataFrame, SparkSession

# the pipeline's name; mode: streaming; --trigger's default; the sink's checkpoint as configured (${env:...} resolved
# when used); the Spark connectors the job needs (artifact names, no Scala suffix); the oldest Spark line with every
# function the job calls; its session's configuration; avro-confluent payloads: url, subject and client options
PIPELINE = "pipeline"
STREAMING = False
OPTIONS: dict[str, str] = {}  # the job's own command-line options: flag -> help
TRIGGER: str | None = None
CHECKPOINT: str | None = None
SPARK_CONNECTORS: list[str] = []
SPARK_NEEDED = "3.5"
SESSION_CONF: dict[str, str] = {}
SCHEMA_REGISTRY: dict[str, dict[str, str]] = {}
# errors.tolerance: all; deadletterqueue.context.headers.enable; errors.log.enable; errors.log.include.messages
DEAD_LETTERS = False
DEAD_LETTER_CONTEXT = False
LOG_DEAD_LETTERS = False
LOG_RECORDS = False
# table formats read or written: their Spark runtimes per Spark line; their session settings (extensions, catalog)
TABLE_RUNTIMES: dict[str, str | None] = {}
TABLE_SESSION: dict[str, str] = {}
TABLE_SINK = False  # the sink is a table: the counts line names the rows inserted, updated, deleted
FILE_LINES: dict = {}  # a files source read line by line: what its reader skips


def read_source(spark: SparkSession, args: argparse.Namespace) -> DataFrame:
    raise NotImplementedError


def decode_errors(raw: DataFrame) -> DataFrame:
    raise NotImplementedError


def transform(raw: DataFrame, counts=None) -> DataFrame:
    raise NotImplementedError


def write_sink(rows: DataFrame, args: argparse.Namespace):
    raise NotImplementedError


def micro_batch(raw: DataFrame, batch_id: int, checkpoint: str, counts=None) -> DataFrame:
    raise NotImplementedError


def write_good(rows: DataFrame, args: argparse.Namespace):
    raise NotImplementedError


def write_dead_letters(dead: DataFrame, args: argparse.Namespace) -> None:
    raise NotImplementedError
