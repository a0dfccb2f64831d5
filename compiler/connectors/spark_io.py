"""The Spark reader and writer options of each connector: the context of its job section (templates/sources/,
templates/sinks/). Values that may hold ${env:...} stay env() calls resolved at run time."""

from __future__ import annotations

from ..emit.render import dict_expr, doc_text, path_expr, py_literal, text_expr
from ..envrefs import Text
from ..model import Sink, Source
from ..types.sql import StructType
from .payload import CSV_OPTIONS, JSON_OPTIONS


def table_ddl(t: StructType) -> str:
    """A reader schema in Spark DDL: every column name backtick-quoted."""
    return ", ".join("`" + f.name.replace("`", "``") + "` " + f.type.ddl() for f in t.fields)


STARTING_OFFSETS = {"earliest-offset": "earliest", "latest-offset": "latest"}


def kafka_reader(source: Source) -> dict:
    """Spark Kafka reader options; values that may hold ${env:...} stay env() calls resolved at run time."""
    props = dict(source.config.properties)
    items = [
        ("kafka.bootstrap.servers", f"args.bootstrap_servers or {text_expr(props.pop('bootstrap.servers', None))}")
    ]
    if source.config.topics:
        joined = ",".join(t.raw for t in source.config.topics)
        items.append(("subscribe", text_expr(Text(joined))))
    else:
        items.append(("subscribePattern", text_expr(source.config.topic_pattern)))
    mode = source.config.startup.get("mode", "earliest-offset")
    if mode in STARTING_OFFSETS:
        items.append(("startingOffsets", py_literal(STARTING_OFFSETS[mode])))
    elif mode == "timestamp":
        items.append(("startingTimestamp", text_expr(Text(str(source.config.startup["timestamp-millis"])))))
        items.append(("startingOffsetsByTimestampStrategy", py_literal("latest")))
    else:
        spec = text_expr(Text(str(source.config.startup["specific-offsets"])))
        items.append(("startingOffsets", f"specific_offsets({text_expr(source.config.topics[0])}, {spec})"))
    items.append(("includeHeaders", py_literal("true")))
    items += [(f"kafka.{k}", text_expr(v)) for k, v in props.items()]
    items += [(k, py_literal(v)) for k, v in source.config.options]
    topics = ", ".join(t.raw for t in source.config.topics) or (
        source.config.topic_pattern.raw if source.config.topic_pattern else ""
    )
    return {
        "options": dict_expr(items),
        "specific_offsets": mode == "specific-offsets",
        "summary": doc_text(
            f"Kafka {topics} ({source.config.format} values, {source.config.key_format} keys) via Spark's Kafka source."
        ),
    }


def kafka_writer(sink: Sink, source: Source) -> dict:
    """Spark Kafka writer options: bootstrap servers (CLI, sink, else the source's), producer properties."""
    props = dict(sink.config.properties)
    servers = props.pop("bootstrap.servers", None) or dict(source.config.properties).get("bootstrap.servers")
    items = [("kafka.bootstrap.servers", f"args.bootstrap_servers or {text_expr(servers)}")]
    items += [(f"kafka.{k}", text_expr(v)) for k, v in props.items()]
    items += [(k, py_literal(v)) for k, v in sink.config.options]
    where = f"topic {sink.config.topic.raw}" if sink.config.topic else "each record's own topic"
    kind = "Upsert-kafka sink (key: primary key; -D a tombstone)" if sink.config.primary_key else "Kafka sink"
    return {
        "options": dict_expr(items),
        "checkpoint": path_expr(sink.config.checkpoint),
        "summary": doc_text(f"{kind}: {sink.config.format} values to {where} (at least once)."),
    }


def file_writer(sink: Sink, source: Source) -> dict:
    """Spark file (or console) writer options: the format's defaults under the configured ones."""
    options = dict(sink.config.options)
    defaults = {"json": JSON_OPTIONS, "csv": CSV_OPTIONS}.get(sink.config.format, {})
    options = {**defaults, **options}  # json writes null fields and csv quotes as RFC 4180, as Flink does
    return {
        "format": py_literal(sink.config.format),
        "options": py_literal(options),
        "partition_by": py_literal(list(sink.config.partition_by)),
        "path": path_expr(sink.config.path),
        "checkpoint": path_expr(sink.config.checkpoint),
        "summary": doc_text(
            f"{sink.connector} sink"
            + (f": {sink.config.format} files at {sink.config.path.raw}" if sink.config.path else "")
            + "."
        ),
    }
