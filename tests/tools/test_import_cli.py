"""`pipec import connect` from the command line: YAML on stdout or files in --out, located refusals for
`.properties` (file:line:col) and JSON (line:col and JSON pointer), warnings as YAML comments, secrets hidden."""

from __future__ import annotations

import json

import yaml

from tests.tools.gitrepo import Repo

PROPERTIES = """# Orders into the warehouse
name=orders-sink
connector.class=io.confluent.connect.jdbc.JdbcSinkConnector
topics=orders
connection.password=hunter2
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=org.apache.kafka.connect.json.JsonConverter
value.converter.schemas.enable=false
# hide the card, then route
transforms=mask,route,unwrap
transforms.mask.type=org.apache.kafka.connect.transforms.MaskField$Value
transforms.mask.fields=card
transforms.route.type=org.apache.kafka.connect.transforms.RegexRouter
transforms.route.regex=(.*)
transforms.route.replacement=dw_$1
transforms.unwrap.type=io.confluent.connect.transforms.TombstoneHandler
errors.tolerance=all
errors.deadletterqueue.topic.name=orders-dlq
errors.retry.timeout=60000
"""


def test_properties_to_yaml_keeps_order_names_and_comments(tmp_path):
    repo = Repo(tmp_path / "r")
    repo.write("orders.properties", PROPERTIES)
    proc = repo.pipec("import", "connect", "orders.properties", "--out", "pipelines")
    assert proc.returncode == 0, proc.stderr
    text = (repo.path / "pipelines/orders_sink.yaml").read_text()
    assert "# Orders into the warehouse" in text and "# hide the card, then route" in text
    data = yaml.safe_load(text)
    assert [s["name"] for s in data["transforms"]] == ["mask", "route"]
    assert data["transforms"][0] == {"name": "mask", "type": "MaskField$Value", "fields": "card"}
    assert data["source"]["key"] == {"format": "raw"} and data["source"]["value"] == {"format": "json"}
    assert data["source"]["columns"] == [{"name": "card", "type": "STRING"}]  # named by the transforms, with a TODO
    assert "TODO: Connect configs declare no schema" in text
    assert data["errors"] == {"tolerance": "all", "deadletterqueue.topic.name": "orders-dlq"}
    assert "hunter2" not in text and "connection.password=[hidden]" in text
    assert (
        "# TODO: transform 'unwrap' (io.confluent.connect.transforms.TombstoneHandler) has no pipec equivalent" in text
    )
    assert "orders.properties:16:1: warning[I200]: transform 'unwrap'" in proc.stderr
    assert "orders.properties:19:1: warning[I200]: errors.retry.timeout" in proc.stderr
    assert repo.pipec("validate", "pipelines").returncode == 0


def test_properties_refusal_is_located(tmp_path):
    repo = Repo(tmp_path / "r")
    repo.write(
        "bad.properties",
        PROPERTIES.replace(
            "transforms.mask.fields=card\n", "transforms.mask.fields=card\ntransforms.mask.predicate=isTest\n"
        ),
    )
    proc = repo.pipec("import", "connect", "bad.properties", "--out", "pipelines")
    assert proc.returncode == 2
    assert (
        "bad.properties:13:1: error[I100]: transform 'mask' names predicate 'isTest', which is not defined"
        in proc.stderr
    )
    assert not (repo.path / "pipelines").exists()  # nothing written


