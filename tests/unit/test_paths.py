"""Field path grammar (KIP-821 as shipped in Kafka's SingleFieldPath) and field.syntax.version."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pipec.transforms.field_paths import FieldPath, PathSyntaxError, format_path, parse_path, parse_syntax_version


def incomplete(path: str, position: int) -> str:
    return (
        f"Incomplete backtick pair in path: [{path}], consider adding a backslash "
        f"before backtick at position {position} to escape it"
    )


# Python raw strings below hold the actual characters (the reference YAML's "\\" is one backslash).

V1_CASES = [
    # From Kafka's FieldPathNotationTest.
    ("foo.bar.baz", ("foo.bar.baz",)),
    ("foo`bar`", ("foo`bar`",)),
    ("foo.`bar.baz`", ("foo.`bar.baz`",)),
    # V1 never interprets anything, not even an unpaired backtick or the empty string.
    ("`foo.bar", ("`foo.bar",)),
    (r"a\`.b", (r"a\`.b",)),
    ("", ("",)),
]

V2_KAFKA_CASES = [
    # Kafka's FieldPathNotationTest, V2.
    ("", ()),
    ("foobarbaz", ("foobarbaz",)),
    ("foo.bar.baz", ("foo", "bar", "baz")),
    ("foo`bar`baz", ("foo`bar`baz",)),
    ("..", ("", "", "")),
    ("foo..", ("foo", "", "")),
    (".bar.", ("", "bar", "")),
    ("..baz", ("", "", "baz")),
    ("`foo.bar.baz`", ("foo.bar.baz",)),
    ("foo.`bar.baz`", ("foo", "bar.baz")),
    ("`foo.bar`.baz", ("foo.bar", "baz")),
    ("foo.`bar`.baz", ("foo", "bar", "baz")),
    ("foo.``bar.baz`", ("foo", "`bar.baz")),
    ("foo.`bar.baz``", ("foo", "bar.baz`")),
    ("foo.`ba`r.baz`", ("foo", "ba`r.baz")),
    ("foo.ba`r.baz", ("foo", "ba`r", "baz")),
    ("foo.``bar``.baz", ("foo", "`bar`", "baz")),
    ("``foo.bar.baz``", ("`foo.bar.baz`",)),
    (r"foo.`bar\`.baz`", ("foo", "bar`.baz")),
    ("foo.`bar.`baz`", ("foo", "bar.`baz")),
    (r"foo.`bar\`.`baz`", ("foo", "bar`.`baz")),
    (r"foo.`bar\\`.\`baz`", ("foo", r"bar\`.\`baz")),
]

V2_EXTRA_CASES = [
    # Probed against Kafka trunk (reference section 4.3, v2_extra).
    ("foo.", ("foo", "")),
    (".foo", ("", "foo")),
    (".", ("", "")),
    ("a..b", ("a", "", "b")),
    ("`foo`", ("foo",)),
    ("`foo`.bar", ("foo", "bar")),
    ("`a`.`b`", ("a", "b")),
    ("`a`b`.c", ("a`b", "c")),
    ("`a.b`c`", ("a.b`c",)),
    ("foo`.bar`", ("foo`", "bar`")),
    (r"foo\`bar", (r"foo\`bar",)),
    (r"`foo\`bar`", (r"foo\`bar",)),
    ("``", ("",)),
    ("`.`", (".",)),
    ("```", ("`",)),
    (r"`a\`.`", ("a`.",)),
    (r"a.`b\`.c`.d", ("a", "b`.c", "d")),
    ("a.``", ("a", "")),
    ("`a`.", ("a", "")),
    ("`a`..b", ("a", "", "b")),
    ("a .b", ("a ", "b")),
]

IMPLEMENTATION_NOT_WIKI_CASES = [
    # Rows of the reference's "implementation vs KIP-821 wiki" table; the implementation wins.
    ("foo.bar`.baz", ("foo", "bar`", "baz")),
    (r"foo.`bar\`.`baz`", ("foo", "bar`.`baz")),
    (r"foo.`bar\`.\`baz`", ("foo", r"bar`.\`baz")),
    (r"foo.`bar\\`.\`baz`", ("foo", r"bar\`.\`baz")),
    (r"foo.`\`bar\``.baz", ("foo", r"\`bar\`", "baz")),
    ("foo.`ba`r`.baz", ("foo", "ba`r", "baz")),
    ("foo.`b`ar.baz`", ("foo", "b`ar.baz")),
]

V2_ERROR_CASES = [
    # Kafka's FieldPathNotationTest.
    ("`foo.bar.baz", 0),
    ("foo.`bar.baz", 4),
    ("foo.bar.`baz", 8),
    (r"foo.bar.`baz\`", 8),
    # Probed extras.
    ("a.`b`c", 2),
    ("`a`b", 0),
    ("`` ", 0),
    ("`", 0),
    (r"`\`", 0),
    (r"`a\`.b", 0),
    ("a.`", 2),
]


@pytest.mark.parametrize(("text", "steps"), V1_CASES)
def test_v1_treats_the_whole_text_as_one_step(text: str, steps: tuple[str, ...]) -> None:
    assert parse_path(text, "V1").steps == steps
    assert parse_path(text).steps == steps  # V1 is the default


@pytest.mark.parametrize(("text", "steps"), V2_KAFKA_CASES)
def test_v2_splits_like_kafkas_field_path_notation_test(text: str, steps: tuple[str, ...]) -> None:
    assert parse_path(text, "V2").steps == steps


@pytest.mark.parametrize(("text", "steps"), V2_EXTRA_CASES)
def test_v2_matches_probed_kafka_behaviour(text: str, steps: tuple[str, ...]) -> None:
    assert parse_path(text, "V2").steps == steps


@pytest.mark.parametrize(("text", "steps"), IMPLEMENTATION_NOT_WIKI_CASES)
def test_v2_follows_the_shipped_implementation_where_the_wiki_differs(text: str, steps: tuple[str, ...]) -> None:
    assert parse_path(text, "V2").steps == steps


@pytest.mark.parametrize(("text", "position"), V2_ERROR_CASES)
def test_v2_rejects_an_unpaired_opening_backtick_with_kafkas_message(text: str, position: int) -> None:
    with pytest.raises(PathSyntaxError) as caught:
        parse_path(text, "V2")
    error = caught.value
    assert isinstance(error, ValueError)
    assert error.position == position
    assert error.message == incomplete(text, position)
    assert str(error) == incomplete(text, position)
    assert error.path == text


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("é.`x", 2),
        ("😀.`x", 2),  # code points; Kafka (UTF-16) would say 3 here
    ],
)
def test_error_position_counts_python_characters(text: str, position: int) -> None:
    with pytest.raises(PathSyntaxError) as caught:
        parse_path(text, "V2")
    assert caught.value.position == position
    assert text[caught.value.position] == "`"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # Accepted by Kafka's FieldSyntaxVersionTest.
        ("v1", "V1"),
        ("v2", "V2"),
        ("V1", "V1"),
        ("V2", "V2"),
        # Rejected by Kafka's FieldSyntaxVersionTest.
        ("v3", None),
        ("V 1", None),
        ("v", None),
        ("V 2", None),
        ("2", None),
        ("1", None),
        # Further rejections.
        ("", None),
        ("V12", None),
        (None, None),
        (2, None),
    ],
)
def test_syntax_version_is_case_insensitive_v1_or_v2(value: object, expected: str | None) -> None:
    assert parse_syntax_version(value) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(("version", "steps"), [("v1", ("a.b",)), ("v2", ("a", "b"))])
def test_parse_path_accepts_lower_case_versions(version: str, steps: tuple[str, ...]) -> None:
    assert parse_path("a.b", version).steps == steps


@pytest.mark.parametrize("version", ["v3", "V 1", "2", ""])
def test_parse_path_rejects_unknown_versions_with_kafkas_config_message(
    version: str,
) -> None:
    with pytest.raises(ValueError) as caught:
        parse_path("a.b", version)
    assert not isinstance(caught.value, PathSyntaxError)
    assert str(caught.value) == (
        f"Invalid value {version} for configuration field.syntax.version: "
        "String must be one of (case insensitive): V1, V2"
    )


@pytest.mark.parametrize(
    ("text", "version", "name", "parent"),
    [
        ("foo.bar.baz", "V2", "baz", ("foo", "bar")),
        ("foo", "V2", "foo", ()),
        ("`a.b`.c", "V2", "c", ("a.b",)),
        ("foo.bar.baz", "V1", "foo.bar.baz", ()),
        ("a.", "V2", "", ("a",)),
    ],
)
def test_field_path_exposes_name_parent_and_original_text(
    text: str, version: str, name: str, parent: tuple[str, ...]
) -> None:
    path = parse_path(text, version)
    assert path.name == name
    assert path.parent == parent
    assert path.text == text
    assert str(path) == text


def test_the_empty_v2_path_has_no_name_and_no_parent() -> None:
    path = parse_path("", "V2")
    assert path.steps == ()
    assert path.parent == ()
    with pytest.raises(ValueError):
        _ = path.name


def test_field_path_is_frozen_and_stores_steps_as_a_tuple() -> None:
    path = FieldPath("a.b", ["a", "b"])  # type: ignore[arg-type]
    assert path.steps == ("a", "b")
    assert path == parse_path("a.b", "V2")
    with pytest.raises(AttributeError):
        path.text = "x"  # type: ignore[misc]


FORMAT_CASES = [
    ((), ""),
    (("",), "``"),
    (("", ""), "."),
    (("a", ""), "a."),
    (("", "a"), ".a"),
    (("a", "", "b"), "a..b"),
    (("foo", "bar", "baz"), "foo.bar.baz"),
    (("foo.bar", "baz"), "`foo.bar`.baz"),
    (("foo", "bar.baz"), "foo.`bar.baz`"),
    (("`bar`",), "``bar``"),
    (("`",), "```"),
    (("ba`r", "baz"), "ba`r.baz"),
    (("foo`",), "foo`"),
    ((r"a\b", r"c\`"), r"a\b.c\`"),
    (("bar`.baz",), r"`bar\`.baz`"),
    (("bar`.`baz",), r"`bar\`.`baz`"),
    ((r"bar\`.\`baz",), r"`bar\\`.\`baz`"),
    (("`.",), r"`\`.`"),
    (("a.`",), "`a.``"),
    (("a b", "ü.ö"), "a b.`ü.ö`"),
]


@pytest.mark.parametrize(("steps", "text"), FORMAT_CASES)
def test_format_path_writes_the_canonical_v2_text(steps: tuple[str, ...], text: str) -> None:
    assert format_path(steps) == text
    assert parse_path(text, "V2").steps == steps


INEXPRESSIBLE_STEPS = [
    ("a.b\\",),
    ("`\\",),
    ("x", "`a\\", "y"),
    (".\\",),
    ("`b\\`\\",),
]


@pytest.mark.parametrize("steps", INEXPRESSIBLE_STEPS)
def test_format_path_refuses_backticked_steps_ending_in_a_backslash(
    steps: tuple[str, ...],
) -> None:
    with pytest.raises(ValueError, match="cannot be expressed in V2 syntax"):
        format_path(steps)


@pytest.mark.parametrize("steps", [("a\\",), ("a\\", "b"), ("a`\\",), ("\\",)])
def test_plain_steps_may_end_in_a_backslash(steps: tuple[str, ...]) -> None:
    assert parse_path(format_path(steps), "V2").steps == steps


@pytest.mark.parametrize("bad", ["a.b", ["a", 1]])
def test_format_path_rejects_non_step_sequences(bad: object) -> None:
    with pytest.raises(TypeError):
        format_path(bad)  # type: ignore[arg-type]


def expressible_in_v2(step: str) -> bool:
    """Independent statement of which steps V2 can write."""
    return not (("." in step or step.startswith("`")) and step.endswith("\\"))


# Built from a list so the grammar's special characters are drawn as often as arbitrary unicode
# (st.text would pool them into one large alphabet and almost never pick them).
SPECIAL_OR_ANY_CHAR = st.one_of(st.sampled_from(list(".`\\a ")), st.characters())
STEP_TEXT = st.lists(SPECIAL_OR_ANY_CHAR, max_size=8).map("".join)


@settings(max_examples=500)
@given(st.lists(STEP_TEXT, max_size=6))
@example(["a.b\\"])
@example(["x", "`y\\", ""])
@example([""])
def test_format_path_round_trips_through_v2_or_says_it_cannot(steps: list[str]) -> None:
    if all(expressible_in_v2(step) for step in steps):
        assert parse_path(format_path(steps), "V2").steps == tuple(steps)
    else:
        with pytest.raises(ValueError):
            format_path(steps)


@settings(max_examples=500)
@given(st.lists(SPECIAL_OR_ANY_CHAR, max_size=16).map("".join))
def test_every_parseable_v2_path_can_be_reformatted(text: str) -> None:
    try:
        steps = parse_path(text, "V2").steps
    except PathSyntaxError as error:
        assert text[error.position] == "`"
        return
    assert parse_path(format_path(steps), "V2").steps == steps


def test_no_short_path_parses_to_an_inexpressible_step_list() -> None:
    # Exhaustive over the grammar's special characters: whatever a path can mean, format_path can write.
    parsed = 0
    for length in range(8):
        for chars in itertools.product("a.`\\", repeat=length):
            text = "".join(chars)
            try:
                steps = parse_path(text, "V2").steps
            except PathSyntaxError:
                continue
            parsed += 1
            assert all(expressible_in_v2(step) for step in steps), text
            assert parse_path(format_path(steps), "V2").steps == steps, text
    assert parsed > 1000
