"""The `files` source under `errors.tolerance: all`: json, csv and text files read line by line.

Spark's json and csv readers turn a malformed line into nulls (PERMISSIVE) or fail the query (FAILFAST); neither
says which line. Under `tolerance: all` the job reads the files as text instead: the job's `numbered_lines`
(templates/sources/files.py.j2) numbers each line in its file, natively and from the one read (a window over the
file's lines in read order), and decode parses each line with `from_json`/`from_csv`, so a line that does not
parse goes to the dead letters untouched, with its file and line number (docs/errors.md).
"""

from __future__ import annotations

from dataclasses import replace

from .. import ir
from ..emit.render import doc_text, path_expr, py_literal
from ..model import Source
from ..record_errors import CONVERTER_STAGES, PARSED_VALUE, in_file
from ..transforms.base import Lowering
from ..types.sql import StructField, StructType
from . import json_timestamps
from .base import empty_headers
from .files import FILE, FILES_SOURCE, _topic, reader_schema, record

LINE_FORMATS = ("json", "csv", "text")
# Spark's file source options, which the text reader takes as they are; the others are the format's parsing options
READER_OPTIONS = frozenset(
    {
        "lineSep",
        "recursiveFileLookup",
        "pathGlobFilter",
        "modifiedBefore",
        "modifiedAfter",
        "ignoreCorruptFiles",
        "ignoreMissingFiles",
        "maxFilesPerTrigger",
        "maxBytesPerTrigger",
        "latestFirst",
        "fileNameOnly",
        "maxFileAge",
        "cleanSource",
        "sourceArchiveDir",
    }
)
LINE_OPTIONS = frozenset({"header", "comment", "enforceSchema"})  # what `numbered_lines` does, or nothing per line
# Options whose meaning a line-by-line read under tolerance: all cannot keep: (why, hint)
REFUSED_OPTIONS = {
    "multiLine": (
        "a multiLine record spans lines, and dead letters are single lines",
        "remove multiLine, or use tolerance: none",
    ),
    "mode": ("tolerance: all decides what a malformed line does", "remove mode"),
    "columnNameOfCorruptRecord": (
        "tolerance: all sends a malformed line to the dead letters",
        "remove columnNameOfCorruptRecord",
    ),
    "encoding": ("lines are read as UTF-8 to number them", "convert the files to UTF-8, or use tolerance: none"),
    "charset": ("lines are read as UTF-8 to number them", "convert the files to UTF-8, or use tolerance: none"),
    "wholetext": ("each line is a record", "remove wholetext"),
}
UTF8 = ("utf-8", "utf8")


def _options(source: Source) -> dict[str, str]:
    return dict(source.config.options)


def dead_letter_refusals(source: Source) -> list[tuple[str, tuple[str, ...], str]]:
    """What keeps this files source from sending malformed lines to the dead letters: (message, path, hint)."""
    if source.config.format not in LINE_FORMATS:
        return [
            (
                f"tolerance: all needs a files source of lines ({', '.join(LINE_FORMATS)}): a dead letter is the line as "
                f"read, with its file and line number, and {source.config.format} files have no lines",
                ("format",),
                "use tolerance: none (the job fails on a bad record, naming it)",
            )
        ]
    refused = []
    for key, value in _options(source).items():
        if (
            key in REFUSED_OPTIONS
            and not (key in ("encoding", "charset") and str(value).lower() in UTF8)
            and not (key in ("multiLine", "wholetext") and str(value).lower() == "false")
        ):
            why, hint = REFUSED_OPTIONS[key]
            refused.append((f"options.{key} with tolerance: all: {why}", ("options", key), hint))
    return refused


def lines_reader(source: Source) -> dict:
    """Spark's text reader over the files, and what `numbered_lines` skips (the job's FILE_LINES, as values): blank
    lines (json, csv: Spark's readers skip them), csv's header line and comment lines."""
    options = _options(source)
    csv = source.config.format == "csv"
    header = csv and str(options.get("header", "false")).lower() == "true"
    comment = options.get("comment") if csv else None
    return {
        "schema": py_literal("`value` STRING"),
        "format": py_literal("text"),
        "options": py_literal({k: v for k, v in options.items() if k in READER_OPTIONS}),
        "path": path_expr(source.config.path),
        "summary": doc_text(
            f"{source.config.format} files at {source.config.path.raw if source.config.path else '?'}, read line by line; "
            "each line is one record value."
        ),
        "lines": {
            "skip_blank": source.config.format != "text",
            "header": header,
            "comment": comment or None,
        },
    }


def raw_line(source: Source, pipeline: str) -> ir.Struct:
    """The record a dead letter carries: the line as read (the value), no key or headers, the records' topic and
    partition, the line's number as its offset, and its file."""
    return ir.Struct(
        (
            ("key", ir.Null("BINARY")),
            ("value", ir.Cast(ir.Col("value"), "BINARY")),
            ("topic", _topic(source, pipeline)),
            ("partition", ir.Cast(ir.Lit(0), "INT")),
            ("offset", ir.Col("__line")),
            ("timestamp", ir.Get(FILE, "file_modification_time")),
            ("timestampType", ir.Cast(ir.Lit(1), "INT")),
            ("headers", empty_headers()),
            ("file", ir.Get(FILE, "file_path")),
        )
    )


class LineLowering(Lowering):
    """Record errors that name the line's file and number (a line has no topic, partition and offset yet)."""

    def record_error(self, reason: str) -> ir.Expr:
        return ir.Func("raise_error", (in_file(f"{self.owner}: {reason}"),))


def _parsed(source: Source) -> ir.Expr:
    """The line parsed by the format's decoder, with the format's parsing options (FAILFAST: see record_errors)."""
    struct = reader_schema(source)
    parsing = {k: v for k, v in _options(source).items() if k not in READER_OPTIONS | LINE_OPTIONS}
    schema = ir.Arg(struct.ddl())
    return ir.Func(
        "from_json" if source.config.format == "json" else "from_csv",
        (ir.Col("value"), schema, ir.Arg({**parsing, "mode": "FAILFAST"})),
    )


def decode_lines(source: Source, pipeline: str) -> tuple[ir.Op, ...]:
    """Numbered lines -> the record model: each line parsed once (json, csv), then laid out as `decode_files` does."""
    if source.config.format == "text":
        return (ir.Apply("numbered_lines"), record(source, pipeline, lambda c: ir.Col("value")))
    struct = StructType(tuple(StructField(c.name, c.type) for c in source.config.columns if c.physical))
    converted = ()
    if source.config.format == "json" and json_timestamps.has_timestamp(struct):
        errors = LineLowering(f"{CONVERTER_STAGES['value']}: source value", None)
        converted = (
            ir.SetColumns(((PARSED_VALUE, json_timestamps.converted(ir.Col(PARSED_VALUE), struct, errors, "")),)),
        )
    return (
        ir.Apply("numbered_lines"),
        ir.SetColumns(((PARSED_VALUE, _parsed(source)),)),
        *converted,
        record(source, pipeline, lambda c: ir.Get(ir.Col(PARSED_VALUE), c.name)),
    )


FILES_SOURCE = replace(
    FILES_SOURCE,
    tolerant_reader=lines_reader,
    tolerant_decode=decode_lines,
    raw_record=raw_line,
    position=in_file,
    dead_letter_refusals=dead_letter_refusals,
)
