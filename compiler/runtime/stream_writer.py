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
    once = {"available-now": "availableNow", "once": "once"}  # Spark's keyword for each
    if kind in once and not interval:
        return writer.trigger(**{once[kind]: True})
    if kind == "processing-time" and interval:
        return writer.trigger(processingTime=interval)
    if kind == "real-time":
        # Spark 4.1+: records written as they arrive, in update mode (stateless: the same rows as append); the interval
        # is how often it checkpoints, not a latency (Spark's default: 5 minutes)
        return writer.outputMode("update").trigger(realTime=interval or "5 minutes")
    raise SystemExit(f"{PIPELINE}: unknown trigger {trigger!r}")
