"""The source: its columns (physical, metadata, header), its connector's rules, and the record shape it yields."""

from __future__ import annotations

from typing import Any

from ..connectors import SOURCES
from ..connectors.base import SourceConnector, castable
from ..connectors.config import read_config
from ..diagnostics import did_you_mean
from ..envrefs import Text
from ..model import Column, Source
from ..shape import Shape
from ..types.field_names import fold
from ..types.parser import TypeSyntaxError, parse_type
from ..types.sql import BYTES, HEADERS, SqlType, StructField, StructType
from .part import Part


class SourceBuilder(Part):
    """Builds the Source of one document."""

    def column_type(self, raw: Any, path: tuple) -> SqlType | None:
        text = str(raw)
        try:
            return parse_type(text)
        except TypeSyntaxError as exc:
            shown = text if len(text) <= 80 else text[:77] + "..."
            self.diags.error(
                "E200",
                f"bad type '{shown}': {exc.message}",
                self.doc.smap.text_at(path, exc.offset),
                "types are BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL(p,s), STRING, BYTES, DATE, "
                "TIMESTAMP(p), TIMESTAMP_LTZ(p), ARRAY<T>, MAP<K,V>, STRUCT<name T, ...>",
            )
            return None

    def columns(self, src: dict, connector: SourceConnector, fmt: str | None) -> tuple[Column, ...]:
        keys = connector.metadata_keys(fmt)
        out, seen, header_keys, header_paths = [], {}, {}, {}  # seen: folded name -> (name, where)
        headers_col = None
        for i, raw in enumerate(src.get("columns", [])):
            path = ("source", "columns", i)
            name = raw["name"]
            twin = seen.get(fold(name))
            if twin is not None:
                self.diags.error(
                    "E201",
                    f"duplicate column '{name}' (same as '{twin[0]}' at line {twin[1].line}; Spark ignores case)",
                    self.at(*path, "name"),
                    "rename one of the two columns, or remove this one",
                )
                continue
            seen[fold(name)] = (name, self.at(*path, "name"))
            meta = raw.get("metadata")
            meta = name if meta is True else meta
            declared = self.column_type(raw["type"], path + ("type",)) if "type" in raw else None
            if raw.get("headers"):
                if declared is not None and declared != HEADERS:
                    self.diags.error(
                        "E210",
                        f"a headers column must be of type {HEADERS.sql()}, not {declared.sql()}",
                        self.at(*path, "type"),
                        "remove the type (that is the default), or read one header with header: KEY",
                    )
                if headers_col:
                    self.diags.error(
                        "E211",
                        "at most one column may be defined as HEADERS",
                        self.at(*path, "headers"),
                        "keep one headers: true column; read single headers with header: KEY",
                    )
                headers_col = name
                out.append(Column(name, HEADERS, self.at(*path), headers=True))
                continue
            if "header" in raw:
                hkey = str(raw["header"])
                if declared is not None and not declared.is_binary:
                    self.diags.error(
                        "E212",
                        f"a header column must be of type BYTES, not {declared.sql()}",
                        self.at(*path, "type"),
                        "declare it BYTES and Cast it with bytes.order or bytes.string.encoding",
                    )
                if hkey in header_keys:
                    self.diags.error(
                        "E213",
                        f"two columns read header '{hkey}' ('{header_keys[hkey]}' and '{name}')",
                        self.at(*path, "header"),
                        "keep one of them; copy the value with a transform if you need it twice",
                    )
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
                    self.diags.error(
                        "E203",
                        f"column '{name}' needs a type",
                        self.at(*path),
                        f"add type: to the column, e.g. {{name: {name}, type: STRING}}",
                    )
                continue
            if raw.get("virtual"):
                self.diags.error(
                    "E204",
                    f"column '{name}' is not a metadata column, so it cannot be virtual",
                    self.at(*path, "virtual"),
                    "remove virtual:, or make it a metadata column with metadata: KEY",
                )
            out.append(Column(name, declared, self.at(*path)))
        if headers_col:
            for hkey, hpath in header_paths.items():
                self.diags.error(
                    "E214",
                    f"a HEADERS column ('{headers_col}') excludes header('...') columns such as '{header_keys[hkey]}'",
                    self.at(*hpath),
                    "read single headers from the HEADERS column, or drop it",
                )
        return tuple(out)

    def metadata_column(
        self,
        raw: dict,
        name: str,
        key: str,
        declared: SqlType | None,
        connector: SourceConnector,
        fmt: str | None,
        keys: dict,
        path: tuple,
    ) -> Column | None:
        spec = keys.get(key)
        if spec is None:
            self.diags.error(
                "E205",
                f"unknown metadata key '{key}' for a {connector.name} source",
                self.at(*path, "metadata"),
                connector.metadata_hint(key, fmt) or did_you_mean(key, keys) or f"keys: {', '.join(keys)}",
            )
            return None
        if spec.warning:
            self.diags.warn(
                "W206",
                spec.warning,
                self.at(*path, "metadata"),
                "remove the column unless a later Spark exposes the key",
            )
        virtual = bool(raw.get("virtual"))
        if not spec.writable and not virtual:
            self.diags.error(
                "E206",
                f"metadata key '{key}' is read-only, so column '{name}' must be declared virtual: true",
                self.at(*path),
                "add virtual: true (Flink: read-only columns must be declared VIRTUAL)",
            )
        declared = declared or spec.type
        if not castable(spec.type, declared):
            self.diags.error(
                "E207",
                f"metadata key '{key}' is {spec.type.sql()} and cannot be cast to {declared.sql()}",
                self.at(*path, "type"),
                f"declare it {spec.type.sql()} (or leave the type out), then Cast it in a step",
            )
        return Column(name, declared, self.at(*path), metadata=key, virtual=virtual)

    def build(self) -> Source | None:
        src = self.data["source"]
        connector = SOURCES.get(src["connector"])
        if connector is None:
            self.diags.error(
                "E107",
                f"the {src['connector']} source is not implemented yet",
                self.at("source", "connector"),
                f"available now: {', '.join(SOURCES)}",
            )
            return None
        fmt = connector.value_format(src)
        columns = connector.yields(fmt, self.columns(src, connector, fmt), self.where("source"))
        key = src.get("key", {})
        key_fields = tuple(key.get("fields", src.get("primary-key", [])))
        names = {c.name for c in columns if c.physical}
        key_path, what = (
            (("primary-key",), "primary-key column") if "primary-key" in src else (("key", "fields"), "key field")
        )
        for i, k in enumerate(key_fields):
            if k not in names:
                self.diags.error(
                    "E221",
                    f"{what} '{k}' is not a physical column; columns: {', '.join(sorted(names))}",
                    self.at("source", *key_path, i),
                    did_you_mean(k, names) or f"name one of: {', '.join(sorted(names))}",
                )
        if not any(c.physical for c in columns):
            self.diags.error(
                "E222",
                "the source declares no physical column",
                self.at("source"),
                "add at least one column with a name and a type",
            )
        source = Source(
            connector=src["connector"],
            loc=self.at("source"),
            config=read_config(connector.config, src, columns=columns),
            changelog=connector.yields_changelog(fmt, self.streaming)
            or bool(connector.changelog_key and src.get(connector.changelog_key)),
            registries=self.registries("source", src, {"key": key.get("format", "none"), "value": fmt}, one_topic(src)),
        )
        self.check_options("source", source.config.options, connector.options)
        connector.check(source, self.where("source"))
        return source


