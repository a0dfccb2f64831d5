"""Tests for pipec.types.sql: parsing, spelling (sql), Spark DDL and helpers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pipec.types.connect import CONNECT_TYPES, connect_type_name
from pipec.types.parser import TypeSyntaxError, parse_type
from pipec.types.sql import (
    BIGINT,
    BOOLEAN,
    BYTES,
    DATE,
    DOUBLE,
    FLOAT,
    HEADERS,
    HEADERS_MAP,
    INT,
    SMALLINT,
    STRING,
    TIMESTAMP_LTZ_3,
    TINYINT,
    ArrayType,
    MapType,
    Primitive,
    SqlType,
    StructField,
    StructType,
    quote_name,
)


def dec(p: int = 10, s: int = 0) -> Primitive:
    return Primitive("DECIMAL", p, s)


def ts(p: int = 6) -> Primitive:
    return Primitive("TIMESTAMP", p)


def ltz(p: int = 6) -> Primitive:
    return Primitive("TIMESTAMP_LTZ", p)


def struct(*pairs: tuple[str, SqlType]) -> StructType:
    return StructType(tuple(StructField(n, t) for n, t in pairs))


# --- every type name and alias ---------------------------------------------------------

NAMES_AND_ALIASES = [
    ("BOOLEAN", BOOLEAN),
    ("TINYINT", TINYINT),
    ("SMALLINT", SMALLINT),
    ("INT", INT),
    ("INTEGER", INT),
    ("BIGINT", BIGINT),
    ("FLOAT", FLOAT),
    ("REAL", FLOAT),
    ("DOUBLE", DOUBLE),
    ("DOUBLE PRECISION", DOUBLE),
    ("DECIMAL", dec(10, 0)),
    ("DECIMAL(5)", dec(5, 0)),
    ("DECIMAL(10,2)", dec(10, 2)),
    ("DECIMAL( 10 , 2 )", dec(10, 2)),
    ("DECIMAL(38, 38)", dec(38, 38)),
    ("DECIMAL(1, 0)", dec(1, 0)),
    ("DEC(7, 3)", dec(7, 3)),
    ("NUMERIC", dec(10, 0)),
    ("NUMERIC(12)", dec(12, 0)),
    ("STRING", STRING),
    ("VARCHAR", STRING),
    ("VARCHAR(255)", STRING),
    ("CHAR(3)", STRING),
    ("CHAR", STRING),
    ("BYTES", BYTES),
    ("BINARY", BYTES),
    ("BINARY(16)", BYTES),
    ("VARBINARY", BYTES),
    ("VARBINARY(100)", BYTES),
    ("DATE", DATE),
    ("TIMESTAMP", ts(6)),
    ("TIMESTAMP(0)", ts(0)),
    ("TIMESTAMP(3)", ts(3)),
    ("TIMESTAMP(6)", ts(6)),
    ("TIMESTAMP WITHOUT TIME ZONE", ts(6)),
    ("TIMESTAMP(3) WITHOUT TIME ZONE", ts(3)),
    ("TIMESTAMP_LTZ", ltz(6)),
    ("TIMESTAMP_LTZ(3)", ltz(3)),
    ("TIMESTAMP_LTZ(0)", ltz(0)),
    ("TIMESTAMP WITH LOCAL TIME ZONE", ltz(6)),
    ("TIMESTAMP(3) WITH LOCAL TIME ZONE", ltz(3)),
    ("ARRAY<INT>", ArrayType(INT)),
    ("MAP<STRING, BYTES>", MapType(STRING, BYTES)),
    ("STRUCT<a INT>", struct(("a", INT))),
    ("ROW<a INT>", struct(("a", INT))),
    # case and whitespace do not matter
    ("integer", INT),
    ("BigInt", BIGINT),
    ("  string\t", STRING),
    ("timestamp_ltz(3)", ltz(3)),
    ("timestamp (3)\n with  local\ttime zone", ltz(3)),
    ("array < map < varchar , int > >", ArrayType(MapType(STRING, INT))),
    ("row<A int,b:string>", struct(("A", INT), ("b", STRING))),
]


@pytest.mark.parametrize("text, expected", NAMES_AND_ALIASES)
def test_type_names_and_aliases_parse_to_canonical_types(text, expected):
    assert parse_type(text) == expected


@pytest.mark.parametrize("text, expected", NAMES_AND_ALIASES)
def test_canonical_spelling_round_trips(text, expected):
    assert parse_type(expected.sql()) == expected


# --- nesting ---------------------------------------------------------------------------

NESTED = [
    ("ARRAY<ARRAY<ARRAY<INT>>>", ArrayType(ArrayType(ArrayType(INT)))),
    (
        "MAP<STRING, ARRAY<STRUCT<k STRING, v DECIMAL(10, 2)>>>",
        MapType(STRING, ArrayType(struct(("k", STRING), ("v", dec(10, 2))))),
    ),
    ("MAP<ARRAY<INT>, MAP<INT, INT>>", MapType(ArrayType(INT), MapType(INT, INT))),
    (
        "STRUCT<a STRUCT<b STRUCT<c TIMESTAMP_LTZ(3)>>, d ARRAY<ROW<e BOOLEAN>>>",
        struct(
            ("a", struct(("b", struct(("c", ltz(3)))))),
            ("d", ArrayType(struct(("e", BOOLEAN)))),
        ),
    ),
    (
        "STRUCT<name STRING, card STRING>",
        struct(("name", STRING), ("card", STRING)),
    ),
    ("ARRAY<STRUCT<key STRING, value BYTES>>", HEADERS),
]


@pytest.mark.parametrize("text, expected", NESTED)
def test_nested_types_parse(text, expected):
    assert parse_type(text) == expected


@pytest.mark.parametrize("text, expected", NESTED)
def test_nested_types_round_trip(text, expected):
    assert parse_type(expected.sql()) == expected


# --- sql() spellings -------------------------------------------------------------------

SQL_SPELLINGS = [
    (INT, "INT"),
    (BYTES, "BYTES"),
    (dec(), "DECIMAL(10, 0)"),
    (dec(10, 2), "DECIMAL(10, 2)"),
    (ts(), "TIMESTAMP(6)"),
    (TIMESTAMP_LTZ_3, "TIMESTAMP_LTZ(3)"),
    (ArrayType(STRING), "ARRAY<STRING>"),
    (MapType(STRING, BYTES), "MAP<STRING, BYTES>"),
    (struct(("name", STRING), ("card", STRING)), "STRUCT<name STRING, card STRING>"),
    (struct(("_x1", INT)), "STRUCT<_x1 INT>"),
    (struct(("we.ird`name", INT)), "STRUCT<`we.ird``name` INT>"),
    (struct(("a b", INT), ("1st", INT)), "STRUCT<`a b` INT, `1st` INT>"),
    (HEADERS, "ARRAY<STRUCT<key STRING, value BYTES>>"),
]


@pytest.mark.parametrize("t, spelling", SQL_SPELLINGS)
def test_sql_spelling(t, spelling):
    assert t.sql() == spelling
    assert str(t) == spelling


# --- ddl() strings ---------------------------------------------------------------------

DDL_CASES = [
    (BOOLEAN, "BOOLEAN"),
    (TINYINT, "TINYINT"),
    (SMALLINT, "SMALLINT"),
    (INT, "INT"),
    (BIGINT, "BIGINT"),
    (FLOAT, "FLOAT"),
    (DOUBLE, "DOUBLE"),
    (dec(10, 2), "DECIMAL(10,2)"),
    (dec(), "DECIMAL(10,0)"),
    (dec(38, 38), "DECIMAL(38,38)"),
    (STRING, "STRING"),
    (BYTES, "BINARY"),
    (DATE, "DATE"),
    (ts(3), "TIMESTAMP_NTZ"),
    (ts(6), "TIMESTAMP_NTZ"),
    (TIMESTAMP_LTZ_3, "TIMESTAMP"),
    (ltz(0), "TIMESTAMP"),
    (ArrayType(STRING), "ARRAY<STRING>"),
    (MapType(STRING, BYTES), "MAP<STRING,BINARY>"),
    (
        struct(("a", BIGINT), ("we.ird`name", STRING)),
        "STRUCT<`a`: BIGINT, `we.ird``name`: STRING>",
    ),
    (
        HEADERS,
        "ARRAY<STRUCT<`key`: STRING, `value`: BINARY>>",
    ),
    (
        MapType(STRING, ArrayType(struct(("ts", ltz(3)), ("d", dec(5, 1))))),
        "MAP<STRING,ARRAY<STRUCT<`ts`: TIMESTAMP, `d`: DECIMAL(5,1)>>>",
    ),
    (
        struct(("a b", ts()), ("ünï", DATE), ("x``", FLOAT)),
        "STRUCT<`a b`: TIMESTAMP_NTZ, `ünï`: DATE, `x`````: FLOAT>",
    ),
]


@pytest.mark.parametrize("t, ddl", DDL_CASES)
def test_ddl_text_for_spark(t, ddl):
    assert t.ddl() == ddl


# --- weird struct field names ----------------------------------------------------------

WEIRD_NAMES = [
    "a.b",
    "a`b",
    "``",
    "`",
    "with space",
    " leading",
    "ünïcödé",
    "名前",
    "emoji 🎉",
    "dash-ed",
    'dq"uote',
    "sq'uote",
    "new\nline",
    "tab\there",
    "<>,:()",
    "123",
    "1abc",
    "NOT",
    "COMMENT",
    "STRUCT",
    "timestamp",
    "key",
]


@pytest.mark.parametrize("name", WEIRD_NAMES)
def test_weird_field_names_round_trip(name):
    t = struct((name, INT), ("after", ArrayType(struct((name, STRING)))))
    assert parse_type(t.sql()) == t


@pytest.mark.parametrize("name", WEIRD_NAMES)
def test_weird_field_names_are_backtick_quoted_in_ddl(name):
    escaped = name.replace("`", "``")
    assert struct((name, INT)).ddl() == f"STRUCT<`{escaped}`: INT>"


QUOTED_NAMES = [
    ("STRUCT<`a``b` INT>", "a`b"),
    ("STRUCT<`a.b` INT>", "a.b"),
    ("STRUCT<`x y`: INT>", "x y"),
    ('STRUCT<"x y" INT>', "x y"),
    ('STRUCT<"say ""hi""" INT>', 'say "hi"'),
    ('STRUCT<`say "hi"` INT>', 'say "hi"'),
    ("STRUCT<```` INT>", "`"),
    ("STRUCT<Mixed_Case1 INT>", "Mixed_Case1"),
]


