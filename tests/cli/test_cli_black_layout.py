"""pipec lays jobs out itself (compiler/emit/format/printer); black stays the formatter of record: every job must be exactly
what black (-l 100 -t py310) writes for it: the checked-in generated/ jobs and a synthetic corpus of every
transform family at many lengths and literals (bench/synthetic.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.synthetic import pipeline_yaml
from pipec import ir
from pipec.emit import render
from pipec.emit.format.black_mode import is_formatted
from pipec.emit.format.printer import black_statement, lay_out, syntax
from pipec.project.driver import build_all, generate_all

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("job", sorted((ROOT / "generated").glob("*.py")), ids=lambda p: p.name)
def test_checked_in_job_is_blacks_output(job):
    assert is_formatted(job.read_text(encoding="utf-8"))


def test_synthetic_corpus_is_blacks_output(tmp_path):
    for steps in (1, 2, 5, 13, 20, 37, 50):
        for variant in (0, 7, 123456789):
            (tmp_path / f"s{steps}_{variant}.yaml").write_text(pipeline_yaml(f"s{steps}_{variant}", steps, variant), encoding="utf-8")
    jobs = generate_all(build_all([str(tmp_path)]))
    assert len(jobs) == 21
    unstable = [name for name, source in jobs.items() if not is_formatted(source)]
    assert unstable == []


def test_statements_of_a_run_of_struct_edits_are_blacks_output():
    """The shapes of compiler/lower/fusion.py's statements (subscript reads of the run's fields, `{**value, ...}`,
    `value.pop(...)`, the struct built from them) at many lengths, laid out by the printer and by black."""
    differ = []
    for width in range(1, 120, 4):
        name = "f" * width
        field = ir.Field("value", name)
        expressions = (
            field,
            ir.Method(field, "cast", (ir.Arg("BIGINT"),)),
            ir.NullSafe(field, ir.Lit("***")),
            ir.Struct(((name, field), ("b", ir.Field("value", "b")))),
            ir.Method(ir.Method(field, "withField", (ir.Arg("x"), ir.Field("value", name[:5]))), "dropFields", (ir.Arg("y"),)),
            ir.Not(ir.IsNull(field)),
        )
        for e in expressions:
            for op in (ir.SetFields("value", ((name, e),)), ir.NewFields("value", ((name, e), ("z", e))),
                       ir.DropField("value", name), ir.SetColumns((("value", e),)), ir.OnNull("value", e)):
                differ += _differ_from_black(render.statement(op))
    assert differ == []


def test_a_subscript_last_on_its_line_is_blacks_output():
    """A subscript's `]` is a trailer's: black keeps the optional parentheses of a right-hand side that ends in
    one and holds a delimiter (where a list's `]` would let it omit them)."""
    differ = []
    for width in range(1, 120, 2):
        subscript = syntax.Subscript(syntax.Name("value"), syntax.String(f'"{"f" * width}"'))
        column = syntax.Call(syntax.Attr(syntax.Name("F"), "col"), [syntax.String('"x"')])
        for value in (subscript, syntax.BinOp("+", syntax.Name("abc"), subscript), syntax.BinOp("==", column, subscript),
                      syntax.Call(syntax.Attr(subscript, "alias"), [syntax.String(f'"{"g" * width}"')])):
            differ += _differ_from_black(syntax.assign(syntax.Name("value_if_null"), value))
    assert differ == []


def _differ_from_black(statement: syntax.Statement) -> list[tuple[str, int]]:
    return [(syntax.source(statement), depth) for depth in (1, 2)
            if lay_out(statement, depth) != black_statement(syntax.source(statement), depth)]
