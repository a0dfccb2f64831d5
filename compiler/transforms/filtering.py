"""Filter and the KIP-585 predicates: HasHeaderKey, RecordIsTombstone, TopicNameMatches."""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..changelog import is_delete
from ..shape import Shape
from .base import ConfigKey, ConfigReader, Lowering, PredicateSpec, TransformSpec
from .javaregex import check_java_regex
from .moves import no_moves

# ---------------------------------------------------------------- Filter


def lower_filter(cfg: None, shape: Shape, low: Lowering) -> tuple[ir.Op, ...]:
    """Drop every record the step applies to; `lower/record_path.py` narrows it with the step's predicate."""
    return (ir.Where(ir.Lit(False)),)


FILTER = TransformSpec(
    name="Filter",
    purpose="filter",
    doc="Drop the record. With `predicate:` only matching records are dropped (with `negate: true`, only the others).",
    keys=(),
    parse=lambda reader: None,
    infer=lambda cfg, shape, ctx: shape,
    lower=lower_filter,
    lineage=no_moves,
    filters=True,
    describe=lambda cfg, side: "drops the record",
    sides=False,
    example="- name: drop_tests\n  type: Filter\n  predicate: is_test",
)


# ---------------------------------------------------------------- predicates


@dataclass(frozen=True, slots=True)
class TopicNameMatchesConfig:
    pattern: str


def parse_topic_name_matches(reader: ConfigReader) -> TopicNameMatchesConfig | None:
    pattern = reader.nonempty("pattern")
    if pattern is None:
        return None
    problem = check_java_regex(pattern)
    if problem:
        reader.error(
            "pattern",
            f"invalid regex '{pattern}': {problem}",
            "write a Java regular expression (java.util.regex)",
            code="E304",
        )
        return None
    return TopicNameMatchesConfig(pattern)


def full_match(column: ir.Expr, pattern: str) -> ir.Expr:
    """Java's `Matcher.matches()` as a null-safe boolean: the whole string must match."""
    return ir.Func("coalesce", (ir.Method(column, "rlike", (ir.Arg(r"\A(?:" + pattern + r")\z"),)), ir.Lit(False)))


TOPIC_NAME_MATCHES = PredicateSpec(
    name="TopicNameMatches",
    doc="True when the whole topic name matches the Java regex `pattern` (`foo` does not match `foobar`).",
    keys=(
        ConfigKey(
            "pattern",
            "STRING",
            None,
            "A Java regular expression that must match the whole topic name.",
            required=True,
            nonempty=True,
        ),
    ),
    parse=parse_topic_name_matches,
    lower=lambda cfg: full_match(ir.Col("topic"), cfg.pattern),
    reads=lambda cfg: "metadata:topic",
    example='is_test: {type: TopicNameMatches, pattern: "test-.*"}',
)


@dataclass(frozen=True, slots=True)
class HasHeaderKeyConfig:
    name: str


HAS_HEADER_KEY = PredicateSpec(
    name="HasHeaderKey",
    doc="True when at least one header has the key `name` (a header with a null value counts).",
    keys=(ConfigKey("name", "STRING", None, "The header key to look for.", required=True, nonempty=True),),
    parse=lambda reader: (lambda n: HasHeaderKeyConfig(n) if n is not None else None)(reader.nonempty("name")),
    # the array of header keys, not a lambda over the headers: Spark compiles it into the chain's Java code, where a
    # lambda is interpreted and splits the chain's stage in two
    lower=lambda cfg: ir.Func("array_contains", (ir.Get(ir.Col("headers"), "key"), ir.Lit(cfg.name))),
    reads=lambda cfg: f"header:{cfg.name}",
    example="traced: {type: HasHeaderKey, name: trace-id}",
)

RECORD_IS_TOMBSTONE = PredicateSpec(
    name="RecordIsTombstone",
    doc="True when the record's value is null (a tombstone), and for a changelog `-D` row.",
    keys=(),
    parse=lambda reader: None,
    lower=lambda cfg: ir.IsNull(ir.Col("value")),
    reads=lambda cfg: "value",
    lower_changelog=lambda cfg: ir.BinOp("|", ir.IsNull(ir.Col("value")), is_delete()),
    example="tombstone: {type: RecordIsTombstone}",
)
SPECS = (FILTER, HAS_HEADER_KEY, RECORD_IS_TOMBSTONE, TOPIC_NAME_MATCHES)
