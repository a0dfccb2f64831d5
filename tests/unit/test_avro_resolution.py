"""Avro's schema resolution rules as compiler/tools/avro_resolution.py applies them, case by case from the Avro
specification ("Schema Resolution") and Confluent's compatibility levels (its documentation's table: BACKWARD, the
new schema reads data of the latest; FORWARD, the latest reads the new; FULL, both; _TRANSITIVE, every version)."""

from __future__ import annotations

import pytest
from pipec.tools.avro_resolution import compatibility_problems, read_problems


def record(name: str, *fields: dict, **extra) -> dict:
    return {"type": "record", "name": name, "fields": list(fields), **extra}


def field(name: str, avro_type, **extra) -> dict:
    return {"name": name, "type": avro_type, **extra}


@pytest.mark.parametrize(
    "writer, reader",
    [
        ("int", "long"),
        ("int", "float"),
        ("int", "double"),
        ("long", "float"),
        ("long", "double"),
        ("float", "double"),
        ("string", "bytes"),
        ("bytes", "string"),
        ("int", ["null", "long"]),
        (["null", "int"], ["null", "double"]),
        ({"type": "int", "logicalType": "date"}, "int"),
    ],
)
def test_promotions_and_unions_resolve(writer, reader):
    assert read_problems(record("R", field("f", reader)), record("R", field("f", writer))) == []


@pytest.mark.parametrize(
    "writer, reader",
    [
        ("long", "int"),
        ("double", "float"),
        ("string", "long"),
        ("boolean", "int"),
        (["null", "string"], "string"),
    ],
)
def test_what_does_not_resolve_names_the_field(writer, reader):
    (problem,) = read_problems(record("R", field("f", reader)), record("R", field("f", writer)))
    assert problem.field == "f"


def test_fields_are_matched_by_name_or_alias_and_missing_ones_need_a_default():
    writer = record("R", field("old_name", "string"), field("gone", "int"))
    assert read_problems(record("R", field("new_name", "string", aliases=["old_name"])), writer) == []
    assert read_problems(record("R", field("added", "int", default=0)), writer) == []
    (problem,) = read_problems(record("R", field("added", "int")), writer)
    assert problem.field == "added" and "no default" in problem.message


def test_nested_records_arrays_maps_and_enums():
    inner_w = record("In", field("x", "int"))
    inner_r = record("In", field("x", "long"), field("y", "string", default=""))
    assert (
        read_problems(
            record("R", field("n", {"type": "array", "items": inner_r})),
            record("R", field("n", {"type": "array", "items": inner_w})),
        )
        == []
    )
    (problem,) = read_problems(
        record("R", field("m", {"type": "map", "values": "int"})),
        record("R", field("m", {"type": "map", "values": "string"})),
    )
    assert problem.path == ("m", "{}")
    enum = lambda *symbols, **extra: {"type": "enum", "name": "E", "symbols": list(symbols), **extra}  # noqa: E731
    assert read_problems(record("R", field("e", enum("A", "B", "C"))), record("R", field("e", enum("A", "B")))) == []
    assert read_problems(record("R", field("e", enum("A"))), record("R", field("e", enum("A", "B")))) != []
    assert read_problems(record("R", field("e", enum("A", default="A"))), record("R", field("e", enum("A", "B")))) == []


def test_record_names_count_for_compatibility_not_for_reading():
    assert read_problems(record("A", field("f", "int")), record("B", field("f", "int")), check_names=False) == []
    (problem,) = read_problems(record("A", field("f", "int")), record("B", field("f", "int")))
    assert "names differ" in problem.message
    assert read_problems(record("A", field("f", "int"), aliases=["B"]), record("B", field("f", "int"))) == []


def test_named_references_and_recursive_types():
    node = record("Node", field("value", "int"), field("next", ["null", "Node"], default=None))
    assert read_problems(node, node) == []
    wider = record("Node", field("value", "long"), field("next", ["null", "Node"], default=None))
    assert read_problems(wider, node) == []
    assert read_problems(node, wider) != []


def test_compatibility_levels():
    v1 = record("R", field("a", "int"))
    v2 = record("R", field("a", "int"), field("b", "string", default=""))  # a field added with a default
    v3 = record("R", field("b", "string", default=""))  # a dropped
    assert compatibility_problems(v2, [v1], "BACKWARD") == []
    assert compatibility_problems(v2, [v1], "FULL") == []  # v1 reads v2: b is skipped
    assert compatibility_problems(v3, [v1, v2], "BACKWARD") == []  # v3 reads v2: a skipped, b present
    assert compatibility_problems(v3, [v1, v2], "FORWARD") != []  # v2 cannot read v3: a has no default
    no_default = record("R", field("a", "int"), field("c", "int"))
    assert [d for d, _ in compatibility_problems(no_default, [v1], "BACKWARD")] == ["new reads old"]
    assert compatibility_problems(no_default, [v1], "NONE") == []
    only_b = record("R", field("b", "string"))
    assert compatibility_problems(only_b, [v1, v2], "BACKWARD") == []  # reads v2 (the latest) ...
    assert compatibility_problems(only_b, [v1, v2], "BACKWARD_TRANSITIVE") != []  # ... but not v1
