"""The rules Spark and Flink impose on a `kafka` or `upsert-kafka` source's configuration (SPEC 4.1)."""

from __future__ import annotations

import re

from ..envrefs import Text
from ..model import Source
from .base import Where
from .cdc_json import FORMATS as CHANGELOG_FORMATS
from .cdc_json import SCHEMA_INCLUDE

REFUSED_CONSUMER_PROPERTIES = {
    "auto.offset.reset": "set startup.mode instead",
    "enable.auto.commit": "offsets live in the checkpoint; Spark commits none",
    "key.deserializer": "keys are read as bytes and decoded by key.format",
    "value.deserializer": "values are read as bytes and decoded by value.format",
    "interceptor.classes": "Spark does not allow consumer interceptors",
}

SPECIFIC_OFFSETS_FORMAT = "partition:0,offset:42;partition:1,offset:300"
_OFFSETS_ITEM = re.compile(r"partition:(?P<partition>[0-9]+),offset:(?P<offset>-?[0-9]+)")


def specific_offsets_problem(text: str) -> tuple[int, str] | None:
    """(character offset, what is wrong) in a `startup.specific-offsets` string, or None (Flink's format: one
    `partition:P,offset:O` per partition, `;`-separated; -2 is earliest, -1 latest)."""
    seen: set[int] = set()
    start = 0
    for item in text.split(";"):
        match = _OFFSETS_ITEM.fullmatch(item)
        if not match:
            return start, f"'{item}' is not partition:<number>,offset:<number>"
        partition, offset = int(match["partition"]), int(match["offset"])
        if offset < -2:
            return start + match.start("offset"), f"offset {offset} is below -2 (-2 is earliest, -1 latest)"
        if partition in seen:
            return start, f"partition {partition} is named twice"
        seen.add(partition)
        start += len(item) + 1
    return None


def check_kafka_source(source: Source, where: Where, formats: tuple[str, ...]) -> None:
    """SPEC 4.1 rules Spark and Flink impose on a Kafka source (`formats`: its insert-only value and key formats)."""
    diags, at = where.diags, where.at
    if not source.config.topics and not source.config.topic_pattern:  # both: validate/exclusive_keys.py
        diags.error(
            "E230", "set one of topics and topic-pattern", at(), "add topics: [NAME, ...] or topic-pattern: REGEX"
        )
    for key, _ in source.config.properties:
        if key in REFUSED_CONSUMER_PROPERTIES:
            diags.error(
                "E231",
                f"Spark's Kafka source refuses the consumer property '{key}'",
                where.key_at("properties", key),
                REFUSED_CONSUMER_PROPERTIES[key],
            )
    mode = source.config.startup.get("mode", "earliest-offset")
    if mode == "group-offsets":
        diags.error(
            "E232",
            "startup mode group-offsets is not available: Spark keeps offsets only in the checkpoint and commits none to Kafka",
            at("startup", "mode"),
            "use earliest-offset, latest-offset, timestamp or specific-offsets",
        )
    if mode == "latest-offset" and not where.streaming:
        diags.error(
            "E233",
            "startup mode latest-offset reads nothing in a batch pipeline",
            at("startup", "mode"),
            "use earliest-offset",
        )
    if mode == "specific-offsets" and len(source.config.topics) != 1:
        diags.error(
            "E234",
            "specific-offsets needs exactly one topic in topics",
            at("startup", "specific-offsets"),
            "read one topic in this pipeline, or start from earliest-offset or a timestamp",
        )
    offsets = Text(str(source.config.startup.get("specific-offsets", "")))
    problem = specific_offsets_problem(offsets.raw) if offsets.raw and not offsets.has_env else None
    if problem:
        diags.error(
            "E244",
            f"bad specific-offsets: {problem[1]}",
            where.text_at(("startup", "specific-offsets"), problem[0]),
            f"write {SPECIFIC_OFFSETS_FORMAT}, naming every partition of the topic",
        )
    physical = [c for c in source.config.columns if c.physical]
    values = [
        c for c in physical if not (source.config.fields_include == "EXCEPT_KEY" and c.name in source.config.key_fields)
    ]
    if source.config.format == "raw" and (
        len(values) != 1 or not (values[0].type.is_string or values[0].type.is_binary)
    ):
        diags.error(
            "E235",
            "a raw value format takes exactly one physical column of type STRING or BYTES",
            at("value", "format"),
            "declare BYTES and Cast it with bytes.order for numbers",
        )
    if source.config.format not in (*formats, *CHANGELOG_FORMATS):
        diags.error(
            "E107",
            f"value format {source.config.format} is not implemented yet",
            at("value", "format"),
            f"available now: {', '.join((*formats, *CHANGELOG_FORMATS))}",
        )
    if source.config.schema_include and source.config.format != "debezium-json":
        diags.error(
            "E243",
            f"{SCHEMA_INCLUDE} applies to value format debezium-json only, not {source.config.format}",
            where.key_at("value", SCHEMA_INCLUDE),
            "remove it: only Debezium messages carry a schema/payload wrapper",
        )
    if source.config.key_format not in ("none", *formats):
        diags.error(
            "E107",
            f"key format {source.config.key_format} is not implemented yet",
            at("key", "format"),
            f"available now: {', '.join(('none', *formats))}",
        )
    if source.config.key_format == "none" and source.config.key_fields:
        diags.error("E236", "key fields need a key format", at("key"), "set key.format (json, csv or raw)")
    if source.config.key_format in ("json", "csv") and not source.config.key_fields:
        diags.error(
            "E237", f"a {source.config.key_format} key needs key.fields", at("key"), "add key.fields: [COLUMN, ...]"
        )
    if source.config.key_format == "raw" and len(source.config.key_fields) > 1:
        diags.error(
            "E238",
            "a raw key holds exactly one column",
            at("key", "fields"),
            "name one column, or use a json or csv key",
        )
    if source.config.key_fields_prefix:
        if source.config.fields_include != "EXCEPT_KEY":
            diags.error(
                "E239",
                "key.fields-prefix needs value.fields-include: EXCEPT_KEY",
                at("key", "fields-prefix"),
                "add value.fields-include: EXCEPT_KEY, or remove fields-prefix",
            )
        for k in source.config.key_fields:
            if not k.startswith(source.config.key_fields_prefix):
                diags.error(
                    "E240",
                    f"key field '{k}' does not start with the prefix '{source.config.key_fields_prefix}'",
                    at("key", "fields"),
                    f"name the column {source.config.key_fields_prefix}{k} (the prefix is part of the column's name)",
                )
    if source.config.fields_include == "EXCEPT_KEY" and not source.config.key_fields:
        diags.error(
            "E241",
            "fields-include EXCEPT_KEY needs key.fields",
            at("value", "fields-include"),
            "add key.fields, or use fields-include: ALL",
        )
