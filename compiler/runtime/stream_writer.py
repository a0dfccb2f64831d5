"""What a streaming write needs: its checkpoint and its trigger."""

from __future__ import annotations

import argparse

from .arguments import location
from .env import env
from .job_names import CHECKPOINT, PIPELINE, TRIGGER


def checkpoint(args: argparse.Namespace) -> str | None:
    """--checkpoint, else the sink's (CHECKPOINT)."""
    return args.checkpoint or (location(env(CHECKPOINT)) if CHECKPOINT else None)


def start_trigger(writer, trigger: str | None):
    """--trigger, else the sink's (TRIGGER); none: micro-batches back to back."""
    trigger = trigger or TRIGGER
    if trigger is None:
        return writer
    kind, _, interval = (part.strip() for part in trigger.partition(":"))
    if kind == "available-now" and not interval:
        return writer.trigger(availableNow=True)
    if kind == "once" and not interval:
        return writer.trigger(once=True)
    if kind == "processing-time" and interval:
        return writer.trigger(processingTime=interval)
    if kind == "real-time":
        # Spark 4.1+: long-running tasks write each record as it arrives, in update mode (stateless: the same
        # rows as append); the interval is how often it checkpoints, not a latency (Spark's default: 5 minutes)
        return writer.outputMode("update").trigger(realTime=interval or "5 minutes")
    raise SystemExit(f"{PIPELINE}: unknown trigger {trigger!r}")
