"""Source and sink connectors, one table each."""

from __future__ import annotations

from .base import RECORD_COLUMNS, SinkConnector, SourceConnector
from .files import CONSOLE_SINK, FILES_SINK, FILES_SOURCE
from .kafka import KAFKA_SOURCE
from .kafka_sink import KAFKA_SINK
from .upsert_kafka import UPSERT_KAFKA_SINK, UPSERT_KAFKA_SOURCE

SOURCES: dict[str, SourceConnector] = {c.name: c for c in (FILES_SOURCE, KAFKA_SOURCE, UPSERT_KAFKA_SOURCE)}
SINKS: dict[str, SinkConnector] = {c.name: c for c in (FILES_SINK, CONSOLE_SINK, KAFKA_SINK, UPSERT_KAFKA_SINK)}

__all__ = ["RECORD_COLUMNS", "SINKS", "SOURCES", "SinkConnector", "SourceConnector"]