@pytest.mark.parametrize("text, name", QUOTED_NAMES)
def test_quoted_field_names_are_unescaped(text, name):
    assert parse_type(text) == struct((name, INT))


@pytest.mark.parametrize(
    "name, quoted",
    [("abc", "abc"), ("_a1", "_a1"), ("a b", "`a b`"), ("a`b", "`a``b`"), ("é", "`é`")],
)
def test_quote_name_quotes_only_non_identifiers(name, quoted):
    assert quote_name(name) == quoted


# --- field options accepted and ignored ------------------------------------------------

FIELD_OPTIONS = [
    "STRUCT<a INT NOT NULL>",
    "STRUCT<a INT COMMENT 'the a'>",
    "STRUCT<a: INT NOT NULL COMMENT 'it''s a'>",
    "STRUCT<a INT 'flink style description'>",
    "ROW<a int not null comment 'x'>",
]


@pytest.mark.parametrize("text", FIELD_OPTIONS)
def test_not_null_and_comment_after_field_type_are_ignored(text):
    assert parse_type(text) == struct(("a", INT))


# --- errors with offsets ---------------------------------------------------------------

ERRORS = [
    # (text, offset, fragment of the message)
    ("", 0, "expected a type, found end of input"),
    ("   ", 3, "expected a type"),
    ("STRUCT<a INT", 12, "expected '>' to close STRUCT<...>"),
    ("ARRAY<INT", 9, "expected '>' to close ARRAY<...> opened at offset 0"),
    (
        "ARRAY<INT, STRING>",
        9,
        "expected '>' to close ARRAY<...> opened at offset 0, found ','",
    ),
    ("MAP<STRING, INT", 15, "expected '>' to close MAP<...>"),
    ("STRUCT<a INT x", 13, "found 'x'"),
    ("ARRAY", 5, "expected '<' after ARRAY"),
    ("MAP(STRING, INT)", 3, "expected '<' after MAP"),
    ("ARRAY<>", 6, "expected the element type of ARRAY<T>, found '>'"),
    ("MAP<INT>", 7, "expected ',' between the key and value types"),
    ("MAP<INT,>", 8, "expected the value type of MAP<K, V>"),
    ("STRUCT<a>", 8, "expected a type for field a, found '>'"),
    ("STRUCT<a INT, b>", 15, "expected a type for field b"),
    ("STRUCT<a INT,>", 13, "expected a field name"),
    ("STRUCT<1a INT>", 7, "quote other names with backticks"),
    ("STRUCT<>", 7, "empty STRUCT<>"),
    ("ROW<>", 4, "empty ROW<>"),
    ("STRUCT<a INT, a STRING>", 14, "duplicate field name 'a'"),
    ("STRUCT<a INT, A STRING>", 14, "duplicate field name 'A'"),
    ('STRUCT<`x` INT, b INT, "x" INT>', 23, "duplicate field name 'x'"),
    ("STRUCT<`` INT>", 7, "empty field name"),
    ("STRUCT<`a INT>", 7, "unterminated quoted name"),
    ("STRUCT<a INT COMMENT 'x>", 21, "unterminated string"),
    ("STRUCT<a INT COMMENT>", 20, "expected a quoted comment after COMMENT"),
    ("STRUCT<a INT NOT>", 16, "expected NULL after NOT"),
    ("STRUCT<café INT>", 10, "unexpected character 'é'"),
    ("INTEGR", 0, "unknown type 'INTEGR'; did you mean INTEGER?"),
    ("ARRAY<strng>", 6, "unknown type 'strng'; did you mean STRING?"),
    ("STRUCT<a BIGIN>", 9, "did you mean BIGINT?"),
    ("Timestmp(3)", 0, "did you mean TIMESTAMP?"),
    ("QQQ", 0, "unknown type 'QQQ'; expected one of"),
    ("TIME", 0, "TIME is not supported"),
    ("TIMESTAMP_NTZ", 0, "write TIMESTAMP(p)"),
    ("INT foo", 4, "unexpected 'foo' after type INT"),
    ("INT>", 3, "unexpected '>' after type INT"),
    ("ARRAY<INT>>", 10, "unexpected '>' after type ARRAY<INT>"),
    ("INT(3)", 3, "INT takes no parameters"),
    ("STRING(10)", 6, "STRING takes no parameters"),
    ("VARCHAR(0)", 8, "VARCHAR length must be at least 1"),
    ("VARCHAR(", 8, "expected VARCHAR length (a number), found end of input"),
    (
        "TIMESTAMP(9)",
        10,
        "precision 9 is above 6: Spark keeps microseconds; use TIMESTAMP(6)",
    ),
    (
        "TIMESTAMP_LTZ(9)",
        14,
        "precision 9 is above 6: Spark keeps microseconds; use TIMESTAMP_LTZ(6) or less",
    ),
    ("TIMESTAMP(7) WITH LOCAL TIME ZONE", 10, "use TIMESTAMP_LTZ(6) or less"),
    ("ARRAY<TIMESTAMP_LTZ(12)>", 20, "precision 12 is above 6"),
    ("TIMESTAMP(3, 1)", 11, "TIMESTAMP takes one parameter"),
    ("TIMESTAMP(a)", 10, "expected TIMESTAMP precision (a number), found 'a'"),
    ("TIMESTAMP(-1)", 10, "unexpected character '-'"),
    ("TIMESTAMP WITH TIME ZONE", 10, "TIMESTAMP WITH TIME ZONE is not supported"),
    ("TIMESTAMP WITH ZONE", 10, "expected 'WITH LOCAL TIME ZONE' after TIMESTAMP"),
    ("DECIMAL(0)", 8, "DECIMAL precision 0 is out of range 1..38"),
    ("DECIMAL(39, 2)", 8, "DECIMAL precision 39 is out of range 1..38"),
    ("DECIMAL(5, 6)", 11, "DECIMAL scale 6 is out of range 0..5"),
    ("DECIMAL(5, )", 11, "expected DECIMAL scale (a number), found ')'"),
    ("DECIMAL(5, 2, 1)", 12, "expected ')' to close DECIMAL(...)"),
    ("DECIMAL(10, 2", 13, "expected ')' to close DECIMAL(...) opened at offset 7"),
    ("`INT`", 0, "expected a type, found quoted name `INT`"),
]


