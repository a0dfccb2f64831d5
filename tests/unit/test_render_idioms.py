"""render.IDIOMS writes a runtime helper's call only for the exact expression the helper builds: the same shape with
another function (from_csv's options are from_json's) stays the expression it is."""

from __future__ import annotations

from pipec import ir
from pipec.emit.render import PERMISSIVE, POSITIONED, WHERE, tree

DDL = "STRUCT<`id`: BIGINT, `__pipec_corrupt`: STRING>"


def _decoder(function: str) -> ir.Func:
    return ir.Func(function, (ir.Cast(ir.Col("value"), "STRING"), ir.Arg(DDL), ir.Arg(PERMISSIVE)))


def test_a_permissive_from_json_is_parsed_json():
    assert tree(_decoder("from_json")) == f"parsed_json(F.col('value'), {DDL!r})"


def test_a_permissive_from_csv_stays_from_csv():
    text = tree(_decoder("from_csv"))
    assert text.startswith("F.from_csv(F.col('value').cast('STRING'), ") and "parsed_json" not in text


def test_only_raise_error_of_a_positioned_message_is_record_error():
    message = ir.Func("format_string", (ir.Arg("bad" + POSITIONED), *WHERE))
    assert tree(ir.Func("raise_error", (message,))) == "record_error('bad')"
    assert "record_error" not in tree(ir.Func("coalesce", (message,)))
