"""The registry, the JSON Schema's $defs and docs/transforms.md list the same transforms and keys."""

from __future__ import annotations

import json
from pathlib import Path

from compiler.docs import DOC_PATH, render
from compiler.transforms import REGISTRY

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "schemas" / "pipeline.schema.json").read_text(encoding="utf-8"))
STEP_KEYS = {"name", "type", "predicate", "negate"}


def test_docs_are_current():
    assert DOC_PATH.read_text(encoding="utf-8") == render(), "run: python -m compiler.docs"


def test_every_registered_transform_has_a_schema_def_with_the_same_keys():
    for name, spec in REGISTRY.transforms.items():
        schema_keys = set(SCHEMA["$defs"][name]["properties"]) - STEP_KEYS
        assert schema_keys == {k.name for k in spec.keys} | _legacy(name), name


def test_every_registered_predicate_has_a_schema_def_with_the_same_keys():
    for name, spec in REGISTRY.predicates.items():
        schema_keys = set(SCHEMA["$defs"][name]["properties"]) - {"type"}
        assert schema_keys == {k.name for k in spec.keys}, name


def _legacy(name: str) -> set[str]:
    """Keys the schema accepts only so the compiler can explain their removal."""
    return {"whitelist", "blacklist"} if name == "ReplaceField" else set()


def test_registry_spellings_match_the_schema_enum():
    schema_types = set(SCHEMA["$defs"]["TransformStep"]["properties"]["type"]["enum"])
    registered = set(REGISTRY.spellings())
    assert registered <= schema_types
    assert all(REGISTRY.lookup(t)[0] is not None for t in registered)
