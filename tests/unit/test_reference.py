"""The language reference in docs/reference/ cannot drift (issue 27): its generated pages are what the schema and the
connectors say, every key has a description and an example that the schema accepts, the reference's full example
compiles, and the README and docs/ link only inside the repository."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from pipec.package_data import SCHEMA_PATH
from pipec.tools.reference import BLOCKS, TEST_BLOCKS, Schema, missing_examples, rendered, rows

ROOT = Path(__file__).resolve().parents[2]
RAW = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
REFERENCE = ROOT / "docs" / "reference" / "README.md"
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])


@pytest.mark.parametrize("page", sorted(rendered()))
def test_generated_pages_are_current(page):
    assert (ROOT / page).read_text(encoding="utf-8") == rendered()[page], "run: python -m pipec.tools.reference --write"


def test_every_key_has_an_example_and_a_description():
    assert missing_examples(RAW) == []
    schema = Schema(RAW)
    undescribed = [name for name, node in RAW["properties"].items() if not schema.resolve(node).get("description")]
    for block, name in BLOCKS + TEST_BLOCKS:
        node = schema.resolve({"$ref": f"#/$defs/{name}"})
        for _, variant in schema.variants(node) or [("", node)]:
            undescribed += [
                key for key, _, resolved, _ in rows(schema, variant, f"{block}.") if not resolved.get("description")
            ]
    assert undescribed == []


def _with_examples(node, path=()):
    if isinstance(node, dict):
        if "examples" in node:
            yield path, node
        for key, child in node.items():
            yield from _with_examples(child, path + (key,))
    elif isinstance(node, list):
        for i, child in enumerate(node):
            yield from _with_examples(child, path + (i,))


@pytest.mark.parametrize(
    "path, node", list(_with_examples(RAW)), ids=lambda p: "/".join(map(str, p)) if isinstance(p, tuple) else ""
)
def test_every_example_is_valid_where_it_stands(path, node):
    """An example an editor offers, or the reference shows, passes the schema of its own key."""
    validator = Draft202012Validator({**node, "$defs": RAW["$defs"]})
    for example in node["examples"]:
        assert validator.is_valid(example), (path, example, [e.message for e in validator.iter_errors(example)])


def reference_example(tmp_path: Path) -> Path:
    """The full pipeline of docs/reference/README.md, as a file of a pipelines/ folder."""
    block = re.search(r"```yaml\n(.*?)```", REFERENCE.read_text(encoding="utf-8"), re.S).group(1)
    path = tmp_path / "pipelines" / "orders_by_day.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(block, encoding="utf-8")
    return path


def test_the_reference_example_compiles(tmp_path):
    from pipec.project.driver import build_all, generate_all

    result = build_all([str(reference_example(tmp_path))])
    assert not result.diags.items, [d.render() for d in result.diags.items]
    assert "orders_by_day.py" in generate_all(result)


LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_docs_link_only_inside_the_repository(page):
    """Users have the repository: no link or citation leads outside it (no SPEC section N, no ../shared)."""
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"\bSPEC\b", text), f"{page.name} cites the SPEC"
    assert "/work/" not in text and "../shared" not in text and "shared/reference" not in text
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        file = target.split("#")[0]
        assert (page.parent / file).exists(), f"{page.relative_to(ROOT)} links {target}, which is not in the repository"