@pytest.mark.parametrize("text, offset, fragment", ERRORS)
def test_syntax_errors_say_what_was_expected_and_where(text, offset, fragment):
    with pytest.raises(TypeSyntaxError) as info:
        parse_type(text)
    err = info.value
    assert fragment in err.message
    assert err.offset == offset
    assert isinstance(err, ValueError)
    assert str(err) == err.message
    assert err.caret().splitlines()[-1] == " " * offset + "^"


def test_non_string_input_is_a_type_syntax_error():
    with pytest.raises(TypeSyntaxError):
        parse_type(42)  # type: ignore[arg-type]


# --- constructors, defaults, properties ------------------------------------------------

PRIMITIVE_DEFAULTS = [
    (Primitive("DECIMAL"), dec(10, 0)),
    (Primitive("DECIMAL", 5), dec(5, 0)),
    (Primitive("TIMESTAMP"), ts(6)),
    (Primitive("TIMESTAMP_LTZ"), ltz(6)),
    (Primitive("INT"), INT),
]


@pytest.mark.parametrize("built, expected", PRIMITIVE_DEFAULTS)
def test_omitted_parameters_take_their_defaults(built, expected):
    assert built == expected
    assert hash(built) == hash(expected)


BAD_PRIMITIVES = [
    ("INTEGER", None, None),  # aliases are parser-only
    ("int", None, None),
    ("INT", 3, None),
    ("DECIMAL", 0, None),
    ("DECIMAL", 39, 0),
    ("DECIMAL", 5, 6),
    ("DECIMAL", 5, -1),
    ("TIMESTAMP", 7, None),
    ("TIMESTAMP_LTZ", -1, None),
    ("TIMESTAMP", 3, 1),
]


