"""`pipec import connect` of Debezium connectors (issue 27): ExtractNewRecordState becomes a debezium-json changelog
source on the topics Debezium really writes (`<topic.prefix>.<database>.<table>`), its delete and add.fields options
what the pipeline does with the changelog, JsonConverter's timestamps epoch milliseconds, and every TODO_ placeholder
a warning at its line with exit 1 unless --allow-todo. The last test runs change events through an imported
pipeline's own job."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.tools.gitrepo import Repo

JSON = "org.apache.kafka.connect.json.JsonConverter"
# Debezium's tutorial connector (MySQL, the inventory database), with the flattening step of its documentation
TUTORIAL = {
    "connector.class": "io.debezium.connector.mysql.MySqlConnector",
    "tasks.max": "1",
    "database.hostname": "mysql",
    "database.port": "3306",
    "database.user": "debezium",
    "database.password": "dbz",
    "database.server.id": "184054",
    "topic.prefix": "dbserver1",
    "database.include.list": "inventory",
    "schema.history.internal.kafka.bootstrap.servers": "kafka:9092",
    "schema.history.internal.kafka.topic": "schema-changes.inventory",
    "transforms": "unwrap",
    "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
}
KEY_SAMPLE = {
    "schema": {"type": "struct", "fields": [{"type": "int32", "optional": False, "field": "id"}]},
    "payload": {"id": 1004},
}
ROW = [
    {"field": "id", "type": "int32"},
    {"field": "email", "type": "string"},
    {"field": "updated", "type": "int64", "name": "org.apache.kafka.connect.data.Timestamp"},
]
VALUE_SAMPLE = {
    "schema": {
        "type": "struct",
        "fields": [
            {"field": "before", "type": "struct", "optional": True, "fields": ROW},
            {"field": "after", "type": "struct", "optional": True, "fields": ROW},
            {"field": "source", "type": "struct", "fields": [{"field": "table", "type": "string"}]},
            {"field": "op", "type": "string"},
            {"field": "ts_ms", "type": "int64", "optional": True},
        ],
    },
    "payload": {
        "before": None,
        "after": {"id": 1004, "email": "a@x", "updated": 1},
        "source": {"table": "customers"},
        "op": "r",
        "ts_ms": 2,
    },
}


def imported(tmp_path, config: dict, *extra: str, name: str = "inventory.json"):
    repo = Repo(tmp_path / "r")
    repo.write(name, json.dumps({"name": "inventory-connector", "config": config}, indent=2))
    repo.write("key.json", json.dumps(KEY_SAMPLE))
    repo.write("value.json", json.dumps(VALUE_SAMPLE))
    proc = repo.pipec("import", "connect", name, "--out", "pipelines", *extra)
    path = repo.path / "pipelines/inventory_connector.yaml"
    return proc, (yaml.safe_load(path.read_text()) if path.exists() else None), repo


def test_the_tutorial_connector_reads_its_real_topics_as_a_changelog(tmp_path):
    proc, data, repo = imported(tmp_path, TUTORIAL)
    source, sink = data["source"], data["sink"]
    assert (
        source["topic-pattern"] == r"dbserver1\.(inventory)\..+"
    )  # every table of the database, as Debezium names them
    assert source["value"] == {"format": "debezium-json", "debezium-json.schema-include": True}
    assert sink["connector"] == "upsert-kafka" and sink["value"]["timestamp-format"] == "epoch-millis"
    steps = [s["name"] for s in data["transforms"]]
    assert steps == ["drop_deletes", "flat_topic"]  # Debezium's default drops deletes and tombstones
    assert data["predicates"] == {"is_delete": {"type": "RecordIsTombstone"}}
    # no schema, no key: placeholders, each a warning at its line, and exit 1
    assert proc.returncode == 1, proc.stderr
    text = (repo.path / "pipelines/inventory_connector.yaml").read_text().splitlines()
    warned = [line for line in proc.stderr.splitlines() if "warning[I400]" in line]
    assert len(warned) == 3, proc.stderr
    for line in warned:
        where, message = line.split(": warning[I400]: placeholder ")
        _, row, col = where.rsplit(":", 2)
        token = message.split(":")[0]
        assert text[int(row) - 1][int(col) - 1 :].startswith(token), (line, text[int(row) - 1])
    assert "--allow-todo" in proc.stderr
    assert imported(tmp_path / "again", TUTORIAL, "--allow-todo")[0].returncode == 0
    assert repo.pipec("validate", "pipelines").returncode == 0


@pytest.mark.parametrize(
    "options, keeps",
    [
        ({}, False),
        ({"transforms.unwrap.drop.tombstones": "false"}, True),
        ({"transforms.unwrap.delete.handling.mode": "none"}, True),
        ({"transforms.unwrap.delete.handling.mode": "rewrite"}, True),
        ({"transforms.unwrap.delete.tombstone.handling.mode": "drop"}, False),
        ({"transforms.unwrap.delete.tombstone.handling.mode": "tombstone"}, True),
    ],
)
def test_delete_options_drop_or_keep_deletes(tmp_path, options, keeps):
    proc, data, _ = imported(tmp_path, {**TUTORIAL, **options}, "--allow-todo")
    assert proc.returncode == 0, proc.stderr
    assert ("drop_deletes" in [s["name"] for s in data["transforms"]]) is not keeps
    if "rewrite" in options.values():
        assert "not as a record with __deleted=true" in proc.stderr


def test_a_table_list_gives_topic_names_and_add_fields_become_fields(tmp_path):
    config = {
        **TUTORIAL,
        "table.include.list": "inventory.customers,inventory.orders",
        "key.converter": JSON,
        "value.converter": JSON,
        "transforms.unwrap.add.fields": "table,source.ts_ms,op",
    }
    proc, data, _ = imported(tmp_path, config, "--key-sample", "key.json", "--value-sample", "value.json")
    assert proc.returncode == 0, proc.stderr
    source = data["source"]
    assert source["topics"] == ["dbserver1.inventory.customers", "dbserver1.inventory.orders"]
    columns = {c["name"]: c for c in source["columns"]}
    assert [n for n in columns if not n.startswith("debezium")] == ["id", "email", "updated"]  # the row
    assert "key" not in source  # the upsert-kafka sink keys rows by their primary-key columns
    assert columns["updated"]["type"] == "TIMESTAMP_LTZ(3)"
    assert columns["debezium__table"] == {
        "name": "debezium__table",
        "type": "STRING",
        "metadata": "value.source.table",
        "virtual": True,
    }
    add = next(s for s in data["transforms"] if s["name"] == "add_fields")
    assert add["renames"] == "debezium__table:__table,debezium__source_ts_ms:__source_ts_ms"
    assert "add.fields op: pipec reads no such metadata" in proc.stderr
    assert data["sink"]["primary-key"] == ["id"]
    assert data["sink"]["key"] == {"format": "json", "timestamp-format": "epoch-millis"}


def test_flattening_after_other_steps_is_refused_at_its_line(tmp_path):
    config = {
        **TUTORIAL,
        "transforms": "route,unwrap",
        "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
        "transforms.route.regex": "(.*)",
        "transforms.route.replacement": "x_$1",
    }
    proc, data, _ = imported(tmp_path, config)
    assert proc.returncode == 2 and data is None
    assert "error[I100]: transform 'unwrap' (ExtractNewRecordState) follows other transforms" in proc.stderr


def test_a_sink_connector_unwrapping_debezium_topics(tmp_path):
    """A JDBC sink reading Debezium's topics through the flattening step: the changelog into a files sink whose
    envelope carries each row's op; JsonConverter's timestamps as epoch milliseconds."""
    config = {
        "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
        "topics": "dbserver1.inventory.customers",
        "value.converter": JSON,
        "value.converter.schemas.enable": "false",
        "transforms": "unwrap",
        "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
        "transforms.unwrap.drop.tombstones": "false",
    }
    proc, data, _ = imported(tmp_path, config, "--value-sample", "value.json")
    assert proc.returncode == 0, proc.stderr
    assert data["source"]["topics"] == ["dbserver1.inventory.customers"]
    assert data["source"]["value"] == {"format": "debezium-json"}
    assert data["sink"]["envelope"] is True and data["sink"]["timestamp-format"] == "epoch-millis"
    assert "transforms" not in data  # deletes kept (drop.tombstones=false): nothing to do


@pytest.mark.spark
def test_change_events_through_the_imported_pipeline(tmp_path, check_pipeline_records):
    """Debezium's change events (schema-include envelopes) through the imported job: a snapshot row, an update, a
    delete and its tombstone become the flattened rows of <topic>.flat, the delete a tombstone
    (drop.tombstones=false), the update's before image never written, add.fields as fields."""
    config = {
        **TUTORIAL,
        "table.include.list": "inventory.customers",
        "key.converter": JSON,
        "value.converter": JSON,
        "transforms.unwrap.drop.tombstones": "false",
        "transforms.unwrap.add.fields": "table",
    }
    proc, data, repo = imported(tmp_path, config, "--key-sample", "key.json", "--value-sample", "value.json")
    assert proc.returncode == 0, proc.stderr

    def event(op: str, before: dict | None, after: dict | None) -> dict:
        payload = {
            "before": before,
            "after": after,
            "source": {"table": "customers", "db": "inventory"},
            "op": op,
            "ts_ms": 5,
        }
        return {"schema": VALUE_SAMPLE["schema"], "payload": payload}

    key = {"schema": KEY_SAMPLE["schema"], "payload": {"id": 1004}}
    row = {"id": 1004, "email": "a@x", "updated": 1700000000000}
    changed = {**row, "email": "b@x", "updated": 1700000001000}
    data["tests"] = [
        {  # one micro-batch each: within one, the upsert sink writes only a key's last change
            "name": "a snapshot row, an update, a delete and its tombstone",
            "given": [
                {"key": key, "value": event("r", None, row), "batch": 0},
                {"key": key, "value": event("u", row, changed), "batch": 1},
                {"key": key, "value": event("d", changed, None), "batch": 2},
                {"key": key, "value": None, "batch": 3},
            ],
            "expect": [
                {
                    "key": {"id": 1004},
                    "value": {**row, "__table": "customers"},
                    "topic": "dbserver1.inventory.customers.flat",
                },
                {
                    "key": {"id": 1004},
                    "value": {**changed, "__table": "customers"},
                    "topic": "dbserver1.inventory.customers.flat",
                },
                {"key": {"id": 1004}, "value": None, "topic": "dbserver1.inventory.customers.flat"},
            ],
        },
        {
            "name": "the bytes a consumer of the flat topic reads (JsonConverter's epoch milliseconds)",
            "wire": True,
            "given": [{"key": key, "value": event("c", None, row)}],
            "expect": [
                {
                    "key": '{"id":1004}',
                    "value": '{"id":1004,"email":"a@x","updated":1700000000000,"__table":"customers"}',
                }
            ],
        },
    ]
    path = repo.path / "pipelines/inventory_connector.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    check_pipeline_records(path)
