"""Kafka Connect settings are strings: an unquoted YAML scalar in a string slot is its source text exactly
(compiler/validate/scalars.py); booleans, integers and test data keep their YAML values; `$${` is a literal `${`."""

from __future__ import annotations

import pytest
from job_text import compile_text, literals
from pipec.diagnostics import Collector
from pipec.load.document import load_text
from pipec.project.driver import build_all
from pipec.validate.schema import validate_document

TEXTS = """\
version: 1
name: texts
mode: batch
source:
  connector: kafka
  topics: [0123]
  properties: {bootstrap.servers: localhost:9092, linger.ms: 010, client.id: 1.50}
  value: {format: json}
  columns:
    - {name: off, type: STRING}
    - {name: on, type: STRING}
    - {name: yes, type: BIGINT}
    - {name: h, header: 0x1F}
transforms:
  - {name: zip, type: InsertField$Value, static.field: zip, static.value: 0123}
  - {name: hex, type: InsertField$Value, static.field: hex, static.value: 0x1F}
  - {name: dec, type: InsertField$Value, static.field: dec, static.value: 1.50}
  - {name: word, type: InsertField$Value, static.field: word, static.value: off}
  - {name: mask, type: MaskField$Value, fields: [off], replacement: 0123}
  - {name: hdr, type: InsertHeader, header: on, value.literal: 0777}
sink:
  connector: kafka
  topic: 0777
  value: {format: json}
tests:
  - name: yes
    given: [{value: {off: a, on: b, yes: 1}}]
    expect: [{value: {off: "0123", on: b, yes: 1, zip: "0123", hex: "0x1F", dec: "1.50", word: "off"}, topic: "0777"}]
"""


def test_string_settings_take_the_scalars_source_text():
    source, diagnostics = compile_text(TEXTS)
    assert source is not None, diagnostics
    found = literals(source)
    # topics, properties, header keys, static values, replacements, sink topic, column names
    assert {"0123", "010", "1.50", "0x1F", "off", "on", "yes", "0777"} <= found
    # InsertHeader parses its literal as Kafka's Values.parseString does: the text "0777" is the number 777
    assert b"777" in found
    # what YAML 1.1 reads these as (octal 0123, 010 and 0777, hex 0x1F, 1.50 as a float)
    assert not {"83", "8", "1.5", "31", "511", b"511"} & found
    assert '"word": F.lit("off")}' in source  # a run of struct edits (compiler/lower/fusion.py): value = {**value, ...}


def test_test_names_and_record_keys_are_text():
    result = build_all([_write(TEXTS)])
    assert not result.diags.errors, result.diags.errors
    (case,) = result.compiled[0].pipeline.tests
    assert case.name == "yes"
    assert case.given[0].fields["value"] == {"off": "a", "on": "b", "yes": 1}  # keys as written, values typed


def test_yaml_1_1_value_and_merge_words_are_text_as_values():
    """`=` (YAML 1.1's "value" type, which PyYAML cannot construct) and `<<` (a merge key only as a key)."""
    source, diagnostics = compile_text(
        _with_step("{name: s, type: InsertField$Value, static.field: f, static.value: =}").replace(
            "name: yes, type: BIGINT", "name: <<, type: BIGINT"
        )
    )
    assert source is not None, diagnostics
    assert {"=", "<<"} <= literals(source)


@pytest.mark.parametrize(
    "slot",
    [
        "{name: s, type: InsertField$Value, static.field: f, static.value: '$${env:HOME}'}",
        '{name: s, type: InsertField$Value, static.field: f, static.value: "$${env:HOME}"}',
        "name: s\n    type: InsertField$Value\n    static.field: f\n    static.value: $${env:HOME}",
    ],
)
def test_a_doubled_dollar_brace_is_a_literal_in_a_static_value(slot):
    source, diagnostics = compile_text(_with_step(slot))
    assert source is not None, diagnostics
    assert "${env:HOME}" in literals(source)
    assert "$${env:HOME}" not in literals(source)


def test_a_doubled_dollar_brace_is_a_literal_header_value():
    source, diagnostics = compile_text(
        _with_step("{name: s, type: InsertHeader, header: h, value.literal: '$${env:X} $${y}'}")
    )
    assert source is not None, diagnostics
    assert b"${env:X} ${y}" in literals(source)


def test_an_env_reference_in_a_static_value_is_still_refused():
    _, diagnostics = compile_text(
        _with_step("{name: s, type: InsertField$Value, static.field: f, static.value: '${env:HOME}'}")
    )
    assert any("error[E106]" in d for d in diagnostics), diagnostics