@pytest.mark.parametrize("name, precision, scale", BAD_PRIMITIVES)
def test_invalid_primitives_cannot_be_built(name, precision, scale):
    with pytest.raises(ValueError):
        Primitive(name, precision, scale)


PROPERTIES = [
    # type, numeric, integral, timestamp, string, binary
    (BOOLEAN, False, False, False, False, False),
    (TINYINT, True, True, False, False, False),
    (SMALLINT, True, True, False, False, False),
    (INT, True, True, False, False, False),
    (BIGINT, True, True, False, False, False),
    (FLOAT, True, False, False, False, False),
    (DOUBLE, True, False, False, False, False),
    (dec(10, 2), True, False, False, False, False),
    (STRING, False, False, False, True, False),
    (BYTES, False, False, False, False, True),
    (DATE, False, False, False, False, False),
    (ts(), False, False, True, False, False),
    (TIMESTAMP_LTZ_3, False, False, True, False, False),
    (ArrayType(INT), False, False, False, False, False),
    (MapType(STRING, INT), False, False, False, False, False),
    (struct(("a", INT)), False, False, False, False, False),
]


@pytest.mark.parametrize(
    "t, numeric, integral, timestamp, string, binary",
    PROPERTIES,
)
def test_category_properties(t, numeric, integral, timestamp, string, binary):
    assert (t.is_numeric, t.is_integral, t.is_timestamp, t.is_string, t.is_binary) == (
        numeric,
        integral,
        timestamp,
        string,
        binary,
    )


