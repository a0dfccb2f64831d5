"""Golden files: YAML in, the exact generated code out, without Spark (in the style of sqlglot's fixtures).

A golden file is Markdown. An optional ```yaml block before the first `## ` heading sets top-level pipeline keys
for every case of the file. Each `## title` section is one case: a ```yaml block of top-level pipeline keys and a
```python block with the code pipec generates for it: the step blocks of `chain()` (transforms/, predicates/),
the source's `decode()` blocks (sources/), or the sink's `encode()` block (sinks/), exactly as in the job,
dedented. A case's keys win over the file's, the file's over BASE. The case's YAML comes first in the compiled
document, so the `golden.yaml:N` of a step's comment is its line in the case's block.

`PIPEC_UPDATE_GOLDEN=1` rewrites every ```python block with what pipec generates now (and adds missing ones);
review the diff like any other change.
"""

from __future__ import annotations

import os
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import yaml

from pipec.emit import render
from pipec.resolve.builder import Builder
from pipec.diagnostics import Collector
from pipec.emit.formatter import format_source
from pipec.load.document import load_text
from pipec.lower.record_path import lower
from pipec.validate.schema import validate_document

HERE = Path(__file__).resolve().parent
UPDATE = os.environ.get("PIPEC_UPDATE_GOLDEN") == "1"
FILE = "golden.yaml"

# What each folder's files show: the IR blocks of these job functions.
SHOWN = {"transforms": ("chain",), "predicates": ("chain",), "lowering": ("chain",), "sources": ("decode", "chain"), "sinks": ("encode",)}

BASE = """\
version: 1
name: golden
mode: batch
source:
  connector: files
  path: in
  format: json
  key: {fields: [id]}
  columns:
    - {name: id, type: BIGINT}
    - {name: name, type: STRING}
    - {name: amount, type: DOUBLE}
    - {name: price, type: "DECIMAL(10, 2)"}
    - {name: qty, type: INT}
    - {name: active, type: BOOLEAN}
    - {name: raw, type: BYTES}
    - {name: created, type: TIMESTAMP_LTZ(3)}
    - {name: day, type: DATE}
    - {name: stamp, type: STRING}
    - {name: epoch, type: BIGINT}
    - {name: tags, type: "ARRAY<STRING>"}
    - {name: attrs, type: "MAP<STRING, STRING>"}
    - {name: customer, type: "STRUCT<name STRING, card STRING, address STRUCT<city STRING, zip STRING>>"}
sink: {connector: files, path: out, format: json}
"""

RETURN = "return records"  # closes each case's function (a step may generate no statement)
FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass
class Case:
    title: str
    config: str  # the ```yaml block
    code: str | None  # the ```python block; None when missing
    code_lines: tuple[int, int] | None  # [start, end) of the python block's content in the file's lines
    after_config: int  # the line after the yaml block's closing fence


@dataclass
class GoldenFile:
    path: Path
    lines: list[str]
    setup: str
    cases: list[Case]

    @property
    def shown(self) -> tuple[str, ...]:
        return SHOWN[self.path.parent.name]

    @property
    def name(self) -> str:
        return self.path.relative_to(HERE).as_posix()


def _blocks(lines: list[str], start: int, end: int) -> list[tuple[str, int, int, int]]:
    """(language, content start, content end, line after the closing fence) of each fenced block."""
    out, i = [], start
    while i < end:
        m = FENCE.match(lines[i])
        if m and m.group(1):
            j = i + 1
            while j < end and lines[j].rstrip() != "```":
                j += 1
            out.append((m.group(1), i + 1, j, j + 1))
            i = j
        i += 1
    return out


