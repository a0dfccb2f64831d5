"""Debezium in `pipec import connect`: the topics a Debezium connector writes, and its event flattening
(`ExtractNewRecordState`) as a `debezium-json` changelog source.

pipec reads Debezium's change events as a changelog (`+I`, `-U`, `+U`, `-D` rows of the row images), which is
what ExtractNewRecordState turns into flat records: so the step is the source's value format, and its options
become what the pipeline does with the changelog:

- deletes (`delete.handling.mode`, `drop.tombstones`, Debezium 2.5's `delete.tombstone.handling.mode`): dropped
  (a Filter of `-D` rows), or kept: a tombstone at an upsert-kafka sink, an `op: -D` row at an envelope sink;
- `add.fields`: the change event's metadata as value fields, read as debezium-json's metadata columns.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..types.parser import parse_type
from ..types.sql import StructType
from .connect_columns import Sample
from .connect_config import ConnectorConfig
from .yaml_text import YamlWriter

FLATTENING = ("io.debezium.transforms.ExtractNewRecordState",)
# add.fields: Debezium's name -> (debezium-json metadata key, column type). Debezium writes source.ts_ms and ts_ms
# as epoch milliseconds (int64): BIGINT, which the metadata's TIMESTAMP_LTZ(3) casts to exactly.
ADDED_FIELDS = {
    "table": ("value.source.table", "STRING"),
    "db": ("value.source.database", "STRING"),
    "schema": ("value.source.schema", "STRING"),
    "source.ts_ms": ("value.source.timestamp", "BIGINT"),
    "ts_ms": ("value.ingestion-timestamp", "BIGINT"),
}
# What keeps a delete (as a tombstone, or an op -D row) for each delete option value; any other drops it.
KEEPS_DELETES = {
    "delete.handling.mode": ("none",),
    "delete.tombstone.handling.mode": ("tombstone", "delete-to-tombstone"),
}
REWRITES = ("rewrite", "rewrite-with-tombstone")
SQLSERVER = "io.debezium.connector.sqlserver.SqlServerConnector"
FLAT_SUFFIX = ".flat"  # where a Debezium source connector's flattened rows go (its own topics hold the change events)
FLAT_TOPIC = "flat_topic"
IS_DELETE = "is_delete"  # the predicate of drop_deletes
SCHEMA_INCLUDE = "debezium-json.schema-include"
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)+")


@dataclass(frozen=True, slots=True)
class Flattening:
    """What a connector's ExtractNewRecordState step does, in pipec's terms."""

    alias: str
    keep_deletes: bool
    fields: tuple[tuple[str, str, str], ...]  # (value field written, metadata key read, type)
    notes: tuple[str, ...]  # comment lines for the YAML: what the step was and how it maps


def added_column(field: str) -> str:
    """The metadata column an add.fields field is read into (a virtual column; the step add_fields renames it to
    `field`, which makes it a field the sink writes)."""
    return "debezium" + field if field.startswith("_") else f"debezium_{field}"


def row_columns(sample: Sample) -> list[tuple[str, str]]:
    """The row columns of a sample change event (`--value-sample`): its `after` (else `before`) struct's fields; a
    sample that is no change event is the row itself."""
    types = dict(sample.columns)
    image = types.get("after") or types.get("before")
    if image is None or "op" not in types:
        return sample.columns
    row = parse_type(image)
    return [(f.name, f.type.sql()) for f in row.fields] if isinstance(row, StructType) else sample.columns


def find_flattening(steps: list) -> int | None:
    """The index of the chain's ExtractNewRecordState step, or None."""
    return next((i for i, (_, type_entry, _, _) in enumerate(steps) if type_entry.value.strip() in FLATTENING), None)