def test_types_are_frozen_and_hashable():
    t = parse_type("STRUCT<a ARRAY<INT>, b MAP<STRING, BYTES>>")
    with pytest.raises(AttributeError):
        t.fields = ()  # type: ignore[misc]
    assert {t: 1}[parse_type("ROW<a ARRAY<INTEGER>, b MAP<VARCHAR, BINARY>>")] == 1


def test_struct_fields_given_as_list_become_a_tuple():
    t = StructType([StructField("a", INT)])  # type: ignore[arg-type]
    assert t.fields == (StructField("a", INT),)
    assert t == struct(("a", INT))


@pytest.mark.parametrize("names", [("a", "a"), ("a", "A"), ("x", "y", "X")])
def test_struct_rejects_duplicate_names_ignoring_case(names):
    with pytest.raises(ValueError, match="duplicate field name"):
        struct(*((n, INT) for n in names))


def test_struct_field_rejects_empty_name():
    with pytest.raises(ValueError):
        StructField("", INT)


# --- StructType helpers ----------------------------------------------------------------

ABC = struct(("a", INT), ("b", STRING), ("c", BYTES))


def test_struct_field_lookup_and_names():
    assert ABC.field("b") == StructField("b", STRING)
    assert ABC.field("B") is None
    assert ABC.field("zzz") is None
    assert ABC.names() == ("a", "b", "c")


