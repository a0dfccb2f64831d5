"""Source and sink connectors, one table each."""

from __future__ import annotations

from .base import RECORD_COLUMNS, SinkConnector, SourceConnector
from .file_lines import FILES_SOURCE
from .files import CONSOLE_SINK, FILES_SINK
from .kafka import KAFKA_SOURCE
from .kafka_sink import KAFKA_SINK
from .table_source import DELTA_SOURCE, ICEBERG_SOURCE
from .tables import DELTA_SINK, ICEBERG_SINK
from .upsert_kafka import UPSERT_KAFKA_SINK, UPSERT_KAFKA_SOURCE

SOURCES: dict[str, SourceConnector] = {
    c.name: c for c in (KAFKA_SOURCE, UPSERT_KAFKA_SOURCE, FILES_SOURCE, DELTA_SOURCE, ICEBERG_SOURCE)
}
SINKS: dict[str, SinkConnector] = {
    c.name: c for c in (KAFKA_SINK, UPSERT_KAFKA_SINK, FILES_SINK, CONSOLE_SINK, DELTA_SINK, ICEBERG_SINK)
}


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
