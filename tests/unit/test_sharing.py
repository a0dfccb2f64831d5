"""Repeated subexpressions of a statement become locals (compiler/emit/subexpressions.py): the op reads the same expression
tree as before, the job's text stays linear in what the YAML asks."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pipec import ir
from pipec.emit import render
from pipec.emit import subexpressions as sharing
from pipec.ir import field_names
from pipec.project.driver import build_all, generate_all
from pipec.transforms.javanumbers import decode_bytes

ROOT = Path(__file__).resolve().parents[2]


def _inline(node: object, locals_: dict[str, ir.Expr]) -> object:
    """`node` with each local read replaced by its expression (what Spark receives)."""
    if isinstance(node, ir.Var) and node.name in locals_:
        return _inline(locals_[node.name], locals_)
    if isinstance(node, tuple):
        return tuple(_inline(n, locals_) for n in node)
    names = field_names(node)
    return node if names is None else replace(node, **{n: _inline(getattr(node, n), locals_) for n in names})


def _set_value(expr: ir.Expr) -> ir.Op:
    return ir.SetColumns((("value", expr),))


def test_a_little_endian_float64_reads_its_bits_through_locals_and_means_the_same_tree():
    op = _set_value(decode_bytes(ir.Get(ir.Col("value"), "raw"), "float64", little_endian=True))
    shared, rewritten = sharing.hoist(op)
    assert [name for name, _ in shared] == [f"shared_{i}" for i in range(1, len(shared) + 1)]
    assert len(shared) >= 2
    assert _inline(rewritten, dict(shared)) == op
    # each local is assigned before any statement reads it
    for i, (_, value) in enumerate(shared):
        assert not {n for n, _ in shared[i:]} & _vars(value)


def _vars(node: object) -> set[str]:
    if isinstance(node, ir.Var):
        return {node.name}
    return set().union(*(_vars(c) for c in sharing._children(node)))


def test_small_statements_and_small_repeats_stay_as_written():
    read = ir.Get(ir.Col("value"), "a")
    op = _set_value(ir.Func("concat", (read, read)))
    assert sharing.hoist(op) == ([], op)


def test_a_repeat_that_reads_a_lambda_parameter_stays_inside_its_lambda():
    x = ir.Var("x")
    heavy = ir.Func(
        "concat",
        tuple(
            ir.Func(
                "lower",
                (
                    ir.Func(
                        "concat",
                        (x, ir.Lit(str(i))),
                    )
                ),
            )
            for i in range(6)
        ),
    )
    body = ir.Func("concat", (heavy, heavy))
    op = _set_value(ir.Func("transform", (ir.Col("items"), ir.Lambda("x", body))))
    shared, rewritten = sharing.hoist(op)
    assert shared == [] and rewritten == op


def test_the_bytes_cast_job_stays_linear_in_its_steps(tmp_path):
    result = build_all([str(ROOT / "tests" / "transforms" / "pipelines" / "cast_bytes.yaml")])
    result.diags.check()
    (text,) = generate_all(result).values()
    assert len(text.splitlines()) < 1500  # 5,824 lines when every read of the bits was written out
    assert "shared_1 = " in text


def test_rendered_statements_assign_the_locals_first():
    op = _set_value(decode_bytes(ir.Get(ir.Col("value"), "raw"), "float64", little_endian=False))
    lines = render.block(ir.Block("step", (op,)))
    assert lines[0] == "# step"
    assert lines[1].startswith("shared_1 = ") and lines[-1].startswith("records = records.withColumns(")