HELPER_CASES = [
    (lambda s: s.replace("b", BIGINT), [("a", INT), ("b", BIGINT), ("c", BYTES)]),
    (
        lambda s: s.append(StructField("d", DATE)),
        [("a", INT), ("b", STRING), ("c", BYTES), ("d", DATE)],
    ),
    (lambda s: s.without("a"), [("b", STRING), ("c", BYTES)]),
    (
        lambda s: s.without("c").append(StructField("c", INT)),
        [("a", INT), ("b", STRING), ("c", INT)],
    ),
]


@pytest.mark.parametrize("op, expected", HELPER_CASES)
def test_struct_helpers_return_new_structs_keeping_order(op, expected):
    assert op(ABC) == struct(*expected)
    assert ABC.names() == ("a", "b", "c")  # unchanged


HELPER_ERRORS = [
    (lambda s: s.replace("zzz", INT), KeyError),
    (lambda s: s.without("zzz"), KeyError),
    (lambda s: s.append(StructField("a", INT)), ValueError),
    (lambda s: s.append(StructField("C", INT)), ValueError),
]


@pytest.mark.parametrize("op, error", HELPER_ERRORS)
def test_struct_helpers_reject_missing_or_duplicate_names(op, error):
    with pytest.raises(error):
        op(ABC)


def test_empty_struct_can_be_built_but_not_parsed():
    empty = StructType(())
    assert empty.append(StructField("a", INT)) == struct(("a", INT))
    assert empty.ddl() == "STRUCT<>"
    with pytest.raises(TypeSyntaxError):
        parse_type(empty.sql())


