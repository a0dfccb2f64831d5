"""compiler/lower/fusion.py without Spark: field paths, and which steps join a run (the code itself: tests/golden/lowering)."""

from __future__ import annotations

import pytest
from pipec import ir
from pipec.lower import fusion
from pipec.lower.fusion import Run, Unfusable, split_path
from pipec.shape import Shape
from pipec.transforms.structs import spark_field_path
from pipec.types.sql import BIGINT, STRING, StructField, StructType


@pytest.mark.parametrize("steps", [("a",), ("a", "b"), ("a.b", "c"), ("x`y", "z z"), ("``", "."), ("ü", "1a")])
def test_split_path_reads_what_spark_field_path_writes(steps):
    assert split_path(spark_field_path(steps)) == steps


@pytest.mark.parametrize("path", ["`open", "`a`b", "a.`b"])
def test_a_path_spark_would_not_write_is_not_fused(path):
    with pytest.raises(Unfusable):
        split_path(path)


VALUE = ir.Col("value")
SHAPE = Shape(key=None, value=StructType((StructField("id", BIGINT), StructField("name", STRING))))


def block(expr: ir.Expr) -> ir.Block:
    return ir.Block("step", (ir.SetColumns((("value", expr),)),))


def test_an_edit_that_reads_the_whole_value_does_not_join():
    run = Run.start("value", SHAPE)
    assert not run.add(
        block(ir.Method(VALUE, "withField", (ir.Arg("copy"), ir.Func("to_json", (VALUE,))))),
        ir.Func("to_json", (VALUE,)),
    )
    assert not run.add(block(VALUE), ir.Method(VALUE, "withField", (ir.Arg("copy"), ir.Func("to_json", (VALUE,)))))


def test_a_name_spark_resolves_ignoring_case_does_not_join():
    run = Run.start("value", SHAPE)
    assert not run.add(block(VALUE), ir.Method(VALUE, "withField", (ir.Arg("NAME"), ir.Lit("x"))))
    assert run.add(block(VALUE), ir.Method(VALUE, "withField", (ir.Arg("name"), ir.Lit("x"))))


def test_each_edit_reads_the_fields_before_its_step():
    """Kafka's `withField` chain of one step reads the step's input: the swap is one update, not two assignments."""
    run = Run.start("value", SHAPE)
    swap = ir.Method(
        ir.Method(VALUE, "withField", (ir.Arg("id"), ir.Get(VALUE, "name"))),
        "withField",
        (ir.Arg("name"), ir.Get(VALUE, "id")),
    )
    assert run.add(block(swap), swap)
    ((_, ops),) = run.steps
    assert ops == [ir.SetFields("value", (("id", ir.Field("value", "name")), ("name", ir.Field("value", "id"))))]


def test_a_run_stops_before_a_field_grows_past_the_bound():
    run = Run.start("value", SHAPE)
    double = ir.Method(VALUE, "withField", (ir.Arg("id"), ir.BinOp("+", ir.Get(VALUE, "id"), ir.Get(VALUE, "id"))))
    joined = 0
    while run.add(block(double), double):
        joined += 1
    assert 5 <= joined <= 10  # the expression doubles per step: 2^joined nodes stay under MAX_FIELD_NODES


def test_a_cast_of_a_field_the_run_cast_ends_the_run():
    """Spark drops the inner cast of cast(cast(long as float) as double) when both sit in one expression."""
    run = Run.start("value", SHAPE)
    to_float = ir.Method(VALUE, "withField", (ir.Arg("id"), ir.Cast(ir.Get(VALUE, "id"), "FLOAT")))
    to_double = ir.Method(VALUE, "withField", (ir.Arg("id"), ir.Cast(ir.Get(VALUE, "id"), "DOUBLE")))
    kept = ir.NullSafe(VALUE, ir.Struct((("id", ir.Get(VALUE, "id")), ("name", ir.Get(VALUE, "name")))))
    assert run.add(block(to_float), to_float)
    assert run.add(block(kept), kept)  # a field passed on as it is stays a cast
    assert not run.add(block(to_double), to_double)


PARSED = ir.Col("__value")
DECODED = fusion.Decoded(PARSED, (("id", ir.Get(PARSED, "id")), ("name", ir.Col("__header_name"))))
RENAME = ir.Method(VALUE, "withField", (ir.Arg("name"), ir.Lit("x")))


def built(blocks: list[ir.Block]) -> ir.Expr:
    ((name, expr),) = blocks[-1].ops[0].columns
    assert name == "value"
    return expr


def test_a_run_at_the_start_of_the_chain_reads_the_parsed_payload_not_the_decoded_struct():
    blocks = fusion.fuse([block(RENAME)], [SHAPE], {"value": DECODED})
    assert blocks[0].ops[0] == ir.NewFields("value", DECODED.fields)
    assert built(blocks) == ir.NullSafe(
        PARSED, ir.Struct((("id", ir.Field("value", "id")), ("name", ir.Field("value", "name"))))
    )


def test_a_filter_before_the_run_keeps_the_parsed_payload_readable():
    keep = ir.Block("filter", (ir.Where(ir.Func("array_contains", (ir.Get(ir.Col("headers"), "key"), ir.Lit("t")))),))
    blocks = fusion.fuse([keep, block(RENAME)], [None, SHAPE], {"value": DECODED})
    assert isinstance(built(blocks), ir.NullSafe) and built(blocks).base == PARSED


def test_a_step_that_sets_what_the_decoded_fields_read_makes_the_run_read_the_value():
    """After a step that sets a column the decode's layout reads, that layout is no longer the value's."""
    for column in ("__header_name", "value"):
        setter = ir.Block("set", (ir.SetColumns(((column, ir.Lit("y")),)),))
        blocks = fusion.fuse([setter, block(RENAME), block(RENAME)], [None, SHAPE, SHAPE], {"value": DECODED})
        assert built(blocks).base == VALUE


def test_a_single_step_is_left_as_it_is_unless_it_reads_the_parsed_payload():
    assert fusion.fuse([block(RENAME)], [SHAPE]) == [block(RENAME)]
