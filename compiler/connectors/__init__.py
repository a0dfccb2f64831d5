"""Source and sink connectors, one table each."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping, MutableMapping

from .base import RECORD_COLUMNS, SinkConnector, SourceConnector

# name -> (this package's module that defines the connector, its name there), in the order the registry lists them
_SOURCES = {
    "kafka": ("kafka", "KAFKA_SOURCE"),
    "upsert-kafka": ("upsert_kafka", "UPSERT_KAFKA_SOURCE"),
    "files": ("file_lines", "FILES_SOURCE"),
    "delta": ("table_source", "DELTA_SOURCE"),
    "iceberg": ("table_source", "ICEBERG_SOURCE"),
}
_SINKS = {
    "kafka": ("kafka_sink", "KAFKA_SINK"),
    "upsert-kafka": ("upsert_kafka", "UPSERT_KAFKA_SINK"),
    "files": ("files", "FILES_SINK"),
    "console": ("files", "CONSOLE_SINK"),
    "delta": ("tables", "DELTA_SINK"),
    "iceberg": ("tables", "ICEBERG_SINK"),
}


class Connectors(MutableMapping):
    """Connectors by name, each one's module imported when it is first asked for: a compile imports only the
    connectors its pipelines name (tests/unit/test_connector_registry.py). Setting a name registers a connector."""

    def __init__(self, where: dict[str, tuple[str, str]]) -> None:
        self._where: dict[str, tuple[str, str] | None] = dict(where)
        self._loaded: dict = {}

    def __setitem__(self, name: str, connector) -> None:
        self._where[name], self._loaded[name] = None, connector

    def __delitem__(self, name: str) -> None:
        del self._where[name]
        self._loaded.pop(name, None)

    def __getitem__(self, name: str):
        if name not in self._loaded:
            module, attribute = self._where[name]
            self._loaded[name] = getattr(importlib.import_module(f"{__name__}.{module}"), attribute)
        return self._loaded[name]

    def __contains__(self, name: object) -> bool:
        return name in self._where

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


SOURCES: Mapping[str, SourceConnector] = Connectors(_SOURCES)
SINKS: Mapping[str, SinkConnector] = Connectors(_SINKS)


def table_formats_of(source, sink) -> tuple[str, ...]:
    """The table formats a pipeline reads or writes (delta, iceberg), each once, the source's first."""
    used = []
    if source is not None and SOURCES[source.connector].reads_table:
        used.append(source.connector)
    if sink is not None and SINKS[sink.connector].writes_table:
        used.append(sink.connector)
    return tuple(dict.fromkeys(used))


def schema_hint(data: object, path: tuple) -> str | None:
    """The source connector's better hint for a schema error at `path`, or None."""
    source = data.get("source") if isinstance(data, dict) else None
    connector = (
        SOURCES.get(source.get("connector"))
        if isinstance(source, dict) and isinstance(source.get("connector"), str)
        else None
    )
    return connector.schema_hints.get(tuple(path)) if connector else None


__all__ = ["RECORD_COLUMNS", "SINKS", "SOURCES", "SinkConnector", "SourceConnector", "schema_hint", "table_formats_of"]
