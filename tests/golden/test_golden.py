"""Golden tests: each tests/golden/<folder>/<name>.md pins the exact code pipec generates for small YAML cases,
without Spark (golden.py has the format). `PIPEC_UPDATE_GOLDEN=1` rewrites the expectations; review their diff.

The coverage tests derive what must be covered from the registry and the schema: every transform and predicate
has its file, every config key and every choice of a key is used, both variants of a Key/Value transform, and
every key and value format of every source and sink connector.
"""

from __future__ import annotations

import difflib
import json
from collections import defaultdict

import pytest
import yaml
from golden import HERE, UPDATE, GoldenFile, document, every_file, generate, read, rewrite

from pipec.package_data import SCHEMA_PATH
from pipec.transforms import REGISTRY

FILES = sorted(HERE.glob("*/*.md"))
SOURCES = {"kafka": "KafkaSource", "upsert-kafka": "UpsertKafkaSource", "files": "FilesSource"}
SINKS = {"kafka": "KafkaSink", "upsert-kafka": "UpsertKafkaSink", "files": "FilesSink", "console": "ConsoleSink"}


@pytest.mark.parametrize("path", FILES, ids=[p.relative_to(HERE).as_posix() for p in FILES])
def test_generated_code_is_the_golden_code(path):
    golden = read(path)
    codes = generate(golden)
    if UPDATE:
        text = rewrite(golden, codes)
        if text != path.read_text(encoding="utf-8"):
            path.write_text(text, encoding="utf-8")
            pytest.skip(f"rewrote {golden.name}: review its diff")
    problems = []
    for case, code in zip(golden.cases, codes):
        if case.code is None:
            problems.append(f"'{case.title}' has no python block")
        elif case.code != code:
            diff = difflib.unified_diff(case.code.splitlines(True), code.splitlines(True), "golden", "generated")
            problems.append(f"'{case.title}':\n{''.join(diff)}")
    assert not problems, "\n".join(problems) + "\nPIPEC_UPDATE_GOLDEN=1 accepts the generated code"


def _documents(folder: str) -> list[dict]:
    """The pipeline compiled for each case of one folder, parsed."""
    files: list[GoldenFile] = [f for f in every_file() if f.path.parent.name == folder]
    return [yaml.safe_load(document(f, c)) for f in files for c in f.cases]


def _steps() -> list[dict]:
    return [s for folder in ("transforms", "predicates") for d in _documents(folder) for s in d.get("transforms", [])]


def test_every_transform_and_predicate_has_its_golden_file():
    assert sorted(p.stem for p in (HERE / "transforms").glob("*.md")) == sorted(REGISTRY.transforms)
    assert sorted(p.stem for p in (HERE / "predicates").glob("*.md")) == sorted(REGISTRY.predicates)


def test_goldens_use_every_variant_key_and_choice_of_every_transform():
    used: dict[str, list[dict]] = defaultdict(list)
    variants = set()
    for step in _steps():
        spec, side = REGISTRY.lookup(step["type"])
        used[spec.name].append(step)
        variants.add((spec.name, side))
    missing = []
    for name, spec in REGISTRY.transforms.items():
        sides = ("key", "value") if spec.sides else (None,)
        missing += [f"{name} {side}" for side in sides if (name, side) not in variants]
        missing += _unused(name, spec.keys, used[name])
    assert missing == []


def test_goldens_use_every_predicate_key_and_choice_with_and_without_negate():
    documents = _documents("predicates")
    used: dict[str, list[dict]] = defaultdict(list)
    negated = set()
    for d in documents:
        for step in d.get("transforms", []):
            if "predicate" in step:
                kind = REGISTRY.lookup_predicate(d["predicates"][step["predicate"]]["type"]).name
                negated.add((kind, bool(step.get("negate"))))
        for pred in d.get("predicates", {}).values():
            used[REGISTRY.lookup_predicate(pred["type"]).name].append(pred)
    missing = []
    for name, spec in REGISTRY.predicates.items():
        missing += [f"{name} negate: {n}" for n in (False, True) if (name, n) not in negated]
        missing += _unused(name, spec.keys, used[name])
    assert missing == []


def _unused(name: str, keys, configs: list[dict]) -> list[str]:
    """Keys no config sets, and choices no config picks (in any case where the key ignores case). Removed keys
    only give errors (their error fixtures cover them)."""
    out = []
    for key in (k for k in keys if not k.removed):
        values = [str(c[key.name]) for c in configs if key.name in c]
        if not values:
            out.append(f"{name}.{key.name}")
        fold = str.lower if key.ignore_case else str
        out += [f"{name}.{key.name}={ch}" for ch in key.choices if fold(ch) not in {fold(v) for v in values}]
    if not configs:
        out.append(name)
    return out


def _formats(definition: dict) -> dict[str, list[str]]:
    """The key and value formats a connector's schema definition accepts."""
    props = definition["properties"]
    out = {part: props[part]["properties"]["format"]["enum"] for part in ("key", "value")
           if "format" in props.get(part, {}).get("properties", {})}
    if "enum" in props.get("format", {}):
        out["value"] = props["format"]["enum"]
    return out


@pytest.mark.parametrize("end,folder,table", [("source", "sources", SOURCES), ("sink", "sinks", SINKS)])
def test_goldens_cover_every_format_of_every_connector(end, folder, table):
    defs = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))["$defs"]
    used = set()
    for d in _documents(folder):
        block = d[end]
        used.add((block["connector"], "connector", ""))
        used |= {(block["connector"], part, block[part]["format"]) for part in ("key", "value")
                 if isinstance(block.get(part), dict) and "format" in block[part]}
        if "format" in block:
            used.add((block["connector"], "value", block["format"]))
    wanted = {(c, "connector", "") for c in table}
    wanted |= {(c, part, f) for c, name in table.items() for part, fs in _formats(defs[name]).items() for f in fs}
    assert sorted(wanted - used) == []
