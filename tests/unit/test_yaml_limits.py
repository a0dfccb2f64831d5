"""yaml_limits.within, the loader's shortcut past the limits scan: whenever it says a composed document is within
the limits, the scan finds no limit crossed (over every YAML file of the repository and documents at and past
each limit); and it says so for ordinary pipelines, or the shortcut would never be taken."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pipec.load.document import _FastLoader, _Loader
from pipec.load.limits import MAX_DEPTH, MAX_VALUES, scan, within

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(p for folder in ("pipelines", "tests") for p in (ROOT / folder).rglob("*.y*ml"))


def _composed(text: str):
    loader = _FastLoader(text)
    try:
        return loader.get_single_node()
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()


EDGES = {
    "nested to the limit": "a: " + "[" * (MAX_DEPTH - 1) + "1" + "]" * (MAX_DEPTH - 1) + "\n",
    "nested past the limit": "a: " + "[" * MAX_DEPTH + "1" + "]" * MAX_DEPTH + "\n",
    "values to the limit": "a: [" + ", ".join(["1"] * (MAX_VALUES - 3)) + "]\n",
    "values past the limit": "a: [" + ", ".join(["1"] * (MAX_VALUES - 2)) + "]\n",
    "an alias": "a: &x [1, 2]\nb: *x\n",
    "an alias past the depth": "a: &x " + "[" * 40 + "1" + "]" * 40 + "\nb: " + "[" * 40 + "*x" + "]" * 40 + "\n",
}


@pytest.mark.parametrize("name", list(EDGES))
def test_within_only_where_the_scan_finds_nothing(name):
    text = EDGES[name]
    node = _composed(text)
    assert node is not None
    if within(node):
        assert scan(text, _FastLoader, _Loader) is None
    assert within(node) == (name == "nested to the limit" or name == "values to the limit")


def test_every_yaml_file_of_the_repository():
    shortcuts = 0
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        node = _composed(text)
        if node is not None and within(node):
            assert scan(text, _FastLoader, _Loader) is None, path
            shortcuts += 1
    assert shortcuts > 200
