"""Given test records -> the raw rows a job's `read_source` would return, grouped by micro-batch: Spark's Kafka rows
for a Kafka source (kafka_rows.py), and for a table source each given value as one row the table yields (its
columns, and a change feed's `_change_type`, `_commit_version`, `_commit_timestamp`), SPEC section 9. A files source's
records are written as files instead (runner.write_given_files)."""

from __future__ import annotations

import json
from typing import Any

from ..connectors import SOURCES
from ..connectors.table_source import CHANGE_COLUMNS, source_columns
from ..model import Source, TestCase
from .frames import rows_frame
from .kafka_rows import KAFKA_ROW_SCHEMA, _timestamp, kafka_rows


def table_columns(source: Source) -> dict[str, str]:
    """The raw columns of a table source: name -> Spark DDL type."""
    feed = source.config.change_feed
    return {**source_columns(source), **(CHANGE_COLUMNS if feed else {})}


def raw_schema(source: Source) -> str:
    """The raw rows' schema (Spark DDL)."""
    if not SOURCES[source.connector].reads_table:
        return KAFKA_ROW_SCHEMA
    return ", ".join("`" + n.replace("`", "``") + "` " + t for n, t in table_columns(source).items())


class GivenProblem(ValueError):
    """A given record the source could never yield (a column it does not read)."""


def _table_value(value: Any, columns: dict[str, str], line: int) -> str:
    """A given table row as JSON for from_json: timestamps as ISO-8601 (epoch milliseconds allowed)."""
    if not isinstance(value, dict):
        raise GivenProblem(f"line {line}: a given value of a table source is a row: a mapping of its columns")
    unknown = sorted(set(value) - set(columns))
    if unknown:
        raise GivenProblem(
            f"line {line}: the given value names {', '.join(unknown)}, which the source does not read "
            f"(it reads {', '.join(columns)})"
        )
    row = {k: _timestamp(v).isoformat() if columns[k] == "TIMESTAMP" and v is not None else v for k, v in value.items()}
    return json.dumps(row, default=str, ensure_ascii=False)


def given_frames(spark, source: Source, case: TestCase) -> list[tuple[int, Any]]:
    """(batch, the batch's raw rows as a DataFrame) in batch order."""
    if not SOURCES[source.connector].reads_table:
        rows = kafka_rows(source, list(case.given))
        return [
            (b, rows_frame(spark, [r for g, r in rows if g == b], KAFKA_ROW_SCHEMA))
            for b in sorted({b for b, _ in rows})
        ]
    from pyspark.sql import functions as F

    columns = table_columns(source)
    by_batch: dict[int, list[str]] = {}
    for rec in case.given:
        by_batch.setdefault(int(rec.fields.get("batch", 0)), []).append(
            _table_value(rec.fields.get("value"), columns, rec.loc.line)
        )
    frames = []
    for batch in sorted(by_batch):
        texts = rows_frame(spark, [(t,) for t in by_batch[batch]], "j STRING")
        parsed = texts.select(F.from_json("j", raw_schema(source), {"mode": "FAILFAST"}).alias("r")).select("r.*")
        frames.append((batch, parsed))
    return frames


def batch_rows(spark, source: Source, case: TestCase) -> Any:
    """All given records' raw rows as one DataFrame (a batch run)."""
    frames = [frame for _, frame in given_frames(spark, source, case)]
    if not frames:
        return spark.createDataFrame([], raw_schema(source))
    whole = frames[0]
    for frame in frames[1:]:
        whole = whole.unionByName(frame)
    return whole
