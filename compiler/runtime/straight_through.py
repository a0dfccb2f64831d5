"""The record path in one query: source rows, transform, sink."""

from __future__ import annotations

import argparse

from pyspark.sql import DataFrame

from .counts import Counts
from .job_names import transform, write_sink


def start(raw: DataFrame, args: argparse.Namespace, counts: Counts):
    """The source rows through the record path into the sink: a streaming query, or None after a batch run."""
    return write_sink(transform(raw, counts), args)