# The value each plain scalar settles to, by slot: (the YAML at `{}` in SLOTS, the path, the value).
SLOTS = """\
version: 1
name: slots
mode: batch
source:
  connector: kafka
  topics: [t]
  properties: {bootstrap.servers: localhost:9092, enable.auto.commit.x: {p}}
  value: {format: json}
  columns:
    - {name: id, type: BIGINT}
    - {name: ts, metadata: {m}, virtual: true}
transforms:
  - {name: v, type: SetSchemaMetadata$Value, schema.name: x, schema.version: {v}}
sink: {connector: files, path: out, format: json, envelope: {e}}
"""
SETTLED = [
    ("p", "true", ("source", "properties", "enable.auto.commit.x"), "true"),  # properties are text to Kafka and Spark
    ("p", "TRUE", ("source", "properties", "enable.auto.commit.x"), "TRUE"),
    ("p", "on", ("source", "properties", "enable.auto.commit.x"), "on"),
    ("p", "0123", ("source", "properties", "enable.auto.commit.x"), "0123"),
    ("m", "true", ("source", "columns", 1, "metadata"), True),
    ("m", "timestamp", ("source", "columns", 1, "metadata"), "timestamp"),
    ("m", "off", ("source", "columns", 1, "metadata"), "off"),
    ("v", "3", ("transforms", 0, "schema.version"), 3),
    ("v", "0123", ("transforms", 0, "schema.version"), "0123"),  # Kafka's Integer.parseInt reads it as 123
    ("e", "True", ("sink", "envelope"), True),
]


@pytest.mark.parametrize("key, yaml_text, path, value", SETTLED, ids=[f"{k}={t}" for k, t, _, _ in SETTLED])
def test_a_plain_scalar_settles_by_its_slot(key, yaml_text, path, value):
    defaults = {"p": "x", "m": "timestamp", "v": "1", "e": "false"}
    text = SLOTS
    for k, v in {**defaults, key: yaml_text}.items():
        text = text.replace("{" + k + "}", v)
    diags = Collector()
    doc = validate_document(load_text(text, "slots.yaml", diags), diags)
    node = doc.data if doc else None
    for part in path:
        node = node[part] if node is not None else None
    assert (type(node), node) == (type(value), value), diags.items


@pytest.mark.parametrize("spelling, negate", [("false", False), ("'false'", False), ("' TRUE '", True), ("True", True)])
def test_negate_reads_kafkas_boolean_spellings(spelling, negate):
    text = _with_step("{name: s, type: Filter, predicate: p, negate: %s}" % spelling).replace(
        "transforms:", "predicates:\n  p: {type: HasHeaderKey, name: h}\ntransforms:"
    )
    result = build_all([_write(text)])
    assert not result.diags.errors, result.diags.errors
    assert result.compiled[0].pipeline.steps[0].negate is negate


# How a plain scalar settles follows each config key's kind in Kafka's ConfigDef (the registry's ConfigKey):
# STRING and LIST keys are text; BOOLEAN keys keep true/false; INT keys keep decimal integers.
TEXT_ONLY = {"boolean", "integer", "null"}
KIND_TYPES = {  # kind -> (JSON types the slot must name, types it must not)
    "STRING": ({"string"}, TEXT_ONLY),
    "LIST": ({"string", "array"}, TEXT_ONLY),
    "BOOLEAN": ({"boolean", "string"}, set()),
    "INT": ({"integer", "string"}, set()),
    "LONG": ({"integer", "string"}, set()),
}


def test_the_schema_gives_each_config_key_the_slot_its_kind_needs():
    from pipec.transforms import REGISTRY
    from pipec.validate.schema import _slots

    slots = _slots()
    defs = slots.root["$defs"]
    for name, spec in {**REGISTRY.transforms, **REGISTRY.predicates}.items():
        for key in spec.keys:
            types = slots.types(slots.expand([defs[name]["properties"][key.name]], conditions=False))
            needed, refused = KIND_TYPES[key.kind]
            assert types is not None and needed <= types and not refused & types, (name, key.name, key.kind, types)


def _with_step(step: str) -> str:
    return (
        TEXTS.split("transforms:\n")[0]
        + f"transforms:\n  - {step}\n"
        + "sink:"
        + TEXTS.split("sink:")[1].split("tests:")[0]
    )


def _write(text: str) -> str:
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp(prefix="pipec-scalars-")) / "p.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)
