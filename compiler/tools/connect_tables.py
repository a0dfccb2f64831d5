"""Lakehouse table sink connectors in `pipec import connect`: Apache Iceberg's sink (and Tabular's, which it came
from) and Confluent's Databricks Delta Lake sink become pipec's `iceberg` and `delta` table sinks.

What maps, from each connector's own config keys:
- the one table the pipeline writes (`iceberg.tables`; Delta's `delta.lake.topic2table.map`, or
  `delta.lake.table.format` with `${topic}` for the single topic). A connector that fans out to several tables
  (several tables, dynamic routing, `${topic}` over several topics) is refused at its key: a pipeline writes one
  table, so each table is imported from a config of its own;
- upsert (Tabular's `iceberg.tables.upsert-mode-enabled`, or a Debezium changelog the chain flattens) with the id
  columns as the primary key; Apache's connector and Confluent's append;
- the Iceberg catalog (`iceberg.catalog` name, type or class, uri, warehouse; its other properties and
  `iceberg.hadoop.*` as the Spark settings the Iceberg catalog reads), partitioning, schema evolution, the
  properties of a created table; Confluent's added `partition` column as an InsertField step.
The rest (commit coordination and intervals, the Databricks connection, staging) is a comment saying what pipec
does instead, with a warning where the pipeline behaves differently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .connect_chain import connect_boolean
from .connect_config import hide_secret
from .yaml_text import YamlWriter

APACHE_ICEBERG = "org.apache.iceberg.connect.IcebergSinkConnector"
TABULAR_ICEBERG = "io.tabular.iceberg.connect.IcebergSinkConnector"
DATABRICKS_DELTA = "io.confluent.connect.databricks.deltalake.DatabricksDeltaLakeSinkConnector"
# connector class -> the TableImport method that reads its config
TABLE_SINKS = {APACHE_ICEBERG: "iceberg_plan", TABULAR_ICEBERG: "iceberg_plan", DATABRICKS_DELTA: "delta_plan"}
# Tabular's early releases spelt some keys in camelCase or with dots; each group: the spellings, newest first.
ICEBERG_KEYS = {
    "dynamic": ("iceberg.tables.dynamic-enabled", "iceberg.tables.dynamic.enabled"),
    "route": ("iceberg.tables.route-field", "iceberg.tables.routeField"),
    "upsert": ("iceberg.tables.upsert-mode-enabled", "iceberg.tables.upsertModeEnabled"),
    "cdc": ("iceberg.tables.cdc-field", "iceberg.tables.cdcField"),
}
CATALOG_CLASSES = {
    "org.apache.iceberg.rest.RESTCatalog": "rest",
    "org.apache.iceberg.hive.HiveCatalog": "hive",
    "org.apache.iceberg.hadoop.HadoopCatalog": "hadoop",
}
CATALOG_TYPES = ("hadoop", "hive", "rest")
# Settings pipec has no counterpart for, by key prefix: why, as a comment above them (none of them warns).
NOTES = (
    (
        ("iceberg.control.", "iceberg.coordinator.", "iceberg.connect.", "flush.interval.ms"),
        (
            "commits: the job commits one table version per micro-batch, exactly once through its checkpoint (no control",
            'topic, coordinator or commit interval; `trigger: "processing-time: <interval>"` sets how often batches run):',
        ),
    ),
    (
        ("iceberg.tables.auto-create-enabled", "delta.lake.table.auto.create"),
        (
            "table creation: the job creates a missing table at start (the sink's columns and partition-by) and checks an",
            "existing one:",
        ),
    ),
    (
        ("iceberg.tables.schema-", "iceberg.tables.replace-null-with-default", "iceberg.tables.write-props."),
        ("column mapping and writer settings: the table's columns are the pipeline's, by name and type:",),
    ),
    (
        ("delta.lake.host.name", "delta.lake.http.path", "delta.lake.token", "staging.", "delta.lake.tables.location"),
        (
            "Databricks: the job writes the table through Spark's Delta writer (no SQL warehouse connection, no S3 staging):",
        ),
    ),
    (("iceberg.kafka.",), ("the control topic's Kafka clients: there is no control topic:",)),
)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(slots=True)
class TablePlan:
    connector: str  # delta | iceberg
    table: str
    apply: str = "append"
    primary_key: list[str] = field(default_factory=list)
    partition_by: list[str] = field(default_factory=list)
    catalog: list[tuple[str, str]] = field(default_factory=list)
    evolution: str | None = None
    properties: list[tuple[str, str]] = field(default_factory=list)
    spark_conf: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # comment lines above the sink's keys
    partition_column: str | None = None  # a column the connector adds with the record's Kafka partition

    @property
    def columns(self) -> list[str]:
        """The columns the table names: the source must declare them."""
        return list(dict.fromkeys(self.primary_key + self.partition_by))


def _names(text: str | None) -> list[str]:
    return [n for n in re.split(r"\s*,\s*", (text or "").strip()) if n]


class TableImport:
    """The Importer's table sink methods; they read the Importer's config (`c`), `take`, `warn`, `refuse`,
    `placeholder`, `flat` and `key_sample`."""

    def table_plan(self) -> TablePlan | None:
        reader = TABLE_SINKS.get(self.c.get("connector.class", ""))
        if reader is None:
            return None
        plan = getattr(self, reader)()
        if self.flat is not None and plan.apply == "append":
            self.warn(
                f"transforms.{self.flat.alias}.type",
                "the connector appended Debezium's flattened "
                "rows; pipec reads the change events as a changelog and upserts them into the table (a delete deletes)",
                "for a row per change instead, write apply: append with envelope: true (each row's op)",
            )
            plan.apply = "upsert"
        if plan.apply != "upsert" and plan.primary_key:
            plan.notes.append(
                f"id columns {', '.join(plan.primary_key)}: the connector appended; they identify rows only "
                "when the table applies changes (apply: upsert)"
            )
            plan.primary_key = []
        if plan.apply == "upsert" and not plan.primary_key:
            keys = [n for n, _ in self.key_sample.columns] if self.key_sample else []
            plan.primary_key = keys or [
                self.placeholder(
                    "id_column",
                    "the table's primary-key column(s), which upsert keys by (or import again with --key-sample FILE)",
                )
            ]
        return plan

    def table_key(self, group: str) -> str | None:
        """The Iceberg key of a group that the config spells (any of its spellings), taken."""
        key = next((k for k in ICEBERG_KEYS[group] if k in self.c.entries), None)
        if key is not None:
            self.take(key)
        return key

    def iceberg_plan(self) -> TablePlan:
        cls = self.c.get("connector.class", "")
        tables = _names(self.take("iceberg.tables"))
        dynamic, route = self.table_key("dynamic"), self.table_key("route")
        if dynamic and connect_boolean(self.c.get(dynamic) or "") is True:
            self.refuse(
                dynamic,
                "the connector routes each record to the table its field names (dynamic routing); a pipec "
                "pipeline writes one table",
                "import one config per table, each with iceberg.tables=<its table>",
            )
        elif len(tables) > 1:
            self.refuse(
                "iceberg.tables",
                f"the connector writes {len(tables)} tables ({', '.join(tables)}); a pipec pipeline writes one table",
                "import one config per table, each with iceberg.tables=<its table> and the topics that feed it",
            )
        elif not tables:
            self.refuse(
                "connector.class",
                "the config names no table (iceberg.tables)",
                "set iceberg.tables=<namespace>.<table>",
            )
        table = tables[0] if tables else "table"
        if route and len(tables) == 1:
            self.warn(
                route,
                f"{route}: the connector wrote only records whose field matches the table's route-regex; pipec "
                "writes every record",
                "drop the others with a Filter step before the sink",
            )
        per_table = f"iceberg.table.{table}."
        default_ids = self.take("iceberg.tables.default-id-columns")
        ids = self.take(per_table + "id-columns") or default_ids
        plan = TablePlan("iceberg", table, primary_key=_names(ids))
        upsert, cdc = self.table_key("upsert"), self.table_key("cdc")
        upserts = upsert is not None and connect_boolean(self.c.get(upsert) or "") is True
        if cls == APACHE_ICEBERG and (upserts or cdc):
            self.warn(
                upsert if upserts else cdc,
                f"{APACHE_ICEBERG} has no upsert mode or cdc-field (Tabular's connector had "
                "them): it appends every record, and so does this pipeline",
                "for a table of each key's newest row, write apply: upsert with primary-key (the id columns)",
            )
        elif upserts:
            plan.apply = "upsert"
        if cdc and cls != APACHE_ICEBERG:
            self.warn(
                cdc,
                f"{cdc}: pipec takes a row's change (insert, update, delete) from a changelog source format "
                "(debezium-json, ...), not from a field; rows whose field says D are upserted, not deleted",
                "read the topic's change events as a changelog (Debezium's ExtractNewRecordState imports so)",
            )
        default_partition = self.take("iceberg.tables.default-partition-by")
        partition_key = (
            per_table + "partition-by"
            if self.take(per_table + "partition-by")
            else "iceberg.tables.default-partition-by"
        )
        plan.partition_by = self.partition_columns(self.c.get(partition_key) or default_partition, partition_key)
        for key in (per_table + "commit-branch", "iceberg.tables.default-commit-branch"):
            if self.take(key):
                self.warn(
                    key,
                    f"{key}: pipec commits to the table's main branch",
                    "leave it out, or write to a branch by hand",
                )
        if connect_boolean(self.take("iceberg.tables.evolve-schema-enabled") or "") is True:
            plan.evolution = "add-columns"
        for e in self.c.under("iceberg.tables.auto-create-props."):
            self.take(e.key)
            plan.properties.append((e.key[len("iceberg.tables.auto-create-props.") :], e.value.strip()))
        for e in self.c.under("iceberg.table."):  # route-regex and other per-table keys
            if e.key.startswith(per_table) and e.key.endswith(("route-regex", "routeRegex")):
                self.take(e.key)
        self.iceberg_catalog(plan)
        return plan

    def partition_columns(self, text: str | None, key: str) -> list[str]:
        fields = [f.strip() for f in re.split(r",(?![^()]*\))", text or "") if f.strip()]
        if any(not _NAME.fullmatch(f) for f in fields):
            self.warn(
                key,
                f"{key}={text}: pipec partitions by columns, not by Iceberg transforms such as hours(ts) or "
                "bucket(16, id); the table is partitioned by the plain columns only",
                "add the derived column with a transform step, or partition the table when you create it",
            )
        return [f for f in fields if _NAME.fullmatch(f)]

    def iceberg_catalog(self, plan: TablePlan) -> None:
        """`iceberg.catalog` (a name; in Tabular's first releases a class) and `iceberg.catalog.*`."""
        named = self.take("iceberg.catalog") or "iceberg"
        impl = self.take("iceberg.catalog.catalog-impl") or (named if "." in named else None)
        name = "iceberg" if "." in named else named
        kind = (self.take("iceberg.catalog.type") or "").strip().lower() or CATALOG_CLASSES.get(
            impl or "", "hive" if not impl else ""
        )
        catalog = [("name", name)]
        if kind in CATALOG_TYPES:
            catalog.append(("type", kind))
            for key in ("uri", "warehouse"):
                if self.take(f"iceberg.catalog.{key}"):
                    catalog.append((key, self.c.get(f"iceberg.catalog.{key}")))
            if not self.c.get("iceberg.catalog.type") and not impl:
                plan.notes.append("catalog: no iceberg.catalog.type or catalog-impl: Iceberg's default, hive")
        else:
            where = (
                "iceberg.catalog.type"
                if self.c.get("iceberg.catalog.type")
                else "iceberg.catalog.catalog-impl"
                if self.c.get("iceberg.catalog.catalog-impl")
                else "iceberg.catalog"
            )
            self.warn(
                where,
                f"catalog {kind or impl}: pipec's iceberg sink connects to a hadoop, hive or rest catalog",
                "Glue, Nessie and others serve the Iceberg REST protocol: give its URI (type rest)",
            )
            catalog += [
                ("type", "rest"),
                ("uri", self.placeholder("catalog_uri", f"the REST URI of the {kind or impl} catalog")),
            ]
            if self.take("iceberg.catalog.warehouse"):
                catalog.append(("warehouse", self.c.get("iceberg.catalog.warehouse")))
        plan.catalog = catalog
        hidden = []
        for prefix, spark in (("iceberg.catalog.", f"spark.sql.catalog.{name}."), ("iceberg.hadoop.", "spark.hadoop.")):
            for e in self.c.under(prefix):
                if e.key in self.used:
                    continue
                self.take(e.key)
                if hide_secret(e.key, e.value) != e.value:
                    hidden.append(e.key)
                else:
                    plan.spark_conf.append((spark + e.key[len(prefix) :], e.value.strip()))
        if hidden:
            plan.notes += [
                f"catalog secrets, not written here (the job's Spark configuration takes them as "
                f"spark.sql.catalog.{name}.<property>):",
                *[f"  {k}=[hidden]" for k in hidden],
            ]
            self.warn(
                hidden[0],
                f"{', '.join(hidden)}: secrets are not written into the pipeline",
                f"give them to the job as spark.sql.catalog.{name}.<property> where it starts (spark-submit --conf, "
                "from your secret store)",
            )

    def delta_plan(self) -> TablePlan:
        topics, pattern = _names(self.c.get("topics")), self.c.get("topics.regex")
        mapped = dict(pair.split(":", 1) for pair in _names(self.take("delta.lake.topic2table.map")) if ":" in pair)
        mapped = {t.strip(): v.strip() for t, v in mapped.items()}
        fmt = self.take("delta.lake.table.format") or "${topic}"
        tables = sorted({mapped.get(t) or fmt.replace("${topic}", t) for t in topics}) or sorted(set(mapped.values()))
        per_topic = "${topic}" in fmt and (bool(pattern) or len([t for t in topics if t not in mapped]) > 1)
        key = next(
            (
                k
                for k in ("delta.lake.topic2table.map", "delta.lake.table.format", "topics", "topics.regex")
                if k in self.c.entries and (k != "delta.lake.topic2table.map" or not per_topic)
            ),
            "connector.class",
        )
        if per_topic:
            self.refuse(
                key,
                "the connector writes one table per topic ("
                + (f"the topics of {pattern}" if pattern else ", ".join(tables))
                + "); a pipec pipeline writes one table",
                "import one config per topic, or set delta.lake.table.format to one table name",
            )
        elif len(tables) > 1:
            self.refuse(
                key,
                f"the connector writes {len(tables)} tables ({', '.join(tables)}); a pipec pipeline writes one table",
                "import one config per table, with the topics that feed it",
            )
        table = tables[0] if tables else "table"
        clean = ".".join(re.sub(r"\W", "_", part) or "_" for part in table.split("."))
        if clean != table or not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*){0,2}", clean):
            clean = (
                clean
                if re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*){0,2}", clean)
                else self.placeholder("table", f"a table name (the connector's was {table})")
            )
            self.warn(
                key,
                f"table {table}: written as {clean} (a table name is letters, digits and _, in at most three parts)",
                "rename it in the sink if Databricks names it otherwise",
            )
        plan = TablePlan("delta", clean, partition_column="partition")
        partitions = dict(
            pair.split(":", 1) for pair in _names(self.take("delta.lake.table2partition.map")) if ":" in pair
        )
        if table in partitions:
            plan.partition_by = self.partition_columns(partitions[table], "delta.lake.table2partition.map")
        if self.c.get("delta.lake.host.name"):
            self.warn(
                "delta.lake.host.name",
                "the connector wrote through a Databricks SQL warehouse; the job writes the "
                f"Delta table {clean} itself, in the catalog of the Spark session it runs in",
                "run the job on Databricks (or where the table's metastore is), or give the sink a path instead of table",
            )
        return plan

    def table_steps(self, y: YamlWriter) -> None:
        """Confluent's Delta Lake sink writes the record's Kafka partition into the table's `partition` column."""
        column = self.table.partition_column if self.table else None
        if column:
            y.item_comment(
                f"the Databricks Delta Lake sink adds each record's Kafka partition as the column {column} (INT)"
            )
            y.item([("name", "add_partition"), ("type", "InsertField$Value"), ("partition.field", column)])

    def write_table_sink(self, y: YamlWriter) -> None:
        plan = self.table
        y.comment(*plan.notes)
        y.pair("connector", plan.connector)
        y.pair("table", plan.table)
        if plan.catalog:
            y.flow("catalog", plan.catalog)
        y.pair("apply", plan.apply)
        if plan.primary_key:
            y.flow_list("primary-key", plan.primary_key)
        if plan.partition_by:
            y.flow_list("partition-by", plan.partition_by)
        if plan.evolution:
            y.pair("schema-evolution", plan.evolution)
        if plan.properties:
            y.flow("table-properties", plan.properties)
        for prefixes, why in NOTES:
            entries = [e for e in self.c.entries.values() if e.key.startswith(prefixes) and e.key not in self.used]
            if entries:
                y.comment(*why, *[f"  {e.key}={hide_secret(e.key, e.value)}" for e in entries])
                self.used.update(e.key for e in entries)

    def write_spark_conf(self, y: YamlWriter) -> None:
        """The Iceberg catalog's other properties (`iceberg.catalog.*`) and `iceberg.hadoop.*`, as Spark reads them."""
        if self.table and self.table.spark_conf:
            y.comment(
                "the connector's iceberg.catalog.* and iceberg.hadoop.* properties, as the Spark catalog reads them"
            )
            y.key("spark")
            with y.indent():
                y.mapping("conf", self.table.spark_conf)
