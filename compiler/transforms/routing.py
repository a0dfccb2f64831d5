"""RegexRouter and TimestampRouter: set each record's topic."""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import ir
from ..shape import Shape
from .base import ConfigKey, ConfigReader, Lowering, TransformSpec
from .filtering import full_match
from .javadates import PatternError, spark_pattern
from .javaregex import check_java_regex
from .moves import TOPIC, TRANSFORMATION, Move

# ---------------------------------------------------------------- RegexRouter


def java_groups(pattern: str) -> tuple[int, frozenset[str]]:
    """The capturing groups of a Java regex: how many, and the names of the named ones."""
    count, names, i, depth = 0, set(), 0, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if pattern[i + 1 : i + 2] == "Q":  # \Q...\E quotes everything up to \E
                end = pattern.find("\\E", i + 2)
                i = len(pattern) if end < 0 else end + 2
            else:
                i += 2
            continue
        if depth:
            depth += {"[": 1, "]": -1}.get(c, 0)
        elif c == "[":
            depth = 1
            i += 2 if pattern[i + 1 : i + 2] == "^" else 1
            i += 1 if pattern[i : i + 1] == "]" else 0  # a leading ']' is a literal
            continue
        elif c == "(" and pattern[i + 1 : i + 2] != "?":
            count += 1
        elif c == "(" and pattern[i + 2 : i + 3] == "<" and pattern[i + 3 : i + 4] not in ("=", "!"):
            count += 1
            names.add(pattern[i + 3 : pattern.find(">", i)])
        i += 1
    return count, frozenset(names)


def _open_quote(pattern: str) -> bool:
    """Whether a `\\Q` quote runs to the end of the pattern (Java allows leaving out the `\\E`)."""
    i = 0
    while i < len(pattern):
        if pattern.startswith("\\Q", i):
            end = pattern.find("\\E", i + 2)
            if end < 0:
                return True
            i = end + 2
        else:
            i += 2 if pattern[i] == "\\" else 1
    return False


def replacement_problem(replacement: str, groups: int, names: frozenset[str]) -> str | None:
    """Why Java's Matcher.replaceFirst would throw on `replacement`, or None (its `$n`, `${name}`, `\\` rules)."""
    i = 0
    while i < len(replacement):
        c = replacement[i]
        i += 1
        if c == "\\":
            if i == len(replacement):
                return "character to be escaped is missing"
            i += 1
        elif c == "$":
            if i == len(replacement):
                return "Illegal group reference: group index is missing"
            if replacement[i] == "{":
                end = i + 1
                while end < len(replacement) and replacement[end].isascii() and replacement[end].isalnum():
                    end += 1
                name = replacement[i + 1 : end]
                if not name:
                    return "named capturing group has 0 length name"
                if replacement[end : end + 1] != "}":
                    return "named capturing group is missing trailing '}'"
                if name[0].isdigit():
                    return f"capturing group name {{{name}}} starts with digit character"
                if name not in names:
                    return f"No group with name {{{name}}}"
                i = end + 1
                continue
            if not "0" <= replacement[i] <= "9":
                return "Illegal group reference"
            ref = int(replacement[i])
            i += 1
            while i < len(replacement) and "0" <= replacement[i] <= "9" and ref * 10 + int(replacement[i]) <= groups:
                ref = ref * 10 + int(replacement[i])
                i += 1
            if ref > groups:
                return f"No group {ref}"
    return None


@dataclass(frozen=True, slots=True)
class RegexRouterConfig:
    regex: str
    replacement: str


def parse_regex_router(reader: ConfigReader) -> RegexRouterConfig | None:
    regex = reader.string("regex", required=True)
    replacement = reader.string("replacement", required=True)
    if regex is None or replacement is None:
        return None
    problem = check_java_regex(regex)
    if problem:
        reader.error(
            "regex",
            f"Invalid regex '{regex}': {problem}",
            "write a Java regular expression (java.util.regex)",
            code="E804",
        )
        return None
    problem = replacement_problem(replacement, *java_groups(regex))
    if problem:
        reader.error(
            "replacement",
            f"replacement '{replacement}' fails on every matching topic: {problem}",
            "refer to groups of the regex as $1 or ${name}; write \\$ for a dollar sign and \\\\ for a backslash",
            code="E805",
        )
        return None
    return RegexRouterConfig(regex, replacement)


def lower_regex_router(cfg: RegexRouterConfig, shape: Shape, low: Lowering) -> tuple[ir.Op, ...]:
    """Java's `matches()` then `replaceFirst`: anchored at the start only, so group numbers and
    backtracking order stay Java's (spark-facts 2e)."""
    topic = ir.Col("topic")
    regex = cfg.regex + ("\\E" if _open_quote(cfg.regex) else "")  # end a \Q quote before our closing group
    renamed = ir.Func("regexp_replace", (topic, ir.Arg(r"\A(?:" + regex + ")"), ir.Arg(cfg.replacement)))
    return (ir.SetColumns((("topic", ir.If(full_match(topic, regex), renamed, topic)),)),)


