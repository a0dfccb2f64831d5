"""The sink (its connector's rules and whether it takes the chain's records) and the errors policy."""

from __future__ import annotations

from dataclasses import fields, replace

from ..connectors import SINKS, SOURCES
from ..connectors.config import read_config
from ..envrefs import Text
from ..model import ErrorPolicy, Sink, Source
from ..shape import Shape
from .errors_policy import dead_letter_problems
from .part import Part, text

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
        key = raw.get("key", {})
        config = read_config(connector.config, raw)
        if "key_format" in field_names(connector.config) and "format" not in key:
            config = replace(config, key_format=default_key_format(source, shape))
        key_path = ("primary-key",) if "primary-key" in raw else ("key", "fields")
        sink = Sink(
            connector=raw["connector"],
            loc=self.at("sink"),
            config=config,
            record_name=self.data["name"],
            registries=self.registries("sink", raw, {"key": config.key_format, "value": config.format}, config.topic),
            format_loc=self.at("sink", *connector.format_path),
            key_format_loc=self.at("sink", "key", "format"),
            primary_key_loc=self.at("sink", "primary-key"),
            key_field_locs=tuple(self.at("sink", *key_path, i) for i in range(len(config.key_fields))),
            partition_by_locs=tuple(self.at("sink", "partition-by", i) for i in range(len(config.partition_by))),
            metadata_locs=tuple(self.at("sink", "metadata", k) for k, _ in config.metadata),
            trigger_loc=self.at("sink", "trigger") if "trigger" in raw else None,
            sequence_by_loc=self.at("sink", "sequence-by") if "sequence-by" in raw else None,
        )
        self.timestamp_format(raw, connector.format_path[:-1], config.format)
        self.timestamp_format(raw, ("key",), config.key_format)
        if connector.writes_kafka:
            if not any(k == "bootstrap.servers" for k, _ in sink.config.properties) and not source_bootstrap(source):
                self.diags.error(
                    "E512",
                    "the kafka sink needs bootstrap.servers",
                    self.at("sink"),
                    "set sink.config.properties.bootstrap.servers, or read from a kafka source whose servers it reuses",
                )
        self.check_options("sink", sink.config.options, connector.options)
        connector.check(sink, shape, self.diags)
        connector.check_changelog(sink, shape, self.diags)
        return sink

    def timestamp_format(self, raw: dict, block: tuple[str, ...], fmt: str | None) -> None:
        """A `timestamp-format` in the key or value block at `block` applies to json formats only."""
        options = raw
        for key in block:
            options = options.get(key) or {}
        if "timestamp-format" in options and fmt not in JSON_FORMATS:
            self.diags.error(
                "E549",
                f"timestamp-format applies to json and debezium-json, and this {'.'.join(block + ('format',))} is {fmt}",
                self.key_at("sink", *block, "timestamp-format"),
                "remove it, or write json",
            )

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


def field_names(record: type) -> set[str]:
    return {f.name for f in fields(record)}


def default_key_format(source: Source, shape: Shape) -> str | None:
    """The source's key format; json where the source had none and the chain set a key (SPEC section 7)."""
    if source.config.key_format == "none":
        return "json" if shape.key is not None else None
    return source.config.key_format


def source_bootstrap(source: Source) -> str | None:
    """The source's bootstrap servers as written, which a Kafka sink reuses."""
    servers = dict(source.config.properties).get("bootstrap.servers")
    return servers.raw if servers is not None else None
