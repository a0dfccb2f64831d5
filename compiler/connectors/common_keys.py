"""Keys that config records of several connector families share (compiler/connectors/config.py): each call makes
the record's field anew."""

from __future__ import annotations

from typing import Any

from .config import BOOLEAN, ENV, TOPIC, key, names, ref, text


def columns() -> Any:
    return key(
        "columns",
        "The table schema, in order.",
        ref("Columns"),
        (),
        resolved=True,
        examples=([{"name": "order_id", "type": "BIGINT"}],),
    )


def checkpoint() -> Any:
    return key(
        "checkpoint",
        "Checkpoint folder; required in streaming mode." + ENV,
        ref("Checkpoint"),
        read=text,
        examples=("${env:CHECKPOINT_DIR:-checkpoints}/orders_masked",),
    )


def trigger() -> Any:
    return key(
        "trigger",
        'available-now, once, "processing-time: <interval>" or real-time; default back to back.',
        ref("Trigger"),
    )


def carried_topic() -> Any:
    return key(
        "topic",
        "The topic the records carry; default the pipeline name. May contain `${env:NAME}` or `${env:NAME:-default}` references, read when the job starts. At most 249 characters, Kafka's limit on a topic name.",
        TOPIC,
        read=text,
        examples=("orders",),
    )


def key_struct() -> Any:
    return key(
        "key.fields", "Columns forming the key struct.", ref("ColumnNames"), (), read=names, examples=(["order_id"],)
    )


def envelope() -> Any:
    return key(
        "envelope",
        "true: add key, topic, partition, offset, timestamp, headers (and op in a changelog) columns beside the value's columns. Default false.",
        BOOLEAN,
        False,
    )
