"""The shapes each transform family leaves in the key or value, as recipes over one source record.

A recipe is a chain (the YAML of `transforms:`) run on the record below, the type it leaves on its side, and the
value Kafka Connect's transform gives for each input record, written from Kafka's documented semantics
(/work/shared/reference/kafka-connect-smts.md), never from pipec's output. Every registered transform family
has at least one recipe (the test checks it against the registry), on the key side (`$Key`, ValueToKey) and on
the value side.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from pipec.types.parser import parse_type
from pipec.types.sql import SqlType, StructField, StructType

UTC = dt.timezone.utc
COLUMNS = (
    ("id", "BIGINT"),
    ("b", "BOOLEAN"),
    ("i8", "TINYINT"),
    ("i16", "SMALLINT"),
    ("i32", "INT"),
    ("i64", "BIGINT"),
    ("f32", "FLOAT"),
    ("f64", "DOUBLE"),
    ("dec", "DECIMAL(10, 2)"),
    ("s", "STRING"),
    ("by", "BYTES"),
    ("d", "DATE"),
    ("ts", "TIMESTAMP(3)"),
    ("tsl", "TIMESTAMP_LTZ(3)"),
    ("arr", "ARRAY<INT>"),
    ("m", "MAP<STRING, INT>"),
    ("st", "STRUCT<a INT, b STRING>"),
)
FULL: dict[str, Any] = {
    "id": 1,
    "b": True,
    "i8": -7,
    "i16": 300,
    "i32": -42,
    "i64": 9007199254740993,
    "f32": 17.49,
    "f64": 0.1,
    "dec": Decimal("9.50"),
    "s": 'say "hi", ok',
    "by": b"\x00\xffA",
    "d": dt.date(2024, 1, 2),
    "ts": dt.datetime(2024, 1, 2, 3, 4, 5, 123000),
    "tsl": dt.datetime(2024, 1, 2, 3, 4, 5, 123000, tzinfo=UTC),
    "arr": [1, None, 3],
    "m": {"a": 1},
    "st": {"a": 1, "b": "x"},
}
# The source's JSON message for FULL (what a producer writes; BYTES base64 as JsonConverter writes them).
FULL_JSON = (
    '{"id":1,"b":true,"i8":-7,"i16":300,"i32":-42,"i64":9007199254740993,"f32":17.49,"f64":0.1,"dec":9.50,'
    '"s":"say \\"hi\\", ok","by":"AP9B","d":"2024-01-02","ts":"2024-01-02T03:04:05.123",'
    '"tsl":"2024-01-02T03:04:05.123Z","arr":[1,null,3],"m":{"a":1},"st":{"a":1,"b":"x"}}'
)
NULLS = {name: None for name, _ in COLUMNS}
NULLS_JSON = "{" + ",".join(f'"{name}":null' for name, _ in COLUMNS) + "}"
# The given records, by offset: every field set, every field null, a tombstone (key and value null).
FULL_AT, NULLS_AT, TOMBSTONE_AT = 0, 1, 2
INPUTS = {FULL_AT: FULL, NULLS_AT: NULLS, TOMBSTONE_AT: None}
TSL_MILLIS = (FULL["tsl"] - dt.datetime(1970, 1, 1, tzinfo=UTC)) // dt.timedelta(milliseconds=1)
ERROR = object()  # the transform fails the record (Kafka throws): such an input is left out of the recipe's run
ALWAYS_NULL = "NULL"  # a recipe's type when its side is null in every record, without a schema (Drop's nullify)


@dataclass(frozen=True)
class Recipe:
    """A chain on a source declaring `columns` (the key's too, for a key recipe), leaving `type` on its side;
    `outputs` maps an input's offset to Kafka's output (ERROR: Kafka throws)."""

    family: str
    label: str
    side: str  # key | value
    columns: tuple[str, ...]
    steps: tuple[dict, ...]
    type: str
    outputs: dict[int, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.side}-{self.family}-{self.label}"

    @property
    def sql_type(self) -> SqlType | None:
        """The output type; None for ALWAYS_NULL (a side without a type)."""
        special = {ALWAYS_NULL: None, "STRUCT<>": StructType(())}
        return special[self.type] if self.type in special else parse_type(self.type)

    @property
    def source_type(self) -> StructType:
        """The record the source decodes: the declared columns."""
        return StructType(tuple(StructField(n, parse_type(TYPES[n])) for n in self.columns))

    @property
    def offsets(self) -> tuple[int, ...]:
        return tuple(o for o, out in self.outputs.items() if out is not ERROR)

    def source_record(self, offset: int) -> dict | None:
        return _pick(*self.columns, record=INPUTS[offset])


TYPES = dict(COLUMNS)


def _pick(*names: str, record: dict | None) -> dict | None:
    return None if record is None else {n: record[n] for n in names}


def _t(side: str, name: str) -> str:
    """The side's variant of a transform: `Cast$Key` or `Cast$Value`."""
    return f"{name}${side.capitalize()}"


def _struct(*names: str) -> str:
    return "STRUCT<" + ", ".join(f"{n} {TYPES[n]}" for n in names) + ">"


def _per_input(fn) -> dict[int, Any]:
    """Kafka's output for each input, from the input record (None for the tombstone)."""
    return {offset: fn(record) for offset, record in INPUTS.items()}


def _or_null(fn):
    return lambda r: None if r is None else fn(r)


def recipes_for(side: str) -> list[Recipe]:
    """Every recipe on one side."""
    out: list[Recipe] = []
    # ExtractField: each column's type, null for a null field or a null record (Kafka: the field's schema, value null)
    for name, type_ in COLUMNS:
        out.append(
            Recipe(
                "ExtractField",
                name,
                side,
                (name,),
                ({"name": "pick", "type": _t(side, "ExtractField"), "field": name},),
                type_,
                _per_input(_or_null(lambda r, n=name: r[n])),
            )
        )
    # Cast of a whole INT: the narrower and wider types (wrapping as Java's casts do), boolean (non-zero), string
    extract = {"name": "pick", "type": _t(side, "ExtractField"), "field": "i32"}
    for target, type_, value in (
        ("int8", "TINYINT", -42),
        ("int16", "SMALLINT", -42),
        ("int64", "BIGINT", -42),
        ("float32", "FLOAT", -42.0),
        ("float64", "DOUBLE", -42.0),
        ("boolean", "BOOLEAN", True),
        ("string", "STRING", "-42"),
    ):
        cast = {"name": "cast", "type": _t(side, "Cast"), "spec": target}
        out.append(
            Recipe(
                "Cast",
                target,
                side,
                ("i32",),
                (extract, cast),
                type_,
                {FULL_AT: value, NULLS_AT: None, TOMBSTONE_AT: None},
            )
        )
    # TimestampConverter of a whole TIMESTAMP_LTZ
    extract = {"name": "pick", "type": _t(side, "ExtractField"), "field": "tsl"}
    for target, type_, value, extra in (
        ("unix", "BIGINT", TSL_MILLIS, {}),
        ("Date", "DATE", dt.date(2024, 1, 2), {}),
        ("Time", "TIMESTAMP_LTZ(3)", dt.datetime(1970, 1, 1, 3, 4, 5, 123000, tzinfo=UTC), {}),
        ("string", "STRING", "2024-01-02 03:04", {"format": "yyyy-MM-dd HH:mm"}),
    ):
        convert = {"name": "convert", "type": _t(side, "TimestampConverter"), "target.type": target, **extra}
        out.append(
            Recipe(
                "TimestampConverter",
                target,
                side,
                ("tsl",),
                (extract, convert),
                type_,
                {FULL_AT: value, NULLS_AT: None, TOMBSTONE_AT: None},
            )
        )
    out += _struct_recipes(side)
    if side == "key":
        out += _value_to_key_recipes()
    return out


def _struct_recipes(side: str) -> list[Recipe]:
    """Families that leave a struct (most flat and small, so csv and raw can write some of them), or an empty one."""
    every = tuple(n for n, _ in COLUMNS)
    flat = tuple(n for n, t in COLUMNS if "<" not in t)
    with_error = {TOMBSTONE_AT: ERROR}  # Kafka: "Only Struct objects supported for [...], found: null"

    def same(*names: str) -> dict[int, Any]:
        return _per_input(lambda r: _pick(*names, record=r))

    def step(family: str, **config: Any) -> dict:
        return {"name": "step", "type": _t(side, family), **config}

    recipes = [
        Recipe(
            "ReplaceField",
            "include",
            side,
            ("id", "s", "by", "b"),
            (step("ReplaceField", include=["id", "s", "by"]),),
            _struct("id", "s", "by"),
            same("id", "s", "by"),
        ),
        Recipe(
            "ReplaceField",
            "one_string",
            side,
            ("id", "s"),
            (step("ReplaceField", exclude="id"),),
            _struct("s"),
            same("s"),
        ),
        Recipe(
            "ReplaceField",
            "one_bytes",
            side,
            ("id", "by"),
            (step("ReplaceField", exclude="id"),),
            _struct("by"),
            same("by"),
        ),
        Recipe(
            "ReplaceField",
            "all_primitives",
            side,
            every,
            (step("ReplaceField", exclude=["arr", "m", "st"]),),
            _struct(*flat),
            same(*flat),
        ),
        Recipe(
            "ReplaceField",
            "exclude_every_field",
            side,
            ("id", "s"),
            (step("ReplaceField", exclude="id, s"),),
            "STRUCT<>",
            _per_input(_or_null(lambda r: {})),
        ),
        Recipe(
            "HeaderFrom",
            "move_every_field",
            side,
            ("id", "s"),
            (step("HeaderFrom", fields="id, s", headers="id, s", operation="move"),),
            "STRUCT<>",
            {FULL_AT: {}, NULLS_AT: {}, **with_error},
        ),
        Recipe(
            "HeaderFrom",
            "copy",
            side,
            ("id", "s"),
            (step("HeaderFrom", fields="s", headers="s", operation="copy"),),
            _struct("id", "s"),
            {**same("id", "s"), **with_error},
        ),
        Recipe(
            "HoistField",
            "wrapped",
            side,
            ("id", "s"),
            (step("HoistField", field="wrapped"),),
            f"STRUCT<wrapped {_struct('id', 's')}>",
            _per_input(lambda r: {"wrapped": _pick("id", "s", record=r)}),
        ),
        Recipe(
            "Flatten",
            "st",
            side,
            ("id", "st"),
            (step("Flatten", delimiter="_"),),
            "STRUCT<id BIGINT, st_a INT, st_b STRING>",
            {
                FULL_AT: {"id": 1, "st_a": 1, "st_b": "x"},
                NULLS_AT: {"id": None, "st_a": None, "st_b": None},
                TOMBSTONE_AT: None,
            },
        ),
        Recipe(
            "InsertField",
            "static",
            side,
            ("id",),
            (step("InsertField", **{"static.field": "origin", "static.value": "web"}),),
            "STRUCT<id BIGINT, origin STRING>",
            {FULL_AT: {"id": 1, "origin": "web"}, NULLS_AT: {"id": None, "origin": "web"}, TOMBSTONE_AT: None},
        ),
        Recipe(
            "MaskField",
            "s",
            side,
            ("id", "s"),
            (step("MaskField", fields="s"),),
            _struct("id", "s"),
            {FULL_AT: {"id": 1, "s": ""}, NULLS_AT: {"id": None, "s": None}, **with_error},
        ),
        Recipe(
            "Cast",
            "field",
            side,
            ("id", "i32"),
            (step("Cast", spec="i32:string"),),
            "STRUCT<id BIGINT, i32 STRING>",
            {FULL_AT: {"id": 1, "i32": "-42"}, NULLS_AT: {"id": None, "i32": None}, TOMBSTONE_AT: None},
        ),
        Recipe(
            "TimestampConverter",
            "field",
            side,
            ("id", "tsl"),
            (step("TimestampConverter", field="tsl", **{"target.type": "unix"}),),
            "STRUCT<id BIGINT, tsl BIGINT>",
            {FULL_AT: {"id": 1, "tsl": TSL_MILLIS}, NULLS_AT: {"id": None, "tsl": None}, TOMBSTONE_AT: None},
        ),
        Recipe(
            "SetSchemaMetadata",
            "whole",
            side,
            every,
            (step("SetSchemaMetadata", **{"schema.name": "com.example.Order"}),),
            _struct(*every),
            same(*every),
        ),
        Recipe(
            "ExtractField",
            "nested_struct",
            side,
            ("st",),
            (step("ExtractField", field="st"),),
            "STRUCT<a INT, b STRING>",
            _per_input(_or_null(lambda r: r["st"])),
        ),
    ]
    # Drop (Confluent's): every key or value null, without a type (nullify) or keeping the struct's (retain)
    recipes += [
        Recipe("Drop", "nullify", side, ("id", "s"), (step("Drop"),), ALWAYS_NULL, _per_input(lambda r: None)),
        Recipe(
            "Drop",
            "retain",
            side,
            ("id", "s"),
            (step("Drop", **{"schema.behavior": "retain"}),),
            _struct("id", "s"),
            _per_input(lambda r: None),
        ),
    ]
    # Record-level families keep the key and value as they are
    for family, config in (
        ("InsertHeader", {"header": "origin", "value.literal": "web"}),
        ("DropHeaders", {"headers": "trace-id"}),
        ("RegexRouter", {"regex": "(.*)", "replacement": "$1-out"}),
        ("TimestampRouter", {"topic.format": "${topic}-${timestamp}", "timestamp.format": "yyyy"}),
        ("Filter", {"predicate": "never"}),
    ):
        recipes.append(
            Recipe(
                family, "keeps", side, ("id",), ({"name": "step", "type": family, **config},), _struct("id"), same("id")
            )
        )
    return recipes


def _value_to_key_recipes() -> list[Recipe]:
    """ValueToKey: V1 a struct key of the fields; V2 with one path the value found there (KIP-821)."""
    return [
        Recipe(
            "ValueToKey",
            "v1_struct",
            "key",
            ("id", "s"),
            ({"name": "key", "type": "ValueToKey", "fields": "id, s"},),
            _struct("id", "s"),
            {FULL_AT: {"id": 1, "s": FULL["s"]}, NULLS_AT: {"id": None, "s": None}, TOMBSTONE_AT: ERROR},
        ),
        Recipe(
            "ValueToKey",
            "v2_primitive",
            "key",
            ("st",),
            ({"name": "key", "type": "ValueToKey", "field.syntax.version": "V2", "fields": "st.a"},),
            "INT",
            {FULL_AT: 1, NULLS_AT: None, TOMBSTONE_AT: ERROR},
        ),
    ]


PREDICATES = {"never": {"type": "TopicNameMatches", "pattern": "no-such-topic"}}
