"""Transform knowledge lives in compiler/transforms/: no module outside it tests a transform's or predicate's name.

Outside `transforms/` a transform is asked through the registry (`REGISTRY.transforms[step.kind].routes`,
`.filters`, `.lineage`, its keys' `names`), never compared by name: a comparison with a name literal
(`step.kind == "Filter"`) or a table of names (`ROUTERS = ("RegexRouter", "TimestampRouter")`,
`MOVES = {"Cast": ..., "MaskField": ...}`) is reported with its place, so a new transform needs no edit elsewhere.
"""

from __future__ import annotations

from pathlib import Path

from name_tests import name_tests
from pipec.transforms import REGISTRY

COMPILER = Path(__file__).resolve().parents[2] / "compiler"
NAMES = frozenset(REGISTRY.transforms) | frozenset(REGISTRY.predicates) | frozenset(REGISTRY.spellings())


def test_the_check_finds_transform_name_tests():
    code = (
        'a = step.kind == "Filter"\n'
        'ROUTERS = ("RegexRouter", "TimestampRouter")\n'
        'MOVES = {"Cast": cast, "MaskField": mask}\n'
        'b = step.type_name in ("Cast$Value", "Cast$Key")\n'
        'c = PREDICATE_INPUTS[pred.kind] if pred.kind != "HasHeaderKey" else None\n'
    )
    assert [line for line, _ in name_tests(code, NAMES)] == [1, 2, 3, 4, 5]


def test_the_check_lets_writes_of_a_name_pass():
    code = (
        'y.item([("name", "restore_topic"), ("type", "RegexRouter")])\n'  # import connect writes a step
        'step = Step("new_filter", "Filter", None, "Filter", None, loc)\n'  # the docs site's what-if step
    )
    assert name_tests(code, NAMES) == []


def test_no_module_outside_transforms_tests_a_transform_name():
    outside = [p for p in sorted(COMPILER.rglob("*.py")) if "transforms" not in p.relative_to(COMPILER).parts]
    assert len(outside) > 20
    found = [
        f"{p.relative_to(COMPILER.parent)}:{line}: {code}"
        for p in outside
        for line, code in name_tests(p.read_text(encoding="utf-8"), NAMES)
    ]
    assert found == [], "ask the transform's spec (compiler/transforms/base.py) instead:\n" + "\n".join(found)
