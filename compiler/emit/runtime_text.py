"""A job's imports, settings and runtime: the parts of compiler/runtime/ it uses, pasted verbatim in PARTS order.

A part's relative imports say what it needs (compiler/runtime/__init__.py): another part, or a setting or function
of the job's pipeline part (`job_names`). The parts a job carries are the closure over those imports of its roots:
the parts that define a name the pipeline part reads, and the ones its features choose among alternatives (how
it runs, how it starts its query, its entry point). The settings it carries are the names of `job_names` those
parts read, in `SETTINGS` order. The modules are read as text and parsed once per process; pipec never imports
them (they import pyspark).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..runtime import ALTERNATIVES, PARTS
from ..spark_versions import PACKAGES_VERSION_ENV, PACKAGES_VERSION_OPTION
from .formatter import LINE_LENGTH

RUNTIME = Path(__file__).resolve().parent.parent / "runtime"
JOB_NAMES = "job_names"

# The settings a job's pipeline part opens with, in this order: name -> the comment beside it.
SETTINGS = {
    "PIPELINE": "",
    "STREAMING": "",
    "OPTIONS": "each overrides the YAML's setting",
    "TRIGGER": "--trigger's default",
    "CHECKPOINT": "the sink's checkpoint folder (--checkpoint overrides it)",
    "DEAD_LETTERS": "errors.tolerance: all: bad records go to the dead-letter queue",
    "DEAD_LETTER_CONTEXT": "deadletterqueue.context.headers.enable: __connect.errors.* headers on each",
    "LOG_DEAD_LETTERS": "errors.log.enable: each batch's first dead letter and how many more",
    "LOG_RECORDS": "errors.log.include.messages: with its key and value",
    "FILE_LINES": "what the source's reader skips, read line by line (numbered_lines)",
    "SPARK_CONNECTORS": "spark_packages() picks their Scala suffix and release",
    "SPARK_NEEDED": "the oldest Spark line with every function the job calls",
    "SESSION_CONF": "",
    "TABLE_RUNTIMES": "the table formats read or written: their Spark runtimes per line (None: one has none)",
    "TABLE_SESSION": "the table formats' session settings (SQL extensions, catalog)",
    "TABLE_SINK": "the counts line names the rows the table inserted, updated, deleted",
    "SCHEMA_REGISTRY": "avro-confluent payloads read or written through a Schema Registry: payload -> url, "
    "subject, client options",
}

# The command-line options a job has when its code reads them (`args.NAME` for --NAME), in this order: flag -> help.
# Every job also has --master, --conf and --verbose (runtime/arguments.py).
OPTIONS = {
    "--bootstrap-servers": "Kafka bootstrap servers",
    "--checkpoint": "streaming checkpoint folder",
    "--trigger": "available-now | once | 'processing-time: 10 seconds' | real-time (Spark 4.1+)",
    PACKAGES_VERSION_OPTION: f"connector release of the Spark line (env {PACKAGES_VERSION_ENV})",
    "--source-path": "files or table source: read this path (Iceberg: its catalog's warehouse)",
    "--sink-path": "files or table sink: write to this path (Iceberg: its catalog's warehouse)",
}
_ARGS = re.compile(r"\bargs\.(\w+)")

# What the pipeline part itself may need imported: name -> (module, imported name or None for `import module`)
PIPELINE_IMPORTS = {
    "argparse": ("argparse", None),
    "DataFrame": ("pyspark.sql", "DataFrame"),
    "SparkSession": ("pyspark.sql", "SparkSession"),
    "Column": ("pyspark.sql", "Column"),
    "Window": ("pyspark.sql", "Window"),
    "F": ("pyspark.sql", "functions as F"),
    "A": ("pyspark.sql.avro", "functions as A"),
}


@dataclass(frozen=True, slots=True)
class Part:
    """One runtime module: the text a job carries, and what it needs."""

    name: str
    body: str
    imports: frozenset[tuple[str, str | None]]  # (module, name or "name as alias"; None: `import module`)
    needs: frozenset[str]  # other parts
    settings: frozenset[str]  # names of job_names it reads
    defines: frozenset[str]  # its top-level names


# A top-level name of a module in ruff's format, at the start of a line: `def NAME`, `class NAME`, `NAME = ...` or
# `NAME: type = ...` (tests/unit/test_runtime_modules.py: the names ast finds, in every part)
_DEFINED = re.compile(r"^(?:(?:def|class) ([A-Za-z_]\w*)|([A-Za-z_]\w*)(?: *:[^=\n]*)? *=(?!=))", re.M)


def _part(name: str) -> Part:
    """The part, its imports parsed (the docstring and imports end before ruff's first two blank lines: parsing only
    them takes a cold compile's 30 ms of parsing every part down to some 4) and its names scanned."""
    source = (RUNTIME / f"{name}.py").read_text(encoding="utf-8")
    module = ast.parse(source.split("\n\n\n", 1)[0])
    docstring = module.body[0].end_lineno if module.body and isinstance(module.body[0], ast.Expr) else 0
    imports, needs, settings, last_import = set(), set(), set(), 0
    for node in module.body:
        if isinstance(node, ast.Import):
            imports.update((alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            if node.module != "__future__":
                imports.update((node.module, f"{a.name} as {a.asname}" if a.asname else a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.module == JOB_NAMES:
                settings.update(a.name for a in node.names if a.name.isupper())
            elif not any(a.name in ALTERNATIVES for a in node.names):  # chosen by the job's features
                needs.add(node.module)
        else:
            continue
        last_import = node.end_lineno
    lines = source.split("\n")
    defines = {d or a for d, a in _DEFINED.findall("\n".join(lines[docstring:]))}
    body = "\n".join(lines[last_import:]).strip("\n")
    return Part(name, body, frozenset(imports), frozenset(needs), frozenset(settings), frozenset(defines))


@lru_cache(maxsize=1)
def parts() -> dict[str, Part]:
    """Every part, by name, in PARTS order."""
    return {name: _part(name) for name in PARTS}


@lru_cache(maxsize=1)
def _providers() -> dict[str, str]:
    """name -> the one part that defines it (names of ALTERNATIVES are chosen, never looked up)."""
    return {n: p.name for p in parts().values() for n in p.defines if n not in ALTERNATIVES}


_NOT_CODE = re.compile(r'"""(?:[^\\]|\\.)*?"""|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|#[^\n]*', re.S)
_NAME = re.compile(r"(?<![.\w])[A-Za-z_]\w*")  # not an attribute (`x.split` reads no name `split`)


def names_read(code: str) -> set[str]:
    """The names Python text reads, outside its strings and comments (the pipeline part's YAML text is in those)."""
    return set(_NAME.findall(_NOT_CODE.sub(" ", code)))


def choose(names: set[str], chosen: tuple[str, ...]) -> list[Part]:
    """The parts a pipeline part reading `names` needs, with the alternatives `chosen`, closed over their needs,
    in PARTS order."""
    providers, table = _providers(), parts()
    wanted = {providers[n] for n in names if n in providers} | set(chosen)
    todo = list(wanted)
    while todo:
        for need in table[todo.pop()].needs:
            if need not in wanted:
                wanted.add(need)
                todo.append(need)
    return [p for p in table.values() if p.name in wanted]


def import_block(imports: set[tuple[str, str | None]]) -> str:
    """The job's imports, grouped (standard library, then pyspark) and sorted as isort's profile black sorts them."""
    groups = []
    for third_party in (False, True):
        group = {i for i in imports if (i[0].split(".")[0] == "pyspark") == third_party}
        plain = sorted(m for m, n in group if n is None)
        froms: dict[str, set[str]] = {}
        aliased = []
        for module, name in group:
            if name is not None and " as " in name:
                aliased.append(f"from {module} import {name}")
            elif name is not None:
                froms.setdefault(module, set()).add(name)
        lines = [f"import {m}" for m in plain]
        lines += sorted([f"from {m} import {', '.join(sorted(ns))}" for m, ns in froms.items()] + aliased)
        if lines:
            groups.append("\n".join(lines))
    return "from __future__ import annotations\n\n" + "\n\n".join(groups)


def assemble(
    pipeline_code: str, settings: dict[str, tuple[str, str]], chosen: tuple[str, ...], marker: str
) -> tuple[str, str]:
    """(the imports and settings that open the job, the runtime that ends it) for a pipeline part of
    `pipeline_code`: `settings` holds each setting's value as Python text, and what its comment adds; `marker` opens
    the runtime."""
    names = names_read(pipeline_code)
    used = choose(names, chosen)
    read = set(_ARGS.findall(_NOT_CODE.sub(" ", "\n".join([pipeline_code, *(p.body for p in used)]))))
    options = {flag: text for flag, text in OPTIONS.items() if flag[2:].replace("-", "_") in read}
    if "spark_lines" not in {p.name for p in used}:
        options.pop(PACKAGES_VERSION_OPTION, None)  # connectors of no Spark line to choose
    settings = {**settings, "OPTIONS": (repr(options), "")}
    imports = {PIPELINE_IMPORTS[n] for n in names if n in PIPELINE_IMPORTS}
    needed = set()
    for part in used:
        imports |= part.imports
        needed |= part.settings
    lines = []
    for name, comment in SETTINGS.items():
        if name in needed:
            value, more = settings[name]
            line = f"{name} = {value}"
            said = f"  # {comment}{more}" if comment else ""
            # beside the value where the line fits (as black and ruff leave it), else the line above
            lines += (
                [line + said] if len(line + said) <= LINE_LENGTH else ([f"# {comment}{more}"] if said else []) + [line]
            )
    head = import_block(imports) + "\n\n" + "\n".join(lines)
    runtime = "\n\n\n".join([f"{marker} {', '.join(p.name for p in used)}.", *(p.body for p in used)])
    return head, runtime
