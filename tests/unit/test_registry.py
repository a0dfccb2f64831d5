"""The registry is the one source of transforms and predicates: docs/transforms.md and the schema's generated
parts are current, and the schema states every key exactly as its ConfigKey declares it."""

from __future__ import annotations

import importlib
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from pipec.diagnostics import Collector
from pipec.load.document import SourceMap
from pipec.package_data import SCHEMA_PATH
from pipec.resolve.builder import STEP_KEYS as BUILD_STEP_KEYS
from pipec.transforms import FAMILIES, REGISTRY
from pipec.transforms.base import PACKAGE, PREDICATE_PACKAGE, ConfigKey, ConfigReader
from pipec.transforms.docs import DOC, render
from pipec.validate import schema_gen

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_TEXT = SCHEMA_PATH.read_text(encoding="utf-8")
SCHEMA = json.loads(SCHEMA_TEXT)
DEFS = SCHEMA["$defs"]
STEP_KEYS = list(BUILD_STEP_KEYS)
SPECS = {**REGISTRY.transforms, **REGISTRY.predicates}
KINDS = {
    "ConfigString": "STRING",
    "ConfigList": "LIST",
    "ConfigNonEmptyList": "LIST",
    "ConfigBoolean": "BOOLEAN",
    "ConfigInt": "INT",
}


def test_docs_are_current():
    assert (ROOT / DOC).read_text(encoding="utf-8") == render(), "run: python -m pipec.transforms.docs"


def test_schema_is_current():
    assert schema_gen.render(SCHEMA_TEXT) == SCHEMA_TEXT, "run: python -m pipec.validate.schema_gen --write"


def test_schema_gen_check_exits_0_when_current_and_1_when_stale(tmp_path, monkeypatch, capsys):
    assert schema_gen.main([]) == 0
    stale = tmp_path / "schema.json"
    stale.write_text(SCHEMA_TEXT.replace("Needs `static.value`.", "Needs nothing."), encoding="utf-8")
    monkeypatch.setattr(schema_gen, "SCHEMA_PATH", stale)
    assert schema_gen.main([]) == 1
    assert "pipec.validate.schema_gen --write" in capsys.readouterr().err
    assert schema_gen.main(["--write"]) == 0
    assert stale.read_text(encoding="utf-8") == SCHEMA_TEXT


def test_families_are_every_module_that_declares_specs():
    package = Path(importlib.import_module("pipec.transforms").__file__).parent
    declaring = []
    for path in sorted(package.glob("*.py")):
        module = importlib.import_module(f"pipec.transforms.{path.stem}")
        if hasattr(module, "SPECS"):
            declaring.append(module)
    assert sorted(m.__name__ for m in FAMILIES) == [m.__name__ for m in declaring]
    assert sorted(SPECS) == sorted(spec.name for family in FAMILIES for spec in family.SPECS)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_keys_are_well_formed(name):
    keys = SPECS[name].keys
    names = [k.name for k in keys]
    assert len(set(names)) == len(names), "a key is declared twice"
    assert not set(names) & ({"type"} if name in REGISTRY.predicates else set(STEP_KEYS)), "a key shadows a step key"
    for k in keys:
        assert k.kind in set(KINDS.values()), k
        assert k.doc.strip() and k.doc.rstrip().endswith((".", ")")), k
        assert not k.ignore_case or k.choices, f"{k.name}: ignore_case needs choices"
        assert not k.choices or k.kind == "STRING", k
        assert k.default is None or not k.choices or k.default in k.choices, k
        assert not (k.required and k.default is not None), f"{k.name}: a required key has no default"
        assert set(k.requires) <= set(names) - {k.name}, k
        assert not k.removed or k.removed in names, k


def _key_from_schema(name: str, prop: dict, owner: dict) -> ConfigKey:
    """Read a property schema back into the ConfigKey it states (the generator's inverse, written independently)."""
    if "$ref" in prop:
        target = prop["$ref"].rsplit("/", 1)[-1]
        kind, choices, ignore_case = KINDS[target], (), False
        nonempty = target == "ConfigNonEmptyList" or prop.get("minLength") == 1
    elif "enum" in prop:
        kind, choices, ignore_case, nonempty = "STRING", tuple(prop["enum"]), False, False
    else:
        kind, choices, ignore_case, nonempty = "STRING", tuple(prop["examples"]), True, False
        pattern = re.compile(prop["pattern"])
        for choice in choices:
            assert all(pattern.search(c) for c in (choice, choice.lower(), choice.upper(), choice.swapcase()))
            assert not pattern.search(choice + "x") and not pattern.search(" " + choice)
    required = name in owner.get("required", [])
    requires = tuple(owner.get("dependentRequired", {}).get(name, ()))
    description = prop["description"]
    removed = re.search(r"An error here: use `([^`]+)`\.$", description)  # only the description can say it
    key = ConfigKey(
        name,
        kind,
        prop.get("default"),
        "",
        choices,
        required,
        nonempty,
        ignore_case,
        requires,
        removed.group(1) if removed else "",
    )
    assert description.endswith(key.rules()), (description, key.rules())
    return replace(key, doc=description[: len(description) - len(key.rules())].rstrip())