def test_json_refusal_names_line_and_pointer(tmp_path):
    repo = Repo(tmp_path / "r")
    repo.write(
        "c.json",
        json.dumps(
            {
                "name": "x",
                "config": {
                    "connector.class": "io.confluent.connect.s3.S3SinkConnector",
                    "topics": "t",
                    "s3.bucket.name": "b",
                    "value.converter": "io.confluent.connect.protobuf.ProtobufConverter",
                },
            },
            indent=2,
        ),
    )
    proc = repo.pipec("import", "connect", "c.json")
    assert proc.returncode == 2
    assert (
        "c.json:7:5: error[I100]: value.converter io.confluent.connect.protobuf.ProtobufConverter has no pipec format (at /config/value.converter)"
        in proc.stderr
    )
    syntax = repo.write("broken.json", '{"name": "x",\n "config": {"topics": }}')
    proc = repo.pipec("import", "connect", str(syntax))
    assert proc.returncode == 2 and "broken.json:2:23: error[I001]: not valid JSON" in proc.stderr


def test_a_compile_error_of_the_result_points_at_the_transform(tmp_path):
    repo = Repo(tmp_path / "r")
    repo.write(
        "c.properties",
        "name=c\nconnector.class=io.confluent.connect.jdbc.JdbcSinkConnector\ntopics=t\n"
        "value.converter=org.apache.kafka.connect.json.JsonConverter\n"
        "transforms=ts\ntransforms.ts.type=org.apache.kafka.connect.transforms.TimestampRouter\n"
        "transforms.ts.timestamp.format=YYYY\n",
    )
    proc = repo.pipec("import", "connect", "c.properties")
    assert proc.returncode == 2
    assert "c.properties:6:1: error[I300]: transform 'ts': TimestampRouter 'ts': timestamp.format 'YYYY'" in proc.stderr


def test_stdout_and_a_source_connector(tmp_path):
    repo = Repo(tmp_path / "r")
    repo.write(
        "src.json",
        json.dumps(
            {
                "name": "inventory",
                "config": {
                    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
                    "topic.prefix": "dbserver1",
                    "table.include.list": "inventory.customers",
                    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
                    "value.converter.schemas.enable": "false",
                    "database.password": "pw",
                    "transforms": "route",
                    "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
                    "transforms.route.regex": "dbserver1\\.inventory\\.(.*)",
                    "transforms.route.replacement": "$1",
                },
            }
        ),
    )
    proc = repo.pipec("import", "connect", "src.json")
    assert proc.returncode == 1, proc.stderr  # no transform names a field: a placeholder column, located in stdout
    assert "<stdout>:18:12: warning[I400]: placeholder TODO_field" in proc.stderr
    assert proc.stdout.splitlines()[17][11:].startswith("TODO_field")
    data = yaml.safe_load(proc.stdout)
    assert data["source"]["topics"] == ["dbserver1.inventory.customers.raw"]
    assert [s["name"] for s in data["transforms"]] == ["restore_topic", "route"]
    assert data["sink"]["connector"] == "kafka" and "topic" not in data["sink"]
    assert "pw" not in proc.stdout


def test_properties_values_are_read_as_connect_reads_them(tmp_path):
    """Every value of a .properties file is text; Connect's ConfigDef reads a BOOLEAN from `true`/`false` in any
    case, trimmed, and errors.tolerance in any case: pipec's YAML gets the boolean and the lowercase word
    (the import refused `errors.deadletterqueue.context.headers.enable=true` as 'not of type boolean')."""
    repo = Repo(tmp_path / "r")
    repo.write(
        "orders.properties",
        PROPERTIES.replace("errors.tolerance=all\n", "errors.tolerance=ALL\n")
        + "errors.deadletterqueue.context.headers.enable=true\nerrors.log.enable = TRUE \nerrors.log.include.messages=False\n",
    )
    proc = repo.pipec("import", "connect", "orders.properties", "--out", "pipelines")
    assert proc.returncode == 0, proc.stderr
    data = yaml.safe_load((repo.path / "pipelines/orders_sink.yaml").read_text())
    assert data["errors"] == {
        "tolerance": "all",
        "deadletterqueue.topic.name": "orders-dlq",
        "deadletterqueue.context.headers.enable": True,
        "log.enable": True,
        "log.include.messages": False,
    }
    assert repo.pipec("validate", "pipelines").returncode == 0
