"""`pipec import connect` of the sink connectors that write lakehouse tables: Apache Iceberg's (and Tabular's) and
Confluent's Databricks Delta Lake sink become `iceberg` and `delta` table sinks.

Golden cases (tests/tools/import_tables/): a connector config in (with `<case>.sample.json` as --value-sample when
there is one), the exit code, the diagnostics and the YAML out, compared exactly with `<case>.expected`
(`PIPEC_UPDATE_GOLDEN=1` rewrites them); every imported YAML then validates with `pipec validate`. Refusals are
located at the config's key and write nothing; no secret reaches the YAML or the terminal. The last test runs
records through an imported Delta pipeline's own job into a real Delta table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.tools.gitrepo import Repo

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).parent / "import_tables"
UPDATE = os.environ.get("PIPEC_UPDATE_GOLDEN") == "1"
SECRETS = (
    "s3-secret-value",
    "client:catalog-secret",
    "AKIAEXAMPLEKEYID",
    "dapi-secret-token",
    "AKIASTAGINGKEYID",
    "staging-secret-value",
)
CONFIGS = sorted(
    p for p in CASES.iterdir() if p.suffix in (".json", ".properties") and not p.name.endswith(".sample.json")
)


def run_import(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "pipec", "import", "connect", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def imported(config: Path) -> subprocess.CompletedProcess:
    sample = config.with_name(config.stem + ".sample.json")
    return run_import(CASES, config.name, *(["--value-sample", sample.name] if sample.exists() else []))


@pytest.mark.parametrize("config", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_golden(config, tmp_path):
    proc = imported(config)
    got = f"exit: {proc.returncode}\n--- diagnostics\n{proc.stderr}--- yaml\n{proc.stdout}"
    expected = config.with_suffix(".expected")
    if UPDATE:
        expected.write_text(got, encoding="utf-8")
    assert got == expected.read_text(encoding="utf-8")
    assert proc.returncode in (0, 1), proc.stderr  # imported (1: placeholders to fill in)
    assert not [s for s in SECRETS if s in proc.stdout or s in proc.stderr]
    (tmp_path / "p.yaml").write_text(proc.stdout, encoding="utf-8")
    check = subprocess.run(
        [sys.executable, "-m", "pipec", "validate", "p.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert check.returncode == 0, check.stdout + check.stderr


def _load(name: str):
    config = next(p for p in CONFIGS if p.stem == name)
    return yaml.safe_load(imported(config).stdout)


def test_what_the_goldens_say():
    """The mappings the goldens hold, spelled out."""
    tabular = _load("iceberg_tabular_upsert")
    assert tabular["sink"] == {
        "connector": "iceberg",
        "table": "db.events",
        "catalog": {
            "name": "lake",
            "type": "rest",
            "uri": "https://catalog.example.com:8181",
            "warehouse": "s3://bucket/warehouse",
        },
        "apply": "upsert",
        "primary-key": ["event_id"],
        "partition-by": ["country"],
        "schema-evolution": "add-columns",
        "table-properties": {"format-version": "2"},
        "checkpoint": "${env:CHECKPOINT_DIR:-checkpoints}/events_sink",
    }
    assert tabular["spark"]["conf"] == {
        "spark.sql.catalog.lake.io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
        "spark.sql.catalog.lake.s3.endpoint": "http://minio:9000",
    }
    apache = _load("iceberg_apache_hadoop")
    assert apache["sink"]["apply"] == "append" and "primary-key" not in apache["sink"]  # Apache's connector appends
    assert apache["sink"]["catalog"] == {"name": "local", "type": "hadoop", "warehouse": "/data/warehouse"}
    assert apache["sink"]["partition-by"] == ["status"] and apache["spark"]["conf"] == {
        "spark.hadoop.fs.defaultFS": "file:///"
    }
    debezium = _load("iceberg_debezium_glue")
    assert debezium["source"]["value"]["format"] == "debezium-json"
    assert debezium["sink"]["apply"] == "upsert" and debezium["sink"]["primary-key"] == ["id"]
    assert debezium["sink"]["catalog"]["uri"] == "TODO_catalog_uri"  # Glue: its REST endpoint, to fill in
    delta = _load("delta_databricks")
    assert delta["sink"] == {
        "connector": "delta",
        "table": "bronze_orders",
        "apply": "append",
        "partition-by": ["country"],
        "checkpoint": "${env:CHECKPOINT_DIR:-checkpoints}/orders_delta",
    }
    assert delta["transforms"][-1] == {
        "name": "add_partition",
        "type": "InsertField$Value",
        "partition.field": "partition",
    }
    assert delta["errors"]["deadletterqueue.topic.name"] == "orders-dlq"


ICEBERG = {
    "connector.class": "org.apache.iceberg.connect.IcebergSinkConnector",
    "topics": "events",
    "iceberg.catalog.type": "rest",
    "iceberg.catalog.uri": "http://catalog:8181",
}
DELTA = {
    "connector.class": "io.confluent.connect.databricks.deltalake.DatabricksDeltaLakeSinkConnector",
    "topics": "orders",
}


@pytest.mark.parametrize(
    "config, key, message",
    [
        (
            {**ICEBERG, "iceberg.tables": "db.a,db.b"},
            "iceberg.tables",
            "the connector writes 2 tables (db.a, db.b); a pipec pipeline writes one table",
        ),
        (
            {**ICEBERG, "iceberg.tables.dynamic-enabled": "true", "iceberg.tables.route-field": "db_table"},
            "iceberg.tables.dynamic-enabled",
            "the connector routes each record to the table its field names (dynamic routing)",
        ),
        (ICEBERG, "connector.class", "the config names no table (iceberg.tables)"),
        ({**DELTA, "topics": "orders,refunds"}, "topics", "the connector writes one table per topic (orders, refunds)"),
        (
            {**DELTA, "topics": "", "topics.regex": "shop\\..*", "delta.lake.table.format": "raw_${topic}"},
            "delta.lake.table.format",
            "the connector writes one table per topic (the topics of shop\\..*)",
        ),
        (
            {**DELTA, "topics": "orders,refunds", "delta.lake.topic2table.map": "orders:o,refunds:r"},
            "delta.lake.topic2table.map",
            "the connector writes 2 tables (o, r); a pipec pipeline writes one table",
        ),
    ],
)
def test_a_connector_writing_several_tables_is_refused_at_its_key(tmp_path, config, key, message):
    config = {k: v for k, v in config.items() if v != "" or k != "topics"}
    text = json.dumps({"name": "fan-out", "config": config}, indent=2)
    (tmp_path / "c.json").write_text(text, encoding="utf-8")
    proc = run_import(tmp_path, "c.json", "--out", "pipelines")
    assert proc.returncode == 2, proc.stderr
    line = next(i for i, row in enumerate(text.splitlines(), 1) if f'"{key}"' in row)
    assert f"c.json:{line}:5: error[I100]: {message}" in proc.stderr, proc.stderr
    assert "hint: import one config per" in proc.stderr or "hint: set iceberg.tables" in proc.stderr
    assert not (tmp_path / "pipelines").exists()


def test_one_mapped_topic_gives_its_table_and_a_topic_name_becomes_a_table_name(tmp_path):
    (tmp_path / "m.properties").write_text(
        "name=m\nconnector.class="
        + DELTA["connector.class"]
        + "\ntopics=orders-v1\ndelta.lake.topic2table.map=orders-v1:sales.orders\n"
    )
    proc = run_import(tmp_path, "m.properties", "--allow-todo")
    assert yaml.safe_load(proc.stdout)["sink"]["table"] == "sales.orders"
    (tmp_path / "t.properties").write_text(
        "name=t\nconnector.class=" + DELTA["connector.class"] + "\ntopics=orders-v1\n"
    )
    proc = run_import(tmp_path, "t.properties", "--allow-todo")
    assert yaml.safe_load(proc.stdout)["sink"]["table"] == "orders_v1"
    assert "t.properties:3:1: warning[I200]: table orders-v1: written as orders_v1" in proc.stderr


def test_tabular_cdc_field_and_route_field_warn(tmp_path):
    config = {
        **ICEBERG,
        "connector.class": "io.tabular.iceberg.connect.IcebergSinkConnector",
        "iceberg.tables": "db.t",
        "iceberg.tables.cdc-field": "_cdc_op",
        "iceberg.tables.route-field": "kind",
        "iceberg.table.db.t.route-regex": "order.*",
    }
    (tmp_path / "c.json").write_text(json.dumps({"name": "cdc", "config": config}, indent=2), encoding="utf-8")
    proc = run_import(tmp_path, "c.json", "--allow-todo")
    assert proc.returncode == 0, proc.stderr
    assert (
        "warning[I200]: iceberg.tables.cdc-field: pipec takes a row's change (insert, update, delete) from a changelog"
        in proc.stderr
    )
    assert (
        "warning[I200]: iceberg.tables.route-field: the connector wrote only records whose field matches" in proc.stderr
    )
    assert yaml.safe_load(proc.stdout)["sink"]["apply"] == "append"


@pytest.mark.spark
def test_records_through_an_imported_delta_pipeline(tmp_path, check_pipeline_records):
    """The imported Databricks Delta Lake sink's job writes a real Delta table: each record's value columns and its
    Kafka partition (the connector's added column), appended."""
    repo = Repo(tmp_path / "r")
    config = (CASES / "delta_databricks.properties").read_text(encoding="utf-8")
    repo.write("orders.properties", config.replace("delta.lake.table2partition.map=bronze_orders:country\n", ""))
    repo.write("sample.json", json.dumps({"order_id": 7, "country": "NL", "amount": 12.5}))
    proc = repo.pipec("import", "connect", "orders.properties", "--value-sample", "sample.json", "--out", "pipelines")
    assert proc.returncode == 0, proc.stderr
    path = repo.path / "pipelines/orders_delta.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert data["sink"]["table"] == "bronze_orders"
    # the record runner gives a path table its case's folder; a catalog table would live in the shared session's
    # warehouse across runs, so the test writes the same sink at a path
    del data["sink"]["table"]
    data["sink"]["path"] = "lake/bronze_orders"
    data["tests"] = [
        {
            "name": "orders appended with their Kafka partition",
            "given": [
                {"value": {"order_id": 7, "country": "NL", "amount": 12.5}, "partition": 0},
                {"value": {"order_id": 8, "country": "BE", "amount": 3.0}, "partition": 1, "batch": 1},
            ],
            "expect_table": [
                {"order_id": 7, "country": "NL", "amount": 12.5, "partition": 0},
                {"order_id": 8, "country": "BE", "amount": 3.0, "partition": 1},
            ],
        }
    ]
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    check_pipeline_records(path)
