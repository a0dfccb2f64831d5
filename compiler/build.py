"""Validated data -> the resolved Pipeline model, with every semantic check (SPEC sections 3-9).

Schema propagation runs here too: each step's output shape is computed from the previous one, so a
step naming a missing field is reported at that step's line.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from . import ir
from .connectors import SINKS, SOURCES
from .connectors.cdc_json import SCHEMA_INCLUDE
from .connectors.base import SourceConnector, Where
from .diagnostics import Collector, Location, did_you_mean
from .errors_policy import dead_letter_problems
from .envrefs import Text
from .loader import Document
from .model import Column, ErrorPolicy, Pipeline, Predicate, Sink, Source, Step, TestCase, TestRecord
from .shape import Shape
from .transforms import REGISTRY, ConfigReader, Context
from .transforms.structs import conform
from .types import BYTES, HEADERS, SqlType, StructField, StructType, TypeSyntaxError, parse_type, same_name

STEP_KEYS = ("name", "type", "predicate", "negate")


@dataclass(frozen=True)
class Compiled:
    """A pipeline with the shapes after its source and after each step."""

    pipeline: Pipeline
    shapes: tuple[Shape, ...]  # shapes[0] after the source, shapes[i] after step i

    @property
    def final(self) -> Shape:
        return self.shapes[-1]


def _text(value: Any) -> Text | None:
    return None if value is None else Text(str(value))


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _options(raw: dict | None) -> tuple[tuple[str, str], ...]:
    return tuple((k, str(v).lower() if isinstance(v, bool) else str(v)) for k, v in (raw or {}).items())


class Builder:
    """Builds one Pipeline from one validated document."""

    def __init__(self, doc: Document, diags: Collector):
        self.doc, self.diags, self.data = doc, diags, doc.data

    def at(self, *path) -> Location:
        return self.doc.smap.at(path)

    def key_at(self, *path) -> Location:
        return self.doc.smap.key(path)

    def where(self, block: str) -> Where:
        return Where(self.diags, self.doc.smap, block, self.data.get("mode", "streaming") == "streaming")

    # ------------------------------------------------------------ source

    def column_type(self, raw: Any, path: tuple) -> SqlType | None:
        text = str(raw)
        try:
            return parse_type(text)
        except TypeSyntaxError as exc:
            shown = text if len(text) <= 80 else text[:77] + "..."
            self.diags.error("E200", f"bad type '{shown}': {exc.message}", self.doc.smap.text_at(path, exc.offset))
            return None

    def columns(self, src: dict, connector: SourceConnector, fmt: str | None) -> tuple[Column, ...]:
        keys = connector.metadata_keys(fmt)
        out, seen, header_keys, header_paths = [], {}, {}, {}
        headers_col = None
        for i, raw in enumerate(src.get("columns", [])):
            path = ("source", "columns", i)
            name = raw["name"]
            twin = next((n for n in seen if same_name(n, name)), None)
            if twin is not None:
                self.diags.error("E201", f"duplicate column '{name}' (same as '{twin}' at line {seen[twin].line}; Spark ignores case)",
                                 self.at(*path, "name"))
                continue
            seen[name] = self.at(*path, "name")
            meta = raw.get("metadata")
            meta = name if meta is True else meta
            declared = self.column_type(raw["type"], path + ("type",)) if "type" in raw else None
            if raw.get("headers"):
                if declared is not None and declared != HEADERS:
                    self.diags.error("E210", f"a headers column must be of type {HEADERS.sql()}, not {declared.sql()}", self.at(*path, "type"))
                if headers_col:
                    self.diags.error("E211", "at most one column may be defined as HEADERS", self.at(*path, "headers"))
                headers_col = name
                out.append(Column(name, HEADERS, self.at(*path), headers=True))
                continue
            if "header" in raw:
                hkey = str(raw["header"])
                if declared is not None and not declared.is_binary:
                    self.diags.error("E212", f"a header column must be of type BYTES, not {declared.sql()}", self.at(*path, "type"),
                                     "declare it BYTES and Cast it with bytes.order or bytes.string.encoding")
                if hkey in header_keys:
                    self.diags.error("E213", f"two columns read header '{hkey}' ('{header_keys[hkey]}' and '{name}')", self.at(*path, "header"))
                header_keys[hkey] = name
                header_paths.setdefault(hkey, path + ("header",))
                out.append(Column(name, parse_type("BYTES"), self.at(*path), header=hkey))
                continue
            if meta is not None:
                column = self.metadata_column(raw, name, str(meta), declared, connector, fmt, keys, path)
                if column:
                    out.append(column)
                continue
            if declared is None:
                if "type" not in raw:
                    self.diags.error("E203", f"column '{name}' needs a type", self.at(*path))
                continue
            if raw.get("virtual"):
                self.diags.error("E204", f"column '{name}' is not a metadata column, so it cannot be virtual", self.at(*path, "virtual"))
            out.append(Column(name, declared, self.at(*path)))
        if headers_col:
            for hkey, hpath in header_paths.items():
                self.diags.error("E214", f"a HEADERS column ('{headers_col}') excludes header('...') columns such as '{header_keys[hkey]}'",
                                 self.at(*hpath), "read single headers from the HEADERS column, or drop it")
        return tuple(out)

    def metadata_column(self, raw: dict, name: str, key: str, declared: SqlType | None, connector: SourceConnector, fmt: str | None,
                        keys: dict, path: tuple) -> Column | None:
        spec = keys.get(key)
        if spec is None:
            self.diags.error("E205", f"unknown metadata key '{key}' for a {connector.name} source", self.at(*path, "metadata"),
                             connector.metadata_hint(key, fmt) or did_you_mean(key, keys) or f"keys: {', '.join(keys)}")
            return None
        if spec.warning:
            self.diags.warn("W206", spec.warning, self.at(*path, "metadata"))
        virtual = bool(raw.get("virtual"))
        if not spec.writable and not virtual:
            self.diags.error("E206", f"metadata key '{key}' is read-only, so column '{name}' must be declared virtual: true", self.at(*path),
                             "add virtual: true (Flink: read-only columns must be declared VIRTUAL)")
        declared = declared or spec.type
        from .connectors.base import castable

        if not castable(spec.type, declared):
            self.diags.error("E207", f"metadata key '{key}' is {spec.type.sql()} and cannot be cast to {declared.sql()}", self.at(*path, "type"))
        return Column(name, declared, self.at(*path), metadata=key, virtual=virtual)

    def source(self) -> Source | None:
        src = self.data["source"]
        connector = SOURCES.get(src["connector"])
        if connector is None:
            self.diags.error("E107", f"the {src['connector']} source is not implemented yet", self.at("source", "connector"),
                             f"available now: {', '.join(SOURCES)}")
            return None
        fmt = connector.value_format(src)
        columns = connector.yields(fmt, self.columns(src, connector, fmt), self.where("source"))
        key = src.get("key", {})
        value = src.get("value", {})
        key_fields = tuple(key.get("fields", src.get("primary-key", [])))
        names = {c.name for c in columns if c.physical}
        key_path, what = (("primary-key",), "primary-key column") if "primary-key" in src else (("key", "fields"), "key field")
        for i, k in enumerate(key_fields):
            if k not in names:
                self.diags.error("E221", f"{what} '{k}' is not a physical column; columns: {', '.join(sorted(names))}",
                                 self.at("source", *key_path, i), did_you_mean(k, names))
        if not any(c.physical for c in columns):
            self.diags.error("E222", "the source declares no physical column", self.at("source"), "add at least one column with a name and a type")
        topics = src.get("topics", [])
        source = Source(
            connector=src["connector"],
            loc=self.at("source"),
            columns=columns,
            format=fmt,
            key_format=key.get("format", "none"),
            key_fields=key_fields,
            key_fields_prefix=key.get("fields-prefix", ""),
            fields_include=value.get("fields-include", "ALL"),
            schema_include=bool(value.get(SCHEMA_INCLUDE, False)),
            path=_text(src.get("path")),
            topic=_text(src.get("topic")),
            topics=tuple(Text(t) for t in ([topics] if isinstance(topics, str) else topics)),
            topic_pattern=_text(src.get("topic-pattern")),
            properties=tuple((k, Text(str(v))) for k, v in (src.get("properties") or {}).items()),
            options=_options(src.get("options")),
            startup=dict(src.get("startup") or {}),
            changelog=connector.yields_changelog(fmt, self.data.get("mode", "streaming") == "streaming"),
        )
        self.check_options("source", source.options, connector.options)
        connector.check(source, self.where("source"))
        return source

    def check_options(self, where: str, options: tuple[tuple[str, str], ...], known: frozenset[str]) -> None:
        """`options:` may set only the Spark options the compiler knows for this connector."""
        for name, _ in options:
            if name not in known:
                self.diags.error("E242", f"unknown {where} option '{name}' for this connector", self.key_at(where, "options", name),
                                 did_you_mean(name, known) or (f"known: {', '.join(sorted(known))}" if known else "this connector takes no options"))

    # ------------------------------------------------------------ chain

    def predicates(self) -> dict[str, Predicate]:
        out = {}
        for alias, raw in (self.data.get("predicates") or {}).items():
            spec = REGISTRY.lookup_predicate(raw["type"])
            if spec is None:
                self.diags.error("E310", f"unknown predicate type '{raw['type']}'", self.at("predicates", alias, "type"),
                                 did_you_mean(raw["type"], REGISTRY.predicates))
                continue
            config_raw = {k: v for k, v in raw.items() if k != "type"}
            reader = ConfigReader(f"{spec.name} '{alias}'", config_raw, self.doc.smap, ("predicates", alias), self.diags)
            out[alias] = Predicate(alias, spec.name, spec.parse(reader), self.key_at("predicates", alias))
        return out

    def steps(self, start: Shape, predicates: dict[str, Predicate]) -> tuple[tuple[Step, ...], tuple[Shape, ...]]:
        steps, shapes, seen = [], [start], {}
        shape = start
        for i, raw in enumerate(self.data.get("transforms") or []):
            path = ("transforms", i)
            alias, type_name = raw["name"], raw["type"]
            if alias in seen:
                self.diags.error("E320", f"duplicate step name '{alias}' (first at line {seen[alias].line})", self.at(*path, "name"))
            seen[alias] = self.at(*path, "name")
            spec, side = REGISTRY.lookup(type_name)
            if spec is None:
                self.diags.error("E321", f"unknown transform type '{type_name}'", self.at(*path, "type"),
                                 did_you_mean(type_name.rsplit(".", 1)[-1], REGISTRY.spellings()))
                continue
            pred = raw.get("predicate")
            if pred is not None and pred not in predicates and pred not in (self.data.get("predicates") or {}):
                self.diags.error("E322", f"step '{alias}' names predicate '{pred}', which is not defined", self.at(*path, "predicate"),
                                 did_you_mean(pred, predicates) or "define it under predicates:")
            owner = f"{type_name.rsplit('.', 1)[-1]} '{alias}'"
            config_raw = {k: v for k, v in raw.items() if k not in STEP_KEYS}
            reader = ConfigReader(owner, config_raw, self.doc.smap, path, self.diags)
            errors_before = len(self.diags.errors)
            config = spec.parse(reader)
            negate = ConfigReader(owner, raw, self.doc.smap, path, self.diags).boolean("negate", False)  # "false" is false
            step = Step(alias, spec.name, side, type_name, config, self.at(*path), pred, negate)
            if len(self.diags.errors) == errors_before:
                before = shape
                shape = spec.infer(config, shape, Context(owner, side, reader, self.diags))
                if pred is not None and any(conform(ir.Col(s), before.side(s), shape.side(s)) is None for s in ("key", "value")):
                    self.diags.error("E324", f"step '{alias}' changes the {side or 'record'} from a struct to another type, so it cannot "
                                     "take a predicate: a column has one type, and skipped records would keep the old one",
                                     self.at(*path, "predicate"), "split the records with Filter steps in two pipelines, or drop the predicate")
            steps.append(step)
            shapes.append(shape)
        return tuple(steps), tuple(shapes)

    # ------------------------------------------------------------ sink, errors, tests

    def sink(self, shape: Shape, source: Source) -> Sink | None:
        raw = self.data["sink"]
        connector = SINKS.get(raw["connector"])
        if connector is None:
            self.diags.error("E107", f"the {raw['connector']} sink is not implemented yet", self.at("sink", "connector"),
                             f"available now: {', '.join(SINKS)}")
            return None
        streaming = self.data.get("mode", "streaming") == "streaming"
        if streaming and connector.checkpoint_required and "checkpoint" not in raw:
            self.diags.error("E510", "a streaming sink needs a checkpoint", self.at("sink"), "add checkpoint: <folder> (it may use ${env:...})")
        if not streaming and "trigger" in raw:
            self.diags.error("E511", "trigger applies to streaming pipelines only", self.key_at("sink", "trigger"))
        sink = Sink(
            connector=raw["connector"],
            loc=self.at("sink"),
            format=connector.value_format(raw),
            path=_text(raw.get("path")),
            envelope=bool(raw.get("envelope", connector.envelope_default)),
            partition_by=tuple(raw.get("partition-by", [])),
            partition_by_locs=tuple(self.at("sink", "partition-by", i) for i in range(len(raw.get("partition-by", [])))),
            checkpoint=_text(raw.get("checkpoint")),
            trigger=raw.get("trigger"),
            options=_options(raw.get("options")),
            topic=_text(raw.get("topic")),
            properties=tuple((k, Text(str(v))) for k, v in (raw.get("properties") or {}).items()),
            key_format=raw.get("key", {}).get("format", default_key_format(source, shape)),
            key_fields=tuple(raw.get("key", {}).get("fields", [])),
            key_field_locs=tuple(self.at("sink", "key", "fields", i) for i in range(len(raw.get("key", {}).get("fields", [])))),
            fields_include=raw.get("value", {}).get("fields-include", "ALL"),
            metadata=tuple((raw.get("metadata") or {}).items()),
            metadata_locs=tuple(self.at("sink", "metadata", k) for k in (raw.get("metadata") or {})),
            record_name=self.data["name"],
            key_schema_id=_int(raw.get("key", {}).get("schema-id")),
            value_schema_id=_int(raw.get("value", {}).get("schema-id")),
            format_loc=self.at("sink", *connector.format_path),
            key_format_loc=self.at("sink", "key", "format"),
            primary_key_loc=self.at("sink", "primary-key"),
        )
        if connector.primary_key:
            sink = replace(sink, key_fields=tuple(raw["primary-key"]), primary_key=tuple(raw["primary-key"]),
                           key_field_locs=tuple(self.at("sink", "primary-key", i) for i in range(len(raw["primary-key"]))))
        if connector.writes_kafka:
            if not any(k == "bootstrap.servers" for k, _ in sink.properties) and not source_bootstrap(source):
                self.diags.error("E512", "the kafka sink needs bootstrap.servers", self.at("sink"),
                                 "set sink.properties.bootstrap.servers, or read from a kafka source whose servers it reuses")
        self.check_options("sink", sink.options, connector.options)
        connector.check(sink, shape, self.diags)
        connector.check_changelog(sink, shape, self.diags)
        return sink

    def errors(self, source: Source | None, sink: Sink | None = None) -> ErrorPolicy:
        raw = self.data.get("errors") or {}
        policy = ErrorPolicy(
            tolerance=raw.get("tolerance", "none"),
            dlq_topic=_text(raw.get("deadletterqueue.topic.name")),
            dlq_path=_text(raw.get("deadletterqueue.path")),
            context_headers=bool(raw.get("deadletterqueue.context.headers.enable", False)),
            dlq_properties=tuple((k, Text(str(v))) for k, v in (raw.get("deadletterqueue.properties") or {}).items()),
            log=bool(raw.get("log.enable", False)),
            log_messages=bool(raw.get("log.include.messages", False)),
        )
        connectors = (SOURCES[source.connector] if source else None, SINKS[sink.connector] if sink else None)
        for problem in dead_letter_problems(policy, source, raw, *connectors):
            report = self.diags.warn if problem.warning else self.diags.error
            report(problem.code, problem.message, self.at("errors", *problem.path), problem.hint)
        return policy

    def record(self, raw: Any, path: tuple) -> TestRecord:
        locs = {k: self.at(*path, k) for k in raw} if isinstance(raw, dict) else {}
        return TestRecord(dict(raw) if isinstance(raw, dict) else {}, self.at(*path), locs)

    def tests(self, source: Source | None, errors: ErrorPolicy) -> tuple[TestCase, ...]:
        out = []
        for i, raw in enumerate(self.data.get("tests") or []):
            path = ("tests", i)
            given = tuple(self.record(r, path + ("given", j)) for j, r in enumerate(raw.get("given", [])))
            expect = raw.get("expect")
            allowed = SOURCES[source.connector].given_fields if source is not None else None
            if allowed is not None:
                for j, g in enumerate(given):
                    extra = sorted(set(g.fields) - allowed)
                    if extra:
                        self.diags.error("E601", f"a {source.connector} source reads only values; given records cannot set {', '.join(extra)}",
                                         g.locs[extra[0]], "files records get topic, partition, offset and timestamp from the files")
            dead = raw.get("dead_letters")
            if dead is not None and errors.tolerance != "all":
                self.diags.error("E602", f"test '{raw['name']}' expects dead letters, but errors.tolerance is not all",
                                 self.at(*path, "dead_letters"), "add `errors: {tolerance: all, ...}`, or use expect_error")
            out.append(TestCase(
                raw["name"], self.at(*path), given,
                tuple(self.record(r, path + ("expect", j)) for j, r in enumerate(expect)) if expect is not None else None,
                raw.get("expect_error"),
                tuple(self.record(r, path + ("dead_letters", j)) for j, r in enumerate(dead)) if dead is not None else None,
            ))
        return tuple(out)

    # ------------------------------------------------------------ all

    def build(self) -> Compiled | None:
        source = self.source()
        predicates = self.predicates()
        start = initial_shape(source) if source else None
        steps, shapes = self.steps(start, predicates) if start else ((), ())
        sink = self.sink(shapes[-1], source) if shapes and source else None
        errors = self.errors(source, sink)
        tests = self.tests(source, errors)
        if self.diags.errors or source is None or sink is None:
            return None
        d = self.data
        spark = d.get("spark") or {}
        pipeline = Pipeline(
            name=d["name"],
            file=self.doc.repo_file,
            sha256=self.doc.sha256,
            mode=d.get("mode", "streaming"),
            source=source,
            predicates=predicates,
            steps=steps,
            sink=sink,
            errors=errors,
            spark_conf=_options(spark.get("conf")),
            tests=tests,
            description=d.get("description", ""),
            spark_version=spark.get("version"),
            spark_version_loc=self.at("spark", "version") if "version" in spark else None,
        )
        return Compiled(pipeline, shapes)


def default_key_format(source: Source, shape: Shape) -> str | None:
    """The source's key format; json where the source had none and the chain set a key (SPEC section 7)."""
    if source.key_format == "none":
        return "json" if shape.key is not None else None
    return source.key_format


def source_bootstrap(source: Source) -> str | None:
    """The source's bootstrap servers as written, which a Kafka sink reuses."""
    servers = dict(source.properties).get("bootstrap.servers")
    return servers.raw if servers is not None else None


def initial_shape(source: Source) -> Shape:
    """The record shape right after the source (SPEC section 5)."""
    value = StructType(tuple(StructField(c.name, c.type) for c in source.columns))
    by_name = {c.name: c for c in source.columns}
    key_fields = [by_name[k] for k in source.key_fields if k in by_name]  # a missing one is reported already
    key = StructType(tuple(StructField(c.name, c.type) for c in key_fields)) if key_fields else None
    if key is None and source.key_format == "raw":
        key = BYTES  # a raw key without key fields is the key's bytes as they are
    virtual = frozenset(c.name for c in source.columns if c.virtual)
    persisted = tuple((c.metadata, c.name) for c in source.columns if c.metadata and not c.virtual)
    return Shape(key=key, value=value, virtual=virtual, persisted=persisted, changelog=source.changelog)