def read(path: Path) -> GoldenFile:
    lines = path.read_text(encoding="utf-8").splitlines()
    heads = [i for i, line in enumerate(lines) if line.startswith("## ")] + [len(lines)]
    setup = [b for b in _blocks(lines, 0, heads[0]) if b[0] == "yaml"]
    cases = []
    for start, end in zip(heads, heads[1:]):
        blocks = _blocks(lines, start + 1, end)
        configs = [b for b in blocks if b[0] == "yaml"]
        codes = [b for b in blocks if b[0] == "python"]
        assert len(configs) == 1 and len(codes) <= 1, f"{path.name}:{start + 1}: a case has one yaml and one python block"
        _, c0, c1, after = configs[0]
        code = ("\n".join(lines[codes[0][1]:codes[0][2]]) + "\n", codes[0][1:3]) if codes else (None, None)
        cases.append(Case(lines[start][3:].strip(), "\n".join(lines[c0:c1]) + "\n", code[0], code[1], after))
    text = "\n".join(lines[setup[0][1]:setup[0][2]]) + "\n" if setup else ""
    return GoldenFile(path, lines, text, cases)


def every_file() -> list[GoldenFile]:
    return [read(p) for p in sorted(HERE.glob("*/*.md"))]


def top_level(text: str) -> dict[str, str]:
    """Each top-level key of a YAML mapping -> its lines (keys start in column 0; comment lines are dropped)."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line[:1] not in (" ", "#", ""):
            current = out.setdefault(line.split(":", 1)[0], [])
        if current is not None and line.strip() and not line.lstrip().startswith("#"):
            current.append(line)
    return {key: "\n".join(lines) for key, lines in out.items()}


def document(golden: GoldenFile, case: Case) -> str:
    """The pipeline compiled for a case: its keys, then the file's setup keys, then BASE's, each key once."""
    parts, taken = [case.config.rstrip("\n")], set(yaml.safe_load(case.config) or {})
    for text in (golden.setup, BASE):
        for key, lines in top_level(text).items():
            if key not in taken:
                parts.append(lines)
                taken.add(key)
    return "\n".join(parts) + "\n"


def statements(golden: GoldenFile, case: Case) -> list[str]:
    """The unformatted statements (and warnings, as comments) pipec generates for a case; AssertionError with its
    diagnostics when it does not compile."""
    diags = Collector()
    doc = load_text(document(golden, case), FILE, diags)
    compiled = Builder(doc, diags).build() if doc is not None and validate_document(doc, diags) else None
    shown = "\n".join(d.render() for d in diags.items)
    assert compiled is not None and not diags.errors, f"{golden.name} '{case.title}' does not compile:\n{shown}"
    lowered = lower(compiled)
    blocks = {"decode": (lowered.decode,), "chain": lowered.chain, "encode": (lowered.encode,)}
    warnings = [f"# {render.comment_text(d.render())}" for d in diags.warnings]
    return warnings + [line for part in golden.shown for block in blocks[part] for line in render.block(block)]


def generate(golden: GoldenFile) -> list[str]:
    """Each case's code, formatted as it stands in the job (one indentation level deep), then dedented.
    The cases of a file go through the formatter together, as functions of one module."""
    functions = [
        f"def case_{i}(records):\n" + textwrap.indent("\n".join([*statements(golden, case), RETURN]), "    ")
        for i, case in enumerate(golden.cases)
    ]
    formatted = format_source("\n\n\n".join(functions) + "\n", "golden.py")
    bodies = re.split(r"^def case_\d+\(records\):\n", formatted, flags=re.M)[1:]
    return [textwrap.dedent(body.rstrip("\n").removesuffix(RETURN).rstrip(" \n")) + "\n" for body in bodies]


def rewrite(golden: GoldenFile, codes: list[str]) -> str:
    """The file's text with every case's python block set to `codes` (inserted after the yaml block if missing)."""
    lines = list(golden.lines)
    for case, code in sorted(zip(golden.cases, codes), key=lambda cc: -cc[0].after_config):
        new = code.rstrip("\n").split("\n")
        if case.code_lines:
            lines[case.code_lines[0]:case.code_lines[1]] = new
        else:
            lines[case.after_config:case.after_config] = ["", "```python", *new, "```"]
    return "\n".join(lines) + "\n"