# --- constants and Kafka Connect names -------------------------------------------------

CONSTANTS = [
    (BOOLEAN, "BOOLEAN"),
    (INT, "INT"),
    (BIGINT, "BIGINT"),
    (STRING, "STRING"),
    (BYTES, "BYTES"),
    (DOUBLE, "DOUBLE"),
    (TIMESTAMP_LTZ_3, "TIMESTAMP_LTZ(3)"),
    (HEADERS, "ARRAY<STRUCT<key STRING, value BYTES>>"),
    (HEADERS_MAP, "MAP<STRING, BYTES>"),
]


@pytest.mark.parametrize("constant, text", CONSTANTS)
def test_constants_equal_their_parsed_spelling(constant, text):
    assert parse_type(text) == constant


CONNECT = [
    ("int8", TINYINT),
    ("int16", SMALLINT),
    ("int32", INT),
    ("int64", BIGINT),
    ("float32", FLOAT),
    ("float64", DOUBLE),
    ("boolean", BOOLEAN),
    ("string", STRING),
    ("bytes", BYTES),
]


def test_connect_types_cover_exactly_the_cast_names():
    assert dict(CONNECT) == CONNECT_TYPES


@pytest.mark.parametrize("name, t", CONNECT)
def test_connect_type_name_inverts_connect_types(name, t):
    assert connect_type_name(t) == name
    assert connect_type_name(parse_type(t.sql())) == name


@pytest.mark.parametrize(
    "t",
    [
        dec(10, 2),
        DATE,
        ts(),
        TIMESTAMP_LTZ_3,
        ArrayType(INT),
        HEADERS_MAP,
        struct(("a", INT)),
    ],
)
def test_connect_type_name_is_none_without_a_connect_equivalent(t):
    assert connect_type_name(t) is None


# --- property tests --------------------------------------------------------------------

primitives = st.one_of(
    st.sampled_from([BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, STRING, BYTES, DATE]),
    st.integers(1, 38).flatmap(lambda p: st.builds(dec, st.just(p), st.integers(0, p))),
    st.builds(ts, st.integers(0, 6)),
    st.builds(ltz, st.integers(0, 6)),
)
field_names = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True),
    st.text(min_size=1, max_size=8),
)


def structs(children: st.SearchStrategy[SqlType]) -> st.SearchStrategy[StructType]:
    return st.lists(
        st.tuples(field_names, children),
        min_size=1,
        max_size=4,
        unique_by=lambda pair: pair[0].casefold(),
    ).map(lambda pairs: struct(*pairs))


sql_types = st.recursive(
    primitives,
    lambda children: st.one_of(
        st.builds(ArrayType, children),
        st.builds(MapType, children, children),
        structs(children),
    ),
    max_leaves=12,
)


@settings(max_examples=300)
@given(sql_types)
def test_property_any_type_round_trips_through_its_sql_spelling(t):
    assert parse_type(t.sql()) == t
    assert str(t) == t.sql()
    assert t.ddl()


@given(sql_types, st.data())
def test_property_every_proper_prefix_of_a_spelling_fails_cleanly(t, data):
    text = t.sql()
    cut = data.draw(st.integers(0, len(text) - 1))
    prefix = text[:cut]
    try:
        parse_type(prefix)
    except TypeSyntaxError as err:
        assert 0 <= err.offset <= len(prefix)
    # a prefix may still be a type (e.g. "DECIMAL" of "DECIMAL(5, 2)"): that is fine


@given(st.text(max_size=40))
def test_property_arbitrary_text_parses_or_raises_type_syntax_error(text):
    try:
        result = parse_type(text)
    except TypeSyntaxError as err:
        assert 0 <= err.offset <= len(text)
        assert err.message
    else:
        assert isinstance(result, SqlType)


# --- Spark accepts every ddl() (JVM gateway only; no SparkSession) ----------------------


