"""A table sink's append (apply: append) outside a streaming query's own sink: a batch run, or foreachBatch."""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from .table_setup import _PREPARED


class TableAppend:
    """Appending rows (a part of `Table`)."""

    def apply_rows(self, rows: DataFrame, batch_id: int | None) -> None:
        """Append the rows (creating a missing table with them): every row inserted."""
        self.append(rows, batch_id, self.prepare(rows.sparkSession, rows))

    def append(self, rows: DataFrame, batch_id: int | None, creates: bool = False) -> None:
        """Append; a micro-batch replayed after a crash writes nothing (Delta: idempotent writes with txnAppId and
        txnVersion; Iceberg: the snapshot that carries the batch's id is found). `creates`: the table is missing
        and this append creates it, partitioned and with its properties."""
        writer = rows.write.format(self.format).mode("append").options(**self.options)
        if creates:
            writer = writer.options(**self.properties)
            writer = writer.partitionBy(*self.partition_by) if self.partition_by else writer
        if batch_id is not None:
            spark = rows.sparkSession
            app = self.commit_id(spark)
            if self.format == "delta":
                writer = writer.option("txnAppId", app).option("txnVersion", batch_id)
            else:
                marker = f"{app}:{batch_id}"
                snapshots = spark.read.table(f"{self.ref}.snapshots")
                if (
                    snapshots.where(F.col("summary").getItem("pipec.batch") == F.lit(marker))
                    .limit(1)
                    .count()
                ):
                    return
                writer = writer.option("snapshot-property.pipec.batch", marker)
        if self.name:
            writer.saveAsTable(self.name)
        else:
            writer.save(self.path)
        if creates:
            _PREPARED.add(self.ref)


# The job's `Table` applies rows with this part's class: the part its apply mode picks (tables.py)
TableApply = TableAppend
