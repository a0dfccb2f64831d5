"""Source and sink connectors, one table each."""

from __future__ import annotations

from .base import RECORD_COLUMNS, SinkConnector, SourceConnector
from .files import CONSOLE_SINK, FILES_SINK, FILES_SOURCE
from .kafka import KAFKA_SOURCE
from .kafka_sink import KAFKA_SINK

SOURCES: dict[str, SourceConnector] = {c.name: c for c in (FILES_SOURCE, KAFKA_SOURCE)}
SINKS: dict[str, SinkConnector] = {c.name: c for c in (FILES_SINK, CONSOLE_SINK, KAFKA_SINK)}

__all__ = ["RECORD_COLUMNS", "SINKS", "SOURCES", "SinkConnector", "SourceConnector"]
