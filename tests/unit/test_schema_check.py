"""compiler/validate/compiled_schema.py answers what jsonschema answers: whether a document is valid under the pipeline
schema. `validate` runs jsonschema only when the compiled check says a document is invalid, so a document the
check passed and jsonschema refuses would lose its diagnostics. Held here over every pipeline YAML of the
repository (valid ones and the error fixtures), over mutations of valid ones (each key dropped, each value of
another type, an unknown key in each mapping), and over JSON equality's corner cases."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import pytest
from jsonschema._utils import equal as jsonschema_equal
from jsonschema._utils import uniq as jsonschema_unique
from pipec.diagnostics import Collector
from pipec.load.document import load_text
from pipec.validate.compiled_schema import SchemaCheck
from pipec.validate.json_values import equal, unique
from pipec.validate.schema import _validator, schema

ROOT = Path(__file__).resolve().parents[2]
YAML_FILES = sorted(p for folder in ("pipelines", "tests") for p in (ROOT / folder).rglob("*.y*ml"))
MUTANTS_OF = {
    "pipelines": 1,
    "tests/transforms/pipelines": 4,
    "tests/connectors/pipelines": 4,
}  # folder: every n-th mutant
OTHER_VALUES = (None, True, 0, 1.5, "", "x", [], ["x"], {}, {"x": 1})
EDGE_VALUES = {int: -1, float: -0.5, str: ""}  # the same type, out of most ranges


@pytest.fixture(scope="module")
def both():
    jsonschema = _validator()  # Draft202012Validator with the dispatching allOf: the same answers, faster
    return SchemaCheck(schema(), lambda sub: jsonschema.evolve(schema=sub).is_valid), jsonschema


def _data(path: Path):
    doc = load_text(path.read_text(encoding="utf-8"), path.name, Collector())
    return None if doc is None else doc.data


def _mutants(data):
    """Copies of `data` each changed in one place: an unknown key in each mapping, a list's first item repeated,
    each key dropped, each value replaced by one of another type (taking the values in turn) and by an edge value of
    its own type."""
    nodes = []

    def walk(node, path):
        nodes.append((path, node))
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, path + (key,))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, path + (index,))

    def changed(path, change):
        result = copy.deepcopy(data)
        parent = result
        for part in path[:-1]:
            parent = parent[part]
        change(parent, path[-1])
        return result

    walk(data, ())
    others = list(OTHER_VALUES)
    for number, (path, node) in enumerate(nodes):
        if isinstance(node, dict):
            yield changed(path + ("no.such.key",), lambda parent, key: parent.__setitem__(key, "x"))
        if isinstance(node, list) and node:
            yield changed(path + (None,), lambda parent, key: parent.append(copy.deepcopy(parent[0])))
        if not path:
            continue
        if isinstance(path[-1], str):
            yield changed(path, lambda parent, key: parent.pop(key))
        other = next(v for i in range(len(others)) if type(v := others[(number + i) % len(others)]) is not type(node))
        yield changed(path, lambda parent, key: parent.__setitem__(key, copy.deepcopy(other)))
        edge = EDGE_VALUES.get(type(node))
        if edge is not None:
            yield changed(path, lambda parent, key: parent.__setitem__(key, edge))


def test_every_pipeline_yaml_gets_jsonschemas_answer(both):
    check, jsonschema = both
    checked = 0
    for path in YAML_FILES:
        data = _data(path)
        if data is None:
            continue
        assert check.valid(check.root, data) == jsonschema.is_valid(data), path
        checked += 1
    assert checked > 200


@pytest.mark.slow  # jsonschema over thousands of mutants: the full suite runs it, not the fast lane
@pytest.mark.parametrize("folder,stride", MUTANTS_OF.items())
def test_mutations_get_jsonschemas_answer(both, folder, stride):
    check, jsonschema = both
    differ, seen, invalid = [], 0, 0
    for path in sorted((ROOT / folder).glob("*.yaml")):
        data = _data(path)
        if data is None or not jsonschema.is_valid(data):
            continue
        for mutant in list(_mutants(data))[::stride]:
            expected = jsonschema.is_valid(mutant)
            seen += 1
            invalid += not expected
            if check.valid(check.root, mutant) != expected:
                differ.append((path.name, mutant))
    assert differ == []
    assert seen > 500 and invalid > seen // 3  # most changes break a pipeline: the check refuses them too


@pytest.mark.parametrize(
    "one,two",
    [
        (1, True),
        (0, False),
        (1, 1.0),
        ("1", 1),
        ([1], [True]),
        ([1, 2], [1, 2.0]),
        ({"a": 1}, {"a": True}),
        ({"a": [1]}, {"a": [1]}),
        ([], {}),
        (None, False),
        (math.inf, math.inf),
        ("a", "a"),
        ([[0]], [[False]]),
    ],
)
def test_equality_is_jsons(one, two):
    assert equal(one, two) == jsonschema_equal(one, two)
    assert equal(two, one) == jsonschema_equal(two, one)


@pytest.mark.parametrize(
    "items",
    [
        [1, True],
        [0, False],
        [1, 1.0],
        ["a", "b", "a"],
        [{"a": 1}, {"a": 1}],
        [{"a": 1}, {"a": True}],
        [[1], [True]],
        [None, False, 0],
        ["x"],
        [],
        [1, "1"],
        [[1, 2], [1, 2]],
    ],
)
def test_uniqueness_is_jsons(items):
    assert unique(items) == jsonschema_unique(items)


@pytest.mark.parametrize("value,valid", [("p", True), ("p\n", False), ("p\n\n", False), ("\np", False), ("P", False)])
def test_a_pattern_matches_the_whole_value(both, value, valid):
    """JSON Schema patterns are ECMA-262's, where `$` is the end of the value: Python's `$` also matches before
    a final newline, so `name: "p\\n"` would have passed `^[a-z][a-z0-9_]*$` (and named the job `p\\n.py`)."""
    check, jsonschema = both
    sub = check.root["properties"]["name"]
    assert check.valid(sub, value) == valid
    assert jsonschema.evolve(schema=sub).is_valid(value) == valid