@pytest.mark.parametrize("name", sorted(SPECS))
def test_the_schema_states_every_key_exactly_as_registered(name):
    spec, owner = SPECS[name], DEFS[name]
    fixed = STEP_KEYS if name in REGISTRY.transforms else ["type"]
    props = owner["properties"]
    assert list(props)[: len(fixed)] == fixed
    stated = [_key_from_schema(k, v, owner) for k, v in props.items() if k not in fixed]
    assert stated == [replace(k, names=()) for k in spec.keys]  # what a key names is no part of the schema
    assert owner["additionalProperties"] is False
    assert set(owner) <= {
        "$comment",
        "type",
        "description",
        "properties",
        "required",
        "dependentRequired",
        "additionalProperties",
    }


def test_generated_defs_are_exactly_the_registry():
    marked = {n for n, d in DEFS.items() if d.get("$comment") == schema_gen.MARK}
    assert marked == {"TransformStep", "Predicate"} | set(SPECS)


def test_type_enums_are_exactly_the_registered_spellings():
    transforms = DEFS["TransformStep"]["properties"]["type"]["enum"]
    bare = REGISTRY.spellings()
    assert sorted(transforms) == sorted(bare + [REGISTRY.lookup(s)[0].package + s for s in bare])
    assert all(REGISTRY.lookup(t)[0] is not None for t in transforms)
    # a class is found in its own package only: Kafka's for Kafka's transforms, Confluent's for Drop
    assert REGISTRY.lookup(PACKAGE + "Cast$Value")[0].name == "Cast"
    assert REGISTRY.lookup("io.confluent.connect.transforms.Drop$Value") == (REGISTRY.transforms["Drop"], "value")
    assert REGISTRY.lookup(PACKAGE + "Drop$Value") == (None, None)
    assert REGISTRY.lookup("io.confluent.connect.transforms.Cast$Value") == (None, None)
    predicates = DEFS["Predicate"]["properties"]["type"]["enum"]
    assert sorted(predicates) == sorted(
        list(REGISTRY.predicates) + [PREDICATE_PACKAGE + p for p in REGISTRY.predicates]
    )
    assert all(REGISTRY.lookup_predicate(p) is not None for p in predicates)


# The parsers read keys the way the registry declares them (the schema stops most mistakes first; the parsers
# must agree with it, key by key).


def _example(name: str) -> dict:
    spec = SPECS[name]
    step = yaml.safe_load(spec.example)
    config = step[0] if isinstance(step, list) else next(iter(step.values()))
    step_keys = ("type",) if name in REGISTRY.predicates else ("name", "type", "predicate", "negate")
    return {k: v for k, v in config.items() if k not in step_keys}


def _parse_errors(name: str, raw: dict) -> list[str]:
    diags = Collector()
    SPECS[name].parse(ConfigReader(name, raw, SourceMap("t.yaml", {}, {}), (), diags))
    return [d.message for d in diags.errors]


@pytest.mark.parametrize("name", sorted(SPECS))
def test_the_parser_accepts_the_documented_example(name):
    assert _parse_errors(name, _example(name)) == []


@pytest.mark.parametrize("name", sorted(SPECS))
def test_the_parser_enforces_each_declared_rule(name):
    example = _example(name)
    bad: list[tuple[str, dict]] = []
    for k in SPECS[name].keys:
        if k.required:
            bad.append((f"without {k.name}", {n: v for n, v in example.items() if n != k.name}))
        if k.nonempty:
            bad.append((f"empty {k.name}", {**example, k.name: [] if k.kind == "LIST" else ""}))
        if k.choices:
            bad.append((f"{k.name} not a choice", {**example, k.name: "no-such-choice"}))
            if not k.ignore_case and k.choices[0].swapcase() != k.choices[0]:
                bad.append((f"{k.name} in another case", {**example, k.name: k.choices[0].swapcase()}))
        if k.removed:
            bad.append((f"removed {k.name}", {**example, k.name: ["a"]}))
        for needed in k.requires:
            bad.append(
                (f"{k.name} without {needed}", {**{n: v for n, v in example.items() if n != needed}, k.name: "a"})
            )
    for what, raw in bad:
        assert _parse_errors(name, raw), f"{name}: {what} parses without an error"
    for k in SPECS[name].keys:
        if k.ignore_case:
            assert _parse_errors(name, {**example, k.name: k.choices[-1].swapcase()}) == [], f"{name}.{k.name}"


def _parse(name: str, raw: dict):
    diags = Collector()
    config = SPECS[name].parse(ConfigReader(name, raw, SourceMap("t.yaml", {}, {}), (), diags))
    assert not diags.errors, [d.message for d in diags.errors]
    return config


@pytest.mark.parametrize("name", sorted(SPECS))
def test_the_parser_defaults_are_the_declared_defaults(name):
    """Leaving a key out reads the same config as writing its declared default (where the example can do
    without the key: TimestampConverter's string example needs its format)."""
    checked = 0
    for k in SPECS[name].keys:
        without = {n: v for n, v in _example(name).items() if n != k.name}
        if k.default is None or _parse_errors(name, without):
            continue
        assert _parse(name, without) == _parse(name, {**without, k.name: k.default}), k.name
        checked += 1
    assert checked == sum(k.default is not None for k in SPECS[name].keys) - (name == "TimestampConverter")
