"""Streaming through foreachBatch: per-key work (a changelog's state, an upsert sink's reduction) and numbering the
lines of each file need each micro-batch whole; the sink's batch writer writes it."""

from __future__ import annotations

import argparse

from pyspark.sql import DataFrame

from .counts import Counts
from .handover import print_handed, report_micro_batch  # noqa: F401 (print_handed: for streaming)
from .job_names import micro_batch, write_sink
from .stream_writer import checkpoint, start_trigger


def start(raw: DataFrame, args: argparse.Namespace, counts: Counts):
    """The source rows through `micro_batch` into the sink, one micro-batch at a time, each with its own counts."""
    folder = checkpoint(args)

    def one(batch: DataFrame, batch_id: int) -> None:
        counts = Counts(False)
        args.batch_id = batch_id  # a table's idempotent write (appends) names the micro-batch
        write_sink(micro_batch(batch, batch_id, folder, counts), args)
        report_micro_batch(counts, batch, batch_id)

    writer = raw.writeStream.foreachBatch(one).option("checkpointLocation", folder)
    return start_trigger(writer, args.trigger).start()