REGEX_ROUTER = TransformSpec(
    name="RegexRouter",
    purpose="topic routing",
    doc="When the whole topic matches the Java regex `regex`, replace it with `replacement` (`$1`, `${name}`, `\\$`), "
    "as Java's `replaceFirst`; other records keep their topic.",
    keys=(
        ConfigKey("regex", "STRING", None, "A Java regular expression that must match the whole topic.", required=True),
        ConfigKey(
            "replacement",
            "STRING",
            None,
            "The new topic, in Java's replacement syntax ($1, ${name}, \\$).",
            required=True,
        ),
    ),
    parse=parse_regex_router,
    infer=lambda cfg, shape, ctx: replace(shape, routed=True),
    lower=lower_regex_router,
    lineage=lambda cfg, side, before: {TOPIC: Move(TOPIC, TRANSFORMATION)},
    routes=True,
    describe=lambda cfg, side: f"renames a topic matching {cfg.regex} to {cfg.replacement}",
    sides=False,
    example='- name: strip_prefix\n  type: RegexRouter\n  regex: "db\\\\.(.*)"\n  replacement: "$1"',
    differences=(
        "A replacement that refers to a group the regex lacks, or ends in a lone `\\` or `$`, is a compile error "
        "(Kafka fails every record whose topic matches).",
    ),
)


# ---------------------------------------------------------------- TimestampRouter


@dataclass(frozen=True, slots=True)
class TimestampRouterConfig:
    topic_format: str
    spark_pattern: str  # "" when the timestamp format is empty


def parse_timestamp_router(reader: ConfigReader) -> TimestampRouterConfig | None:
    topic_format = reader.string("topic.format", "${topic}-${timestamp}")
    pattern = reader.string("timestamp.format", "yyyyMMdd")
    try:
        spark = spark_pattern(pattern)
    except PatternError as exc:
        if exc.invalid:
            reader.error(
                "timestamp.format",
                f"invalid SimpleDateFormat pattern '{pattern}': {exc.message}",
                exc.hint or "use SimpleDateFormat letters: y, M, d, H, m, s, S, E, a, z, Z, X; quote literal text: 'T'",
                code="E806",
            )
        else:
            reader.error(
                "timestamp.format",
                f"timestamp.format '{pattern}' cannot be formatted exactly: {exc.message}",
                exc.hint or "use y, M, d, H, m, s, SSS, E, a, z, Z or X letters",
                code="E807",
            )
        return None
    return TimestampRouterConfig(topic_format, spark)


def lower_timestamp_router(cfg: TimestampRouterConfig, shape: Shape, low: Lowering) -> tuple[ir.Op, ...]:
    """`${topic}` then `${timestamp}` replaced everywhere, in that order, as Kafka does; UTC (the job's time zone)."""
    stamp = ir.Col("timestamp")
    text = ir.Func("date_format", (stamp, ir.Arg(cfg.spark_pattern))) if cfg.spark_pattern else ir.Lit("")
    with_topic = ir.Func("replace", (ir.Lit(cfg.topic_format), ir.Lit("${topic}"), ir.Col("topic")))
    topic = ir.Func("replace", (with_topic, ir.Lit("${timestamp}"), text))
    return (ir.SetColumns((("topic", low.fail_if(ir.IsNull(stamp), "Timestamp missing on record", topic)),)),)


TIMESTAMP_ROUTER = TransformSpec(
    name="TimestampRouter",
    purpose="topic routing",
    doc="Set the topic from `topic.format`, replacing `${topic}` with the record's topic and `${timestamp}` with "
    "its timestamp formatted by the SimpleDateFormat pattern `timestamp.format` in UTC. A record without a timestamp "
    "is a record error.",
    keys=(
        ConfigKey(
            "topic.format",
            "STRING",
            "${topic}-${timestamp}",
            "The new topic, with `${topic}` and `${timestamp}` placeholders.",
        ),
        ConfigKey(
            "timestamp.format",
            "STRING",
            "yyyyMMdd",
            "The java.text.SimpleDateFormat pattern of `${timestamp}`, formatted in UTC.",
        ),
    ),
    parse=parse_timestamp_router,
    infer=lambda cfg, shape, ctx: replace(shape, routed=True),
    lower=lower_timestamp_router,
    lineage=lambda cfg, side, before: {TOPIC: Move(TOPIC, TRANSFORMATION)},  # and the timestamp
    routes=True,
    describe=lambda cfg, side: f"sets the topic to {cfg.topic_format}",
    sides=False,
    example='- name: daily\n  type: TimestampRouter\n  topic.format: "${topic}-${timestamp}"\n  timestamp.format: yyyyMMdd',
    differences=(
        "timestamp.format is checked at compile time: an illegal pattern is an error (Kafka fails the first record), "
        "and the letters Spark formats differently from SimpleDateFormat (F, w, W, Y, u, S other than SSS, and "
        "zero-padded d, H, h, k, K, m, s, D beyond their usual width) are refused.",
        "Timestamps before 1582-10-15 are formatted on the proleptic Gregorian calendar (Java uses the Julian one).",
    ),
)
SPECS = (REGEX_ROUTER, TIMESTAMP_ROUTER)