def _expected_spark_type(t: SqlType):
    """The pyspark DataType that ``t.ddl()`` should denote."""
    from pyspark.sql import types as T

    if isinstance(t, ArrayType):
        return T.ArrayType(_expected_spark_type(t.element), True)
    if isinstance(t, MapType):
        return T.MapType(_expected_spark_type(t.key), _expected_spark_type(t.value), True)
    if isinstance(t, StructType):
        return T.StructType([T.StructField(f.name, _expected_spark_type(f.type), True) for f in t.fields])
    simple = {
        "BOOLEAN": T.BooleanType(),
        "TINYINT": T.ByteType(),
        "SMALLINT": T.ShortType(),
        "INT": T.IntegerType(),
        "BIGINT": T.LongType(),
        "FLOAT": T.FloatType(),
        "DOUBLE": T.DoubleType(),
        "STRING": T.StringType(),
        "BYTES": T.BinaryType(),
        "DATE": T.DateType(),
        "TIMESTAMP": T.TimestampNTZType(),
        "TIMESTAMP_LTZ": T.TimestampType(),
    }
    if t.name == "DECIMAL":
        return T.DecimalType(t.precision, t.scale)
    return simple[t.name]


@pytest.mark.spark
def test_spark_parses_every_ddl_to_the_intended_type():
    pytest.importorskip("pyspark")
    from pyspark.java_gateway import launch_gateway
    from pyspark.sql.types import _parse_datatype_json_string

    cases = [t for t, _ in DDL_CASES]
    cases += [struct((name, INT)) for name in WEIRD_NAMES]
    cases += [expected for _, expected in NESTED]
    gateway = launch_gateway()
    try:
        spark_types = gateway.jvm.org.apache.spark.sql.types.DataType
        for t in cases:
            parsed = _parse_datatype_json_string(spark_types.fromDDL(t.ddl()).json())
            assert parsed == _expected_spark_type(t), t.ddl()
    finally:
        gateway.shutdown()
        proc = getattr(gateway, "proc", None)
        if proc is not None:
            proc.kill()
            proc.wait()


def _java_equals_ignoring_case(a: str, b: str) -> bool:
    """java.lang.String.regionMatches(ignoreCase) on one UTF-16 unit each: equal, or their one-character upper
    cases equal, or the one-character lower cases of those."""
    if a == b:
        return True
    up_a, up_b = (c.upper() if len(c.upper()) == 1 else c for c in (a, b))
    if up_a == up_b:
        return True
    low_a, low_b = (u.lower() if len(u.lower()) == 1 else u for u in (up_a, up_b))
    return low_a == low_b


def test_folded_names_compare_as_java_compares_them_ignoring_case():
    """field_names.fold(a) == fold(b) exactly when Java's equalsIgnoreCase says so, for every pair of cased BMP
    characters that Java's rule could call equal (those sharing an upper case, or the lower case of it)."""
    from collections import defaultdict

    from pipec.types.field_names import fold

    cased = [
        chr(i)
        for i in range(0x10000)
        if not 0xD800 <= i <= 0xDFFF and (chr(i).upper() != chr(i) or chr(i).lower() != chr(i))
    ]
    groups: dict = defaultdict(set)
    for c in cased:
        up = c.upper() if len(c.upper()) == 1 else c
        groups["U", up].add(c)
        groups["L", up.lower() if len(up.lower()) == 1 else up].add(c)
        groups["F", fold(c)].add(c)
    pairs = checked = 0
    for members in groups.values():
        for a in members:
            for b in members:
                pairs += 1
                checked += (fold(a) == fold(b)) == _java_equals_ignoring_case(a, b)
    assert checked == pairs > 5_000
    assert fold("\U00010400") != fold("\U00010428")  # Deseret: Java compares UTF-16 units, which have no case
    assert fold("Straße") == fold("STRAßE") != fold("STRASSE")
