"""`pipec validate --registry`: a pipeline's avro-confluent payloads checked against the session's real registry,
without a JVM (the pipec process asks the registry; nothing else runs).

A source's declared columns must read the subject's latest schema by Avro's resolution rules (int -> long ->
float -> double and string <-> bytes promote; anything else is an error at the column); a sink's schema must be
compatible under the subject's level. For sinks the registry itself is the oracle: pipec's verdict must equal the
registry's own compatibility answer (Confluent's POST /compatibility) for the same schema.
"""

from __future__ import annotations

import json
import textwrap

import pytest
from confluent_kafka.schema_registry import Schema
from pipec.cli import main as pipec
from pipec.lower.record_path import lower
from pipec.project.driver import build_all
from pipec.tools.registry_check import registry_calls

pytestmark = pytest.mark.registry

SOURCE = """\
    version: 1
    name: t
    mode: batch
    source:
      connector: kafka
      topics: [orders]
      properties: {{bootstrap.servers: "localhost:9092"}}
      value: {{format: avro-confluent, url: "http://unused:1", subject: {subject}}}
      columns:
        - {{name: id, type: BIGINT}}
        - {{name: amount, type: {amount}}}
        - {{name: extra, type: STRING}}
    sink: {{connector: files, path: /tmp/unused, format: json}}
"""
SINK = """\
    version: 1
    name: t
    mode: batch
    source:
      connector: kafka
      topics: [orders]
      properties: {{bootstrap.servers: "localhost:9092"}}
      value: {{format: json}}
      columns:
        - {{name: id, type: BIGINT}}
        - {{name: name, type: STRING}}
    sink:
      connector: kafka
      topic: out
      value: {{format: avro-confluent, url: "${{env:PIPEC_UNSET_REGISTRY_URL}}", subject: {subject}}}
"""


def record(name: str, *fields: dict) -> str:
    return json.dumps({"type": "record", "name": name, "fields": list(fields)})


def validate(tmp_path, capsys, text: str, url: str) -> tuple[int, list[str]]:
    path = tmp_path / "p.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    code = pipec(["validate", "--registry", url, str(path)])
    return code, capsys.readouterr().err.strip().splitlines()


def test_declared_columns_read_the_latest_schema_with_promotions(
    schema_registry_url, schema_registry_client, subject, tmp_path, capsys
):
    old = record("Order", {"name": "id", "type": "int"}, {"name": "amount", "type": "int"})
    schema_registry_client.register_schema(subject, Schema(old, "AVRO"))
    latest = record(
        "Order",
        {"name": "id", "type": "int"},
        {"name": "amount", "type": "float"},
        {"name": "extra", "type": ["null", "string"], "default": None},
    )
    schema_registry_client.register_schema(subject, Schema(latest, "AVRO"))
    code, err = validate(tmp_path, capsys, SOURCE.format(subject=subject, amount="DOUBLE"), schema_registry_url)
    assert (code, err) == (0, []), err  # int -> long and float -> double promote; only the latest version counts


def test_a_column_the_writer_type_cannot_be_read_as_is_an_error_at_the_column(
    schema_registry_url, schema_registry_client, subject, tmp_path, capsys
):
    writer = record("Order", {"name": "id", "type": "long"}, {"name": "amount", "type": "string"})
    schema_registry_client.register_schema(subject, Schema(writer, "AVRO"))
    code, err = validate(tmp_path, capsys, SOURCE.format(subject=subject, amount="DOUBLE"), schema_registry_url)
    assert code == 2
    assert err[0] == (
        f"{tmp_path / 'p.yaml'}:11:7: error[E249]: source.value: column 'amount' cannot read subject '{subject}' "
        "version 1 (id " + err[0].split("(id ")[1].split(")")[0] + "): the writer's string matches no branch of the "
        "reader's [null, double]"
    )
    assert any(
        line.startswith(f"{tmp_path / 'p.yaml'}:12:7: warning[W250]: source.value: column 'extra' is not in")
        for line in err
    ), err
    code, err = validate(tmp_path, capsys, SOURCE.format(subject=subject, amount="STRING"), schema_registry_url)
    assert code == 0 and [line for line in err if "error[" in line] == []


def test_a_subject_without_schema_is_an_error_naming_it(schema_registry_url, subject, tmp_path, capsys):
    code, err = validate(tmp_path, capsys, SOURCE.format(subject=subject, amount="DOUBLE"), schema_registry_url)
    assert code == 2
    assert (
        f"error[E252]: source.value: subject '{subject}' has no schema in the registry at {schema_registry_url}"
        in err[0]
    )


def test_an_unreachable_registry_is_an_error_not_a_traceback(tmp_path, capsys, subject):
    code, err = validate(tmp_path, capsys, SOURCE.format(subject=subject, amount="DOUBLE"), "http://127.0.0.1:9")
    assert code == 2
    assert "error[E252]: source.value: cannot ask the Schema Registry: http://127.0.0.1:9/subjects/" in err[0]


def sink_schema(tmp_path, subject: str) -> str:
    """The schema the sink's job would register (from the lowered job, as pipec validate checks it)."""
    path = tmp_path / "p.yaml"
    path.write_text(textwrap.dedent(SINK.format(subject=subject)), encoding="utf-8")
    (compiled,) = build_all([str(path)]).compiled
    (call,) = registry_calls(lower(compiled).encode, ("to_registry",))
    return call.args[2].value


SINK_CASES = {
    # (level, the subject's versions): the record is named after the pipeline, as pipec names it
    "backward, a field added": ("BACKWARD", [record("t", {"name": "id", "type": ["null", "long"], "default": None})]),
    "backward, a type narrowed": (
        "BACKWARD",
        [record("t", {"name": "id", "type": "long"}, {"name": "name", "type": "double"})],
    ),
    "forward, old fields without default": (
        "FORWARD",
        [record("t", {"name": "id", "type": "long"}, {"name": "name", "type": "string"})],
    ),
    "full, nullable with defaults": (
        "FULL",
        [
            record(
                "t",
                {"name": "id", "type": ["null", "long"], "default": None},
                {"name": "name", "type": ["null", "string"], "default": None},
            )
        ],
    ),
    "backward, another record name": (
        "BACKWARD",
        [record("Order", {"name": "id", "type": ["null", "long"], "default": None})],
    ),
}


@pytest.mark.parametrize("case", SINK_CASES)
def test_a_sink_schema_is_judged_as_the_registry_judges_it(
    case, schema_registry_url, schema_registry_client, subject, tmp_path, capsys
):
    level, versions = SINK_CASES[case]
    for version in versions:
        schema_registry_client.register_schema(subject, Schema(version, "AVRO"))
    schema_registry_client.set_compatibility(subject, level)
    registry_says = schema_registry_client.test_compatibility(subject, Schema(sink_schema(tmp_path, subject), "AVRO"))
    code, err = validate(tmp_path, capsys, SINK.format(subject=subject), schema_registry_url)
    assert code == (0 if registry_says else 2), (registry_says, err)
    errors = [line for line in err if "error[" in line]
    if not registry_says:
        assert errors and all(f"{tmp_path / 'p.yaml'}:15:10: error[E251]: sink.value:" in line for line in errors), err
        assert f"not {level} compatible" in errors[0] and "field '" in errors[0]
