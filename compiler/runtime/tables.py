"""A table sink (Delta Lake, Iceberg): the table created or checked, and rows applied as append, upsert (SCD type 1)
or history (SCD type 2) through MERGE, exactly once.

Driver-side orchestration only: every row is read, compared and written by native DataFrame and SQL operations.
Bookkeeping columns: `__SEQUENCE` (the sequence of the change a row or version holds: the sequence-by column, or the
record's timestamp, partition and offset), history's `__START_AT`/`__END_AT`; the table's companion
`<table>__tombstones` remembers deleted keys with their delete's sequence, so an older change never revives one
(docs/tables.md).
"""

from __future__ import annotations

from pyspark.sql import DataFrame

from .table_append import (
    TableApply,  # or table_upsert's, or table_history's: the part of the job's apply mode
)
from .table_setup import TableSetup
from .table_sql import quoted


class Table(TableSetup, TableApply):
    """A table sink: where the table is, how rows apply (append, upsert or history: the job carries its mode's
    part), and its columns (name -> DDL type, pipec's `__` bookkeeping columns last)."""

    def __init__(
        self,
        format,
        path,
        name,
        apply,
        key,
        sequence_by,
        partition_by,
        properties,
        evolution,
        options,
        catalog,
        columns,
        checkpoint,
    ):
        self.format, self.path, self.name, self.apply = format, path, name, apply
        self.key, self.sequence_by, self.partition_by = key, sequence_by, partition_by
        self.properties, self.evolution, self.options = properties, evolution, options
        self.catalog, self.columns, self.checkpoint = catalog, columns, checkpoint
        self.ref = name or f"{format}.{quoted(path)}"
        self.tombstones = (
            (name + "__tombstones")
            if name
            else f"{format}.{quoted(path.rstrip('/') + '__tombstones')}"
        )
        self.values = [c for c in columns if not c.startswith("__")]

    def write(self, rows: DataFrame, batch_id: int | None):
        """One batch (or micro-batch) of rows into the table; None (no streaming query)."""
        self.apply_rows(rows, batch_id)
        return None
