"""A files source read line by line (tolerance: all): each line numbered in its file, for its dead letter."""

from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from .job_names import FILE_LINES


def numbered_lines(lines: DataFrame) -> DataFrame:
    """Each line with its number in its file (`__line`, from 1), from the one read: the file's lines in read order,
    its blocks by their start and each block's lines by `monotonically_increasing_id` (a task reads a block from its
    start to its end). The lines Spark's reader of the format skips are skipped too (FILE_LINES): comment lines,
    blank lines and csv's header (the first line left)."""
    file = F.col("_metadata").getField("file_path")
    read_order = Window.partitionBy(file).orderBy(
        F.col("_metadata").getField("file_block_start"), F.col("__read")
    )
    lines = lines.withColumn("__read", F.monotonically_increasing_id())
    lines = lines.withColumn("__line", F.row_number().over(read_order).cast("BIGINT")).drop(
        "__read"
    )
    if FILE_LINES["comment"]:
        lines = lines.where(~F.col("value").startswith(FILE_LINES["comment"]))
    if FILE_LINES["skip_blank"]:
        lines = lines.where(~F.col("value").rlike("^[\\x00-\\x20]*$"))
    if FILE_LINES["header"]:
        lines = lines.withColumn("__header", F.min("__line").over(Window.partitionBy(file)))
        lines = lines.where(F.col("__line") > F.col("__header")).drop("__header")
    return lines