def one_topic(src: dict) -> Text | None:
    """The source's topic when it reads exactly one (no pattern), else None."""
    topics = src.get("topics", [])
    topics = [topics] if isinstance(topics, str) else topics
    return Text(str(topics[0])) if len(topics) == 1 and "topic-pattern" not in src else None


def initial_shape(source: Source) -> Shape:
    """The record shape right after the source (SPEC section 5)."""
    value = StructType(tuple(StructField(c.name, c.type) for c in source.config.columns))
    by_name = {c.name: c for c in source.config.columns}
    key_fields = [by_name[k] for k in source.config.key_fields if k in by_name]  # a missing one is reported already
    key = StructType(tuple(StructField(c.name, c.type) for c in key_fields)) if key_fields else None
    if key is None and source.config.key_format == "raw":
        key = BYTES  # a raw key without key fields is the key's bytes as they are
    virtual = frozenset(c.name for c in source.config.columns if c.virtual)
    persisted = tuple((c.metadata, c.name) for c in source.config.columns if c.metadata and not c.virtual)
    tombstones = source.changelog and SOURCES[source.connector].per_key_state  # an upsert-kafka changelog
    return Shape(
        key=key, value=value, virtual=virtual, persisted=persisted, changelog=source.changelog, tombstones=tombstones
    )
