"""`pipec import connect FILE... [--out DIR] [--value-sample F] [--key-sample F]`: translate, check by compiling,
write (all or nothing), and say what did not map."""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

from ..diagnostics import Collector, CompileError, Location, render_all
from ..project.driver import build_all, write_atomically
from .connect_columns import SampleError, read_sample
from .connect_config import ConfigSyntaxError, ConnectorConfig, read_config
from .connect_import import Imported, Importer

# Where a compile error of the imported YAML points back to in the connector config, by top-level YAML key.
SECTION_KEYS = {
    "source": ("topics", "topics.regex", "value.converter"),
    "sink": (
        "iceberg.tables",
        "delta.lake.topic2table.map",
        "delta.lake.table.format",
        "value.converter",
        "key.converter",
        "connector.class",
    ),
    "errors": ("errors.tolerance",),
    "predicates": ("predicates",),
}


def config_location(text: str, line: int, config: ConnectorConfig) -> tuple[Location, str]:
    """The connector config's entry behind `line` of an imported pipeline: the transform's type for a step, else the
    setting the YAML section came from."""
    section, alias = None, None
    for row in text.splitlines()[:line]:
        if row and not row.startswith((" ", "#", "-")):
            section, alias = row.split(":")[0], None
        elif row.strip().startswith("- name: "):
            alias = row.strip()[len("- name: ") :].strip('"')
    entry = config.entries.get(f"transforms.{alias}.type") if section == "transforms" and alias else None
    if entry is not None:
        return entry.loc, f"transform '{alias}'"
    for key in SECTION_KEYS.get(section or "", ()):
        if key in config.entries:
            return config.entries[key].loc, f"{key} ({section})"
    return Location(config.file, 1, 1), "the imported pipeline"


def check_compiles(imported: Imported, config: ConnectorConfig) -> None:
    """Compile the imported YAML; pipec's errors become refusals at the connector config's own lines."""
    with tempfile.TemporaryDirectory(prefix="pipec-import-") as tmp:
        path = Path(tmp) / f"{imported.name}.yaml"
        path.write_text(imported.text, encoding="utf-8")
        result = build_all([str(path)])
    for d in result.diags.items:
        loc, where = (
            config_location(imported.text, d.loc.line, config)
            if d.loc
            else (Location(config.file, 1, 1), "the imported pipeline")
        )
        report = imported.diags.error if d.severity == "error" else imported.diags.warn
        report("I300", f"{where}: {d.message}", loc, d.hint)


def import_connect(args) -> int:
    try:
        value_sample = read_sample(Path(args.value_sample)) if args.value_sample else None
        key_sample = read_sample(Path(args.key_sample)) if args.key_sample else None
    except SampleError as exc:
        print(f"pipec import connect: {exc}", file=sys.stderr)
        return 2
    results: list[Imported] = []
    diags = Collector()
    for name in args.files:
        path = Path(name)
        if not path.is_file():
            diags.error(
                "E005",
                f"no such file: {name}",
                Location(name, 1, 1),
                "name a Kafka Connect config (.json or .properties)",
            )
            continue
        try:
            config = read_config(path)
        except (ConfigSyntaxError, UnicodeDecodeError) as exc:
            diags.error(
                "I001",
                getattr(exc, "message", str(exc)),
                getattr(exc, "loc", Location(str(path), 1, 1)),
                "write the config as Kafka Connect's JSON or .properties, in UTF-8",
            )
            continue
        imported = Importer(config, value_sample, key_sample).run()
        if not imported.diags.errors:
            check_compiles(imported, config)
        diags.extend(imported.diags.items)
        results.append(imported)
    placed = 0 if diags.errors else placeholders(results, args.out, diags)
    if diags.items:
        print(render_all(diags.items, args.format), file=sys.stderr)
    if diags.errors:
        print(
            "pipec import connect: nothing written (fix the configs above, or import the others alone)", file=sys.stderr
        )
        return 2
    names = [r.name for r in results]
    if len(set(names)) != len(names):
        print(f"pipec import connect: two connectors give the same pipeline name ({', '.join(names)})", file=sys.stderr)
        return 2
    if args.out:
        try:
            written = write_atomically(Path(args.out), {f"{r.name}.yaml": r.text for r in results})
        except CompileError as exc:
            print(render_all(exc.diagnostics, args.format), file=sys.stderr)
            return 2
        for target in written:
            print(f"wrote {target}", file=sys.stderr)
    else:
        print("---\n".join(r.text for r in results), end="")
    if placed and not args.allow_todo:
        print(
            f"pipec import connect: {placed} placeholder(s) to replace before the pipeline can run (exit 1; "
            "--allow-todo exits 0)",
            file=sys.stderr,
        )
        return 1
    return 0


PLACEHOLDER = re.compile(r"\bTODO_\w+")


def placeholders(results: list[Imported], out: str | None, diags: Collector) -> int:
    """A warning at each `TODO_...` placeholder of the YAML (outside comments), located in the file written (or in
    stdout, the documents one after the other); how many there are."""
    count, offset = 0, 0
    for r in results:
        where = (Path(out) / f"{r.name}.yaml").as_posix() if out else "<stdout>"
        lines = r.text.splitlines()
        for number, line in enumerate(lines, 1):
            if line.lstrip().startswith("#"):
                continue
            for found in PLACEHOLDER.finditer(line):
                why = r.placeholders.get(found.group(), "")
                diags.warn(
                    "I400",
                    f"placeholder {found.group()}" + (f": {why}" if why else ""),
                    Location(where, offset + number, found.start() + 1),
                    "replace it before deploying",
                )
                count += 1
        offset += len(lines) + 1  # the `---` between documents
    return count
