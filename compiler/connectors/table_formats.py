"""What the table formats (Delta Lake, Apache Iceberg) need of a job, source or sink alike: their Spark runtime per
Spark line, the session settings (SQL extensions, Delta's session catalog), and an Iceberg catalog's settings."""

from __future__ import annotations

from .. import spark_versions
from ..emit.render import py_literal, text_expr
from ..envrefs import Text

FORMATS = ("delta", "iceberg")
# The Spark session settings each format needs: its SQL extensions, and Delta's catalog for path tables
EXTENSIONS = {
    "delta": {
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
    },
    "iceberg": {"spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"},
}
ICEBERG_CATALOG = "org.apache.iceberg.spark.SparkCatalog"
DEFAULT_WAREHOUSE = "warehouse"


def runtimes(fmt: str) -> dict[str, str | None]:
    """Spark line -> the Maven coordinates of the table format's Spark runtime (spark_versions.LINES), or None."""
    return {name: getattr(line, fmt) for name, line in spark_versions.LINES.items()}


def job_runtimes(formats: tuple[str, ...]) -> dict[str, str | None]:
    """Spark line -> the runtimes of all the job's table formats (comma-separated, as spark.jars.packages takes
    them), or None where one of them has none."""
    if not formats:
        return {}
    table = {fmt: runtimes(fmt) for fmt in formats}
    return {
        line: ",".join(table[f][line] for f in formats) if all(table[f][line] for f in formats) else None
        for line in spark_versions.LINES
    }


def session_settings(formats: tuple[str, ...]) -> dict[str, str]:
    """The session settings of all the job's table formats: their SQL extensions together."""
    conf = {k: v for f in formats for k, v in EXTENSIONS[f].items() if k != "spark.sql.extensions"}
    if formats:
        conf = {"spark.sql.extensions": ",".join(EXTENSIONS[f]["spark.sql.extensions"] for f in formats), **conf}
    return conf


def line_problem(fmt: str, spark_version: str | None) -> str | None:
    """Why the table format has no runtime for the Spark line `spark.version` declares, or None."""
    if spark_version is None:
        return None
    line, table = spark_versions.line_of(spark_version), runtimes(fmt)
    if line in table and table[line] is None:
        lines = ", ".join(name for name, coordinate in table.items() if coordinate)
        return f"{fmt} publishes no Spark runtime for Spark {line}; Spark lines with one: {lines}"
    return None


def catalog(
    fmt: str, table: str | None, settings: tuple[tuple[str, Text], ...], path_arg: str
) -> tuple[str | None, dict[str, str]]:
    """Iceberg: the catalog's name and its Spark settings as Python expressions (values may hold ${env:...}); a
    hadoop catalog's warehouse is the job's `path_arg` argument when given (--sink-path, --source-path)."""
    if fmt != "iceberg" or not table:
        return None, {}
    raw = dict(settings)
    parts = table.split(".")
    name = raw["name"].literal if "name" in raw else (parts[0] if len(parts) == 3 else "local")
    prefix = f"spark.sql.catalog.{name}"
    conf = {
        prefix: py_literal(ICEBERG_CATALOG),
        f"{prefix}.type": text_expr(raw.get("type")) if "type" in raw else py_literal("hadoop"),
    }
    kind = raw["type"].literal if "type" in raw else "hadoop"
    if kind == "hadoop" or "warehouse" in raw:
        warehouse = text_expr(raw["warehouse"]) if "warehouse" in raw else py_literal(DEFAULT_WAREHOUSE)
        conf[f"{prefix}.warehouse"] = f"args.{path_arg} or location({warehouse})"
    if "uri" in raw:
        conf[f"{prefix}.uri"] = text_expr(raw["uri"])
    return name, conf


def catalog_table(fmt: str, table: str | None, settings: tuple[tuple[str, Text], ...]) -> str | None:
    """The catalog table as Spark names it (an Iceberg table's catalog first)."""
    if not table:
        return None
    name, _ = catalog(fmt, table, settings, "")
    parts = table.split(".")
    return table if name is None or len(parts) == 3 else f"{name}.{table}"


def catalog_expr(conf: dict[str, str]) -> str:
    """The catalog settings as a Python dict expression (values are expressions)."""
    return "{" + ", ".join(f"{py_literal(k)}: {v}" for k, v in conf.items()) + "}"
