"""Every error says what to write instead: each code of docs/errors.md's table is produced here, and comes with a
hint and a location.

The inputs are the error fixtures (tests/cli/fixtures/errors, tests/transforms/errors) and, for what a pipeline
file alone cannot show, the cases below: the file system, the command line, warnings, and checks the JSON Schema
answers first (the compiler's own check of the same mistake runs on a document that skipped validation).
`validate --registry` codes need a Schema Registry: tests/schema_registry produces them.
"""

from __future__ import annotations

import ast
import json
import re

from cli_harness import ERRORS, ROOT, TRANSFORM_ERRORS, minimal, run_cli

DOC = ROOT / "docs" / "errors.md"
NEEDS_A_REGISTRY = {"E249", "E251", "E252", "W250"}


def _documented() -> set[str]:
    """The codes docs/errors.md's table names: each row's first cell, a code, a range (E700-E709) or a list."""
    text = DOC.read_text(encoding="utf-8").split("## Compile-time errors, by code", 1)[1]
    used = _used()
    codes = set()
    for cell in re.findall(r"^\| ([EW][\d, E-]+) \|", text, re.M):
        for part in cell.split(", "):
            first, _, last = part.partition("-")
            codes |= {c for c in used if first <= c <= (last or first)} if last else {first}
    return codes


def _used() -> set[str]:
    """Every code the compiler's source spells."""
    return {
        m
        for p in (ROOT / "compiler").rglob("*.py")
        for m in re.findall(r"\"([EW]\d{3})\"", p.read_text(encoding="utf-8"))
    }


def test_the_table_names_every_code_the_compiler_uses_and_no_other():
    assert _documented() == _used()


def _calls_without_a_hint() -> list[str]:
    """Calls reporting a diagnostic whose hint is missing or None: `diags.error(code, message, loc, hint)`,
    `diags.warn(...)`, and the transforms' `reader.error(key, message, hint, ...)` / `ctx.error(...)`."""
    missing = []
    for path in (ROOT / "compiler").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("error", "warn")
            ):
                continue
            owner = ast.unparse(node.func.value)
            position = 3 if owner.endswith("diags") else 2 if owner in ("reader", "ctx") else None
            if position is None:
                continue
            hint = next(
                (k.value for k in node.keywords if k.arg == "hint"),
                node.args[position] if len(node.args) > position else None,
            )
            if hint is None or (isinstance(hint, ast.Constant) and hint.value is None):
                missing.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return missing


def test_every_report_passes_a_hint():
    assert _calls_without_a_hint() == []


# What no pipeline file in the fixtures shows: (files to write, command line)
SPECIAL = {
    "E004": ({"p.yaml": b"version: 1\nname: \xff\n"}, ["validate", "p.yaml"]),
    "E005": ({}, ["validate", "missing.yaml"]),
    "E006": ({"empty/notes.txt": b"x"}, ["validate", "empty"]),
    "E007": (
        {"a.yaml": minimal("same").encode(), "b.yaml": minimal("same").encode()},
        ["validate", "a.yaml", "b.yaml"],
    ),
    "E008": ({"p.yaml": ("x: " + "[" * 70 + "]" * 70 + "\n").encode()}, ["validate", "p.yaml"]),
    "E010": ({"p.yaml": minimal("p").encode(), "gen": b"a file"}, ["compile", "p.yaml", "--out", "gen"]),
    "W110": (
        {
            "p.yaml": (
                minimal("p").replace(
                    "mode: batch",
                    "mode: batch\nerrors: {tolerance: all, deadletterqueue.path: d, "
                    "deadletterqueue.topic.replication.factor: 3}",
                )
            ).encode()
        },
        ["validate", "p.yaml"],
    ),
    "W206": (
        {
            "p.yaml": (ROOT / "tests/cli/fixtures/errors/kafka_sink_writes_a_timestamp.yaml")
            .read_bytes()
            .replace(
                b"    - {name: name, type: STRING}\n",
                b"    - {name: name, type: STRING}\n    - {name: e, metadata: leader-epoch, virtual: true}\n",
            )
        },
        ["validate", "p.yaml"],
    ),
}

# Mistakes the JSON Schema reports first (E100); the compiler checks them again when it builds. (code: YAML)
BEHIND_THE_SCHEMA = {
    "E301": minimal("p") + "transforms:\n  - {name: x, type: ExtractField$Value}\n",
    "E310": minimal("p") + "predicates:\n  p: {type: NoSuchPredicate}\n",
    "E321": minimal("p") + "transforms:\n  - {name: x, type: NoSuchTransform}\n",
    "E801": minimal("p") + "transforms:\n  - {name: x, type: DropHeaders, headers: []}\n",
    "E520": minimal("p").replace(
        "  connector: files\n  path: out\n  format: json\n",
        "  connector: kafka\n  topic: t\n  properties: {bootstrap.servers: b:9092}\n  value: {format: protobuf}\n",
    ),
}


def _seen(diagnostics: list[dict], seen: dict) -> None:
    for d in diagnostics:
        seen.setdefault(d["code"], []).append(d)


def _built_without_validation(text: str) -> list[dict]:
    from pipec.diagnostics import Collector
    from pipec.load.document import load_text
    from pipec.resolve.builder import Builder

    diags = Collector()
    Builder(load_text(text, "p.yaml", diags), diags).build()
    return [d.to_json() for d in diags.items]


def test_every_documented_code_comes_with_a_hint_and_a_location(capsys, monkeypatch, tmp_path):
    seen: dict[str, list[dict]] = {}
    monkeypatch.chdir(ROOT)
    for case in sorted(ERRORS.glob("*.yaml")) + sorted(TRANSFORM_ERRORS.glob("*.yaml")):
        _seen(
            json.loads(run_cli(["validate", case.relative_to(ROOT).as_posix(), "--format", "json"], capsys).out), seen
        )
    for code, (files, args) in SPECIAL.items():
        folder = tmp_path / code
        for name, data in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
        folder.mkdir(exist_ok=True)
        monkeypatch.chdir(folder)
        _seen(json.loads(run_cli([*args, "--format", "json"], capsys).out or "[]"), seen)
    for text in BEHIND_THE_SCHEMA.values():
        _seen(_built_without_validation(text), seen)
    wanted = _documented() - NEEDS_A_REGISTRY
    assert sorted(wanted - set(seen)) == []
    without = sorted(
        {f"{code}: {d['message']}" for code in wanted for d in seen[code] if not d["hint"] or not d["loc"]}
    )
    assert without == []
