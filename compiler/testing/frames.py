"""Spark frames of given rows, built without a Python worker where the Spark line allows it.

`createDataFrame` of a Python list pickles the rows through a Python worker process; on Spark 4.0+ with pyarrow
(pyspark[connect] brings it) the rows travel as one Arrow table straight to the JVM instead: nothing to crash
between Python and the JVM, and no worker to start. `local_session` keeps Spark from evaluating a chain over such
rows in its optimizer (ConvertToLocalRelation), so the chain still runs in tasks as it does on Kafka's rows.
"""

from __future__ import annotations

from typing import Any

from ..spark_versions import line_key, line_of

# what local_session excludes, so that a projection over given rows is executed, not folded at planning time
FOLDING_RULE = "org.apache.spark.sql.catalyst.optimizer.ConvertToLocalRelation"


def _arrow_table(rows: list[tuple], schema: Any) -> Any | None:
    """The rows as a pyarrow Table of the Spark schema's Arrow types; None before Spark 4.0 (createDataFrame
    takes no Table) or without pyarrow."""
    import pyspark

    if line_key(line_of(pyspark.__version__)) < (4, 0):
        return None
    try:
        import pyarrow as pa
        from pyspark.sql.pandas.types import to_arrow_schema
    except ImportError:
        return None
    import inspect

    # timestamps as UTC instants: 4.0 and 4.1 do so by default, 4.2 on is told the zone
    utc = {"timezone": "UTC"} if "timezone" in inspect.signature(to_arrow_schema).parameters else {}
    arrow = to_arrow_schema(schema, **utc)
    columns = list(zip(*rows)) if rows else [() for _ in arrow]
    arrays = [pa.array(list(column), type=field.type) for column, field in zip(columns, arrow)]
    return pa.Table.from_arrays(arrays, schema=arrow)


def rows_frame(spark: Any, rows: list[tuple], ddl: str) -> Any:
    """A DataFrame of `rows` (tuples in the order of `ddl`'s columns)."""
    from pyspark.sql.types import _parse_datatype_string

    schema = _parse_datatype_string(ddl)
    table = _arrow_table(rows, schema)
    return spark.createDataFrame(rows if table is None else table, schema)