def flattening(alias: str, config: dict[str, str], warn: Callable[[str, str, str | None], None]) -> Flattening:
    """Read the step's options; `warn(key, message, hint)` for what pipec does otherwise."""
    key = f"transforms.{alias}."
    legacy = config.get("delete.handling.mode", "").strip()
    mode = config.get("delete.tombstone.handling.mode", "").strip()
    drop_tombstones = config.get("drop.tombstones", "true").strip().lower() != "false"
    notes = [
        f"Debezium's ExtractNewRecordState ('{alias}') is this source's value format: debezium-json reads each change "
        "event as changelog rows (+I, -U and +U for an update, -D) of the row images it flattened to"
    ]
    if mode:
        keep = mode in KEEPS_DELETES["delete.tombstone.handling.mode"]
        option = f"delete.tombstone.handling.mode={mode}"
    else:
        keep = legacy in KEEPS_DELETES["delete.handling.mode"] or not drop_tombstones
        option = f"delete.handling.mode={legacy or 'drop'}, drop.tombstones={str(drop_tombstones).lower()}"
    if (mode or legacy) in REWRITES:
        warn(
            key + ("delete.tombstone.handling.mode" if mode else "delete.handling.mode"),
            f"{option}: pipec keeps a delete as a delete (a tombstone at an upsert-kafka sink, an op -D row at an envelope "
            "sink), not as a record with __deleted=true",
            "consumers that read __deleted read the tombstone or the op instead",
        )
        keep = True
    notes.append(
        f"{option}: deletes are "
        + (
            "kept (a tombstone at an upsert-kafka sink, op -D in an envelope)"
            if keep
            else "dropped (the step drop_deletes)"
        )
    )
    prefix = config.get("add.fields.prefix", "__")
    fields = []
    for name in [n.strip() for n in config.get("add.fields", "").split(",") if n.strip()]:
        if name in ADDED_FIELDS:
            fields.append((prefix + name.replace(".", "_"), *ADDED_FIELDS[name]))
        else:
            warn(
                key + "add.fields",
                f"add.fields {name}: pipec reads no such metadata of a change event; left out",
                "op is the row's op (written by an envelope or table sink); the others: declare the source columns by hand"
                if name == "op"
                else f"pipec reads {', '.join(ADDED_FIELDS)}",
            )
    for option_key in ("add.headers", "route.by.field", "drop.fields.header.name", "drop.fields.from.key"):
        if config.get(option_key, "").strip():
            warn(key + option_key, f"{option_key} has no pipec counterpart; left out", None)
    return Flattening(alias, keep, tuple(fields), tuple(notes))


def debezium_topics(c: ConnectorConfig, take: Callable[[str], str | None]) -> tuple[list[str], str | None] | None:
    """The topics a Debezium connector writes, `<topic.prefix>.<database>.<table>` (SQL Server:
    `<prefix>.<database>.<schema>.<table>`): its table list as topic names, or a topic pattern over its databases
    (or everything under its prefix) when the list is missing or holds regexes. None: not a Debezium connector."""
    if not c.get("connector.class", "").startswith("io.debezium"):
        return None
    prefix = take("topic.prefix") or take("database.server.name")
    if not prefix:
        return None
    database = (take("database.names") or take("database.dbname") or "").split(",")[0].strip()
    middle = f"{database}." if c.get("connector.class") == SQLSERVER and database else ""
    tables = [
        t
        for key in ("table.include.list", "table.whitelist", "collection.include.list")
        for t in re.split(r"\s*,\s*", (take(key) or "").strip())
        if t
    ]
    if tables and all(_PLAIN_NAME.fullmatch(t) for t in tables):
        return [f"{prefix}.{middle}{t}" for t in tables], None
    if tables:
        return [], rf"{re.escape(prefix)}\.{re.escape(middle)}({'|'.join(tables)})"
    schemas = [
        s
        for key in ("database.include.list", "database.whitelist", "schema.include.list", "schema.whitelist")
        for s in re.split(r"\s*,\s*", (take(key) or "").strip())
        if s
    ]
    if schemas:
        return [], rf"{re.escape(prefix)}\.{re.escape(middle)}({'|'.join(schemas)})\..+"
    return [], rf"{re.escape(prefix)}\..+\..+"


def flattened_steps(y: YamlWriter, flat: Flattening) -> None:
    """What ExtractNewRecordState did beyond unwrapping: deletes dropped, change-event metadata as fields."""
    if not flat.keep_deletes:
        y.item([("name", "drop_deletes"), ("type", "Filter"), ("predicate", IS_DELETE)])
    if flat.fields:
        renames = ",".join(f"{added_column(name)}:{name}" for name, _, _ in flat.fields)
        y.item_comment("add.fields: the change event's metadata, read as metadata columns, written as fields")
        y.item([("name", "add_fields"), ("type", "ReplaceField$Value"), ("renames", renames)])


def flat_topic_step(y: YamlWriter) -> None:
    """A Debezium source connector's last step: its flattened rows to <topic>.flat."""
    y.item_comment(
        "Debezium writes its change events to the topics above (its transforms run here); the flattened rows, "
        f"which ExtractNewRecordState wrote there, go to <topic>{FLAT_SUFFIX}"
    )
    y.item([("name", FLAT_TOPIC), ("type", "RegexRouter"), ("regex", "(.*)"), ("replacement", "$1" + FLAT_SUFFIX)])
