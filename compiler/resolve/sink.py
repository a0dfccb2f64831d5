"""The sink (its connector's rules and whether it takes the chain's records) and the errors policy."""

from __future__ import annotations

from dataclasses import replace

from ..connectors import SINKS, SOURCES
from ..connectors.json_timestamps import TIMESTAMP_FORMATS
from ..envrefs import Text
from ..model import ErrorPolicy, Sink, Source
from ..shape import Shape
from .errors_policy import dead_letter_problems
from .part import Part, integer, options, text

JSON_FORMATS = ("json", "debezium-json")  # the formats that take a timestamp-format


class SinkBuilder(Part):
    """Builds the Sink and the ErrorPolicy of one document."""

    def build(self, shape: Shape, source: Source) -> Sink | None:
        raw = self.data["sink"]
        connector = SINKS.get(raw["connector"])
        if connector is None:
            self.diags.error(
                "E107",
                f"the {raw['connector']} sink is not implemented yet",
                self.at("sink", "connector"),
                f"available now: {', '.join(SINKS)}",
            )
            return None
        streaming = self.streaming
        if streaming and connector.checkpoint_required and "checkpoint" not in raw:
            self.diags.error(
                "E510",
                "a streaming sink needs a checkpoint",
                self.at("sink"),
                "add checkpoint: <folder> (it may use ${env:...})",
            )
        if not streaming and "trigger" in raw:
            self.diags.error(
                "E511",
                "trigger applies to streaming pipelines only",
                self.key_at("sink", "trigger"),
                "remove trigger, or set mode: streaming",
            )
        sink = Sink(
            connector=raw["connector"],
            loc=self.at("sink"),
            format=connector.value_format(raw),
            path=text(raw.get("path")),
            envelope=bool(raw.get("envelope", connector.envelope_default)),
            partition_by=tuple(raw.get("partition-by", [])),
            partition_by_locs=tuple(
                self.at("sink", "partition-by", i) for i in range(len(raw.get("partition-by", [])))
            ),
            checkpoint=text(raw.get("checkpoint")),
            trigger=raw.get("trigger"),
            trigger_loc=self.at("sink", "trigger") if "trigger" in raw else None,
            options=options(raw.get("options")),
            topic=text(raw.get("topic")),
            properties=tuple((k, Text(str(v))) for k, v in (raw.get("properties") or {}).items()),
            key_format=raw.get("key", {}).get("format", default_key_format(source, shape)),
            key_fields=tuple(raw.get("key", {}).get("fields", [])),
            key_field_locs=tuple(
                self.at("sink", "key", "fields", i) for i in range(len(raw.get("key", {}).get("fields", [])))
            ),
            fields_include=raw.get("value", {}).get("fields-include", "ALL"),
            metadata=tuple((raw.get("metadata") or {}).items()),
            metadata_locs=tuple(self.at("sink", "metadata", k) for k in (raw.get("metadata") or {})),
            record_name=self.data["name"],
            key_schema_id=integer(raw.get("key", {}).get("schema-id")),
            value_schema_id=integer(raw.get("value", {}).get("schema-id")),
            format_loc=self.at("sink", *connector.format_path),
            key_format_loc=self.at("sink", "key", "format"),
            primary_key_loc=self.at("sink", "primary-key"),
            table=raw.get("table"),
            apply=raw.get("apply", "append"),
            sequence_by=raw.get("sequence-by"),
            sequence_by_loc=self.at("sink", "sequence-by") if "sequence-by" in raw else None,
            schema_evolution=raw.get("schema-evolution", "none"),
            table_properties=tuple((k, _property(v)) for k, v in (raw.get("table-properties") or {}).items()),
            catalog=tuple((k, Text(str(v))) for k, v in (raw.get("catalog") or {}).items()),
        )
        formats = {"key": sink.key_format, "value": sink.format}
        sink = replace(
            sink,
            registries=self.registries("sink", raw, formats, sink.topic),
            timestamp_format=self.timestamp_format(raw, connector.format_path[:-1], sink.format),
            key_timestamp_format=self.timestamp_format(raw, ("key",), sink.key_format),
        )
        if connector.primary_key or "primary-key" in raw:
            sink = replace(
                sink,
                key_fields=tuple(raw["primary-key"]),
                primary_key=tuple(raw["primary-key"]),
                key_field_locs=tuple(self.at("sink", "primary-key", i) for i in range(len(raw["primary-key"]))),
            )
        if connector.writes_kafka:
            if not any(k == "bootstrap.servers" for k, _ in sink.properties) and not source_bootstrap(source):
                self.diags.error(
                    "E512",
                    "the kafka sink needs bootstrap.servers",
                    self.at("sink"),
                    "set sink.properties.bootstrap.servers, or read from a kafka source whose servers it reuses",
                )
        self.check_options("sink", sink.options, connector.options)
        connector.check(sink, shape, self.diags)
        connector.check_changelog(sink, shape, self.diags)
        return sink

    def timestamp_format(self, raw: dict, block: tuple[str, ...], fmt: str | None) -> str:
        """The `timestamp-format` of the key or value block at `block` (json formats only)."""
        options = raw
        for key in block:
            options = options.get(key) or {}
        chosen = options.get("timestamp-format")
        if chosen is None:
            return TIMESTAMP_FORMATS[0]
        if fmt not in JSON_FORMATS:
            self.diags.error(
                "E549",
                f"timestamp-format applies to json and debezium-json, and this {'.'.join(block + ('format',))} is {fmt}",
                self.key_at("sink", *block, "timestamp-format"),
                "remove it, or write json",
            )
        return chosen

    def errors(self, source: Source | None) -> ErrorPolicy:
        raw = self.data.get("errors") or {}
        policy = ErrorPolicy(
            tolerance=raw.get("tolerance", "none"),
            dlq_topic=text(raw.get("deadletterqueue.topic.name")),
            dlq_path=text(raw.get("deadletterqueue.path")),
            context_headers=bool(raw.get("deadletterqueue.context.headers.enable", False)),
            dlq_properties=tuple((k, Text(str(v))) for k, v in (raw.get("deadletterqueue.properties") or {}).items()),
            log=bool(raw.get("log.enable", False)),
            log_messages=bool(raw.get("log.include.messages", False)),
        )
        for problem in dead_letter_problems(policy, source, raw, SOURCES[source.connector] if source else None):
            report = self.diags.warn if problem.warning else self.diags.error
            report(problem.code, problem.message, self.at(problem.block, *problem.path), problem.hint)
        return policy


def _property(value: object) -> str:
    """A table property as the table format stores it: text (true, not True)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def default_key_format(source: Source, shape: Shape) -> str | None:
    """The source's key format; json where the source had none and the chain set a key (SPEC section 7)."""
    if source.key_format == "none":
        return "json" if shape.key is not None else None
    return source.key_format


def source_bootstrap(source: Source) -> str | None:
    """The source's bootstrap servers as written, which a Kafka sink reuses."""
    servers = dict(source.properties).get("bootstrap.servers")
    return servers.raw if servers is not None else None
