"""The differential cases: transform chains (YAML as in a pipeline's `transforms:`), the columns they run on, and
records' extra ingredients. Records themselves are drawn by diff_records (hypothesis, seeded by the case id)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from diff_connect import UTC
from diff_records import Case
from hypothesis import strategies as st

# Column sets shared by many cases.
ALL_TYPES = (
    ("id", "BIGINT"),
    ("name", "STRING"),
    ("amount", "DECIMAL(10, 2)"),
    ("tags", "ARRAY<STRING>"),
    ("attrs", "MAP<STRING, INT>"),
    ("addr", "STRUCT<city STRING, zip INT>"),
    ("ts", "TIMESTAMP_LTZ(3)"),
    ("day", "DATE"),
    ("raw", "BYTES"),
    ("ratio", "FLOAT"),
    ("score", "DOUBLE"),
    ("ok", "BOOLEAN"),
    ("small", "TINYINT"),
    ("mid", "SMALLINT"),
    ("qty", "INT"),
    ("local", "TIMESTAMP(3)"),
)
ORDERS = (("id", "BIGINT"), ("region", "STRING"), ("name", "STRING"), ("qty", "INT"), ("price", "DOUBLE"))
NESTED = (
    ("id", "BIGINT"),
    ("customer", "STRUCT<name STRING, address STRUCT<city STRING, zip INT>, tags ARRAY<STRING>>"),
    ("total", "DECIMAL(12, 3)"),
)
TOPICS = ("orders", "test-orders", "orders-eu", "test")
HEADERS = ("trace-id", "source", "Trace-Id")
# Header edges for HasHeaderKey and DropHeaders, always run: no headers (Spark's Kafka source reads them as a null
# array), the key with a null value (present all the same), the key twice, only keys that differ in case, the key last
HEADER_KEY_EDGES = tuple(
    {"value": {"id": i}, "headers": headers}
    for i, headers in enumerate(
        (
            [],
            [("trace-id", None)],
            [("trace-id", "a"), ("trace-id", None)],
            [("Trace-Id", "a"), ("source", "b")],
            [("source", None), ("Trace-Id", None), ("trace-id", "")],
        )
    )
)

# Strings for casts and parsing: valid texts mixed with the edge cases Java's parsers have opinions on.
INT_TEXT = st.one_of(
    st.integers(-300, 300).map(str),
    st.integers(-(2**63), 2**63 - 1).map(str),
    st.sampled_from(["+7", "-0", "007", " 42 ", "1.5", "0x10", "abc", "", "2147483648", "1e3"]),
)
FLOAT_TEXT = st.one_of(
    st.floats(allow_nan=False).map(repr),
    st.integers(-1000, 1000).map(str),
    st.sampled_from(
        [
            "1e3",
            "1.5",
            "-0",
            "-0.0",
            " 1.5 ",
            "NaN",
            "Infinity",
            "-Infinity",
            "1f",
            "2.5d",
            "0x1p3",
            ".5",
            "5.",
            "abc",
            "",
            "1E400",
            "4.9e-325",
            # the strings Spark's cast reads beyond Java's grammar (each holds an n or N), and Java's own with one
            "nan",
            "INF",
            "+inf",
            " -infinity ",
            "+NaN",
            "-NaN",
            " -Infinity\t",
            "Infinityx",
            "1n",
            "\t1.5\n",
            "0x1.8p1",
        ]
    ),
)
BOOL_TEXT = st.sampled_from(["true", "TRUE", "True", "false", "yes", "1", "0", "", " true"])
DATES = st.dates(dt.date(1900, 1, 1), dt.date(2199, 12, 31)).map(lambda d: d.isoformat())
DATE_TEXT = st.one_of(
    DATES,
    DATES,
    DATES,
    st.sampled_from(
        [
            "2024-02-29",
            "2023-02-29",
            "2024-13-45",
            "2024-1-5",
            "2024-01-01T10:00:00",
            "garbage",
            "",
            "1970-01-01",
            "0001-01-01",
        ]
    ),
)
STAMPS = st.datetimes(dt.datetime(1900, 1, 1), dt.datetime(2199, 12, 31)).map(lambda d: d.strftime("%Y-%m-%d %H:%M:%S"))
STAMP_TEXT = st.one_of(
    STAMPS, STAMPS, STAMPS, st.sampled_from(["2024-01-01 24:00:00", "2024-01-01 10:00", "2024-01-01 10:00:00.5", "x"])
)

CASES: tuple[Case, ...] = (
    # ------------------------------------------------------------------ InsertField
    Case(
        "insert_field_value_envelope",
        """
- {name: envelope, type: InsertField$Value, topic.field: t, partition.field: p, offset.field: o, timestamp.field: ts_in,
   static.field: origin, static.value: web}
""",
        ALL_TYPES,
        topics=TOPICS,
        headers=HEADERS,
    ),
    Case(
        "insert_field_key",
        """
- {name: key_origin, type: InsertField$Key, static.field: source, static.value: shop, topic.field: key_topic}
""",
        ORDERS,
        key=("id", "region"),
    ),
    Case(
        "insert_field_suffixes",
        """
- {name: marks, type: InsertField$Value, topic.field: "t!", partition.field: "p?", timestamp.field: "when!?"}
""",
        ORDERS,
    ),
    Case(
        "insert_field_overwrite",
        """
- {name: over, type: org.apache.kafka.connect.transforms.InsertField$Value,
   static.field: name, static.value: "  hidden  "}
""",
        ORDERS,
        differences=("insert-field-overwrite",),
    ),
    Case(
        "insert_field_nested_struct_value",
        """
- {name: ins, type: InsertField$Value, topic.field: src_topic, static.field: note, static.value: "ünïcødé ✓"}
""",
        NESTED,
    ),
    # ------------------------------------------------------------------ ReplaceField
    Case(
        "replace_field_exclude_rename",
        """
- {name: tidy, type: ReplaceField$Value, exclude: [raw, attrs], renames: ["name:full_name", "addr:address"]}
""",
        ALL_TYPES,
    ),
    Case(
        "replace_field_include_before_rename",
        """
- {name: keep, type: ReplaceField$Value, include: "id, qty,name", renames: "name:xyz,qty:name"}
""",
        ORDERS,
    ),
    Case(
        "replace_field_exclude_wins",
        """
- {name: both, type: ReplaceField$Value, include: [id, name, qty], exclude: [qty]}
""",
        ORDERS,
    ),
    Case(
        "replace_field_swap",
        """
- {name: swap, type: ReplaceField$Value, renames: ["name:region", "region:name"]}
""",
        ORDERS,
    ),
    Case(
        "replace_field_exclude_every_field",
        """
- {name: nothing, type: ReplaceField$Value, exclude: "id,region,name,qty,price"}
""",
        ORDERS,
        tombstones=False,
    ),  # a tombstone stays null, which a sink row of no columns cannot tell from {}
    Case(
        "replace_field_key_exclude_every_field",
        """
- {name: no_key, type: ReplaceField$Key, exclude: [id, region]}
""",
        ORDERS,
        key=("id", "region"),
    ),
    Case(
        "replace_field_key",
        """
- {name: key_only_id, type: ReplaceField$Key, exclude: [region], renames: ["id:order_id"]}
""",
        ORDERS,
        key=("id", "region"),
    ),
    Case(
        "replace_field_nested_kept_whole",
        """
- {name: drop_total, type: ReplaceField$Value, exclude: [total], renames: ["customer:c"]}
""",
        NESTED,
    ),
    Case(
        "replace_field_missing_field",
        """
- {name: tidy, type: ReplaceField$Value, exclude: [nope]}
""",
        ORDERS,
        differences=("unknown-field",),
    ),
    Case(
        "replace_field_rename_collision",
        """
- {name: clash, type: ReplaceField$Value, renames: ["name:region"]}
""",
        ORDERS,
        differences=("replace-field-rename-collision",),
    ),
    Case(
        "replace_field_whitelist",
        """
- {name: old, type: ReplaceField$Value, whitelist: [id]}
""",
        ORDERS,
        differences=("replace-field-removed-aliases",),
    ),
    # ------------------------------------------------------------------ Filter and predicates
    Case(
        "filter_topic_name_matches",
        """
- {name: drop_tests, type: Filter, predicate: is_test}
""",
        ORDERS,
        predicates='is_test: {type: TopicNameMatches, pattern: "test-.*"}',
        topics=TOPICS,
    ),
    Case(
        "filter_topic_name_matches_negate",
        """
- {name: keep_tests, type: Filter, predicate: is_test, negate: true}
""",
        ORDERS,
        predicates="is_test: {type: org.apache.kafka.connect.transforms.predicates.TopicNameMatches, pattern: orders}",
        topics=TOPICS,
    ),
    Case(
        "filter_has_header_key",
        """
- {name: drop_traced, type: Filter, predicate: traced}
""",
        ORDERS,
        predicates="traced: {type: HasHeaderKey, name: trace-id}",
        headers=HEADERS,
        fixed=HEADER_KEY_EDGES,
    ),
    Case(
        "filter_has_header_key_negate",
        """
- {name: keep_traced, type: Filter, predicate: traced, negate: true}
""",
        ORDERS,
        predicates='traced: {type: HasHeaderKey, name: " trace-id "}',
        headers=HEADERS,
    ),
    Case(
        "has_header_key_edges_on_masks",
        """
- {name: mask_untraced, type: MaskField$Value, fields: [region], predicate: traced, negate: true}
- {name: mask_traced, type: MaskField$Value, fields: [name], replacement: "***", predicate: traced}
""",
        ORDERS,
        predicates="traced: {type: HasHeaderKey, name: trace-id}",
        headers=HEADERS,
        fixed=HEADER_KEY_EDGES,
    ),
    Case(
        "filter_tombstones",
        """
- {name: drop_tombstones, type: Filter, predicate: tomb}
""",
        ORDERS,
        key=("id",),
        predicates="tomb: {type: RecordIsTombstone}",
    ),
    Case(
        "filter_tombstones_negate",
        """
- {name: keep_tombstones, type: Filter, predicate: tomb, negate: "TRUE"}
""",
        ORDERS,
        key=("id",),
        predicates="tomb: {type: RecordIsTombstone}",
    ),
    Case(
        "filter_everything",
        """
- {name: drop_all, type: Filter}
""",
        ORDERS,
    ),
    Case(
        "predicate_on_other_transforms",
        """
- {name: drop_tombstones, type: Filter, predicate: tomb}
- {name: mask_traced, type: MaskField$Value, fields: [name], replacement: "***", predicate: traced}
- {name: mask_untraced_tests, type: MaskField$Value, fields: [region], predicate: is_test, negate: true}
""",
        ORDERS,
        predicates="""
traced: {type: HasHeaderKey, name: trace-id}
is_test: {type: TopicNameMatches, pattern: "test(-.*)?"}
tomb: {type: RecordIsTombstone}
""",
        topics=TOPICS,
        headers=HEADERS,
    ),
    Case(
        "predicate_on_schema_change",
        """
- {name: tag_traced, type: InsertField$Value, static.field: traced, static.value: "yes", predicate: traced}
""",
        ORDERS,
        predicates="traced: {type: HasHeaderKey, name: trace-id}",
        headers=HEADERS,
        differences=("predicate-one-type",),
    ),
    Case(
        "predicate_on_rename",
        """
- {name: rename_traced, type: ReplaceField$Value, renames: ["name:full_name"], exclude: [price], predicate: traced}
""",
        ORDERS,
        predicates="traced: {type: HasHeaderKey, name: trace-id}",
        headers=HEADERS,
        differences=("predicate-one-type",),
    ),
    # ------------------------------------------------------------------ MaskField
    Case(
        "mask_field_defaults",
        """
- {name: mask, type: MaskField$Value, fields: [id, name, ratio, score, ok, small, mid, qty, ts, day, tags, attrs]}
""",
        ALL_TYPES,
    ),
    Case(
        "mask_field_decimal_scale_zero",
        """
- {name: mask, type: MaskField$Value, fields: "total"}
""",
        (("id", "BIGINT"), ("total", "DECIMAL(12, 0)")),
    ),
    Case(
        "mask_field_replacement_numbers",
        """
- {name: mask, type: MaskField$Value, fields: [id, qty, price, region], replacement: "123.45"}
""",
        ORDERS,
    ),
    Case(
        "mask_field_replacement_text",
        """
- {name: mask, type: MaskField$Value, fields: [name, region], replacement: "****"}
""",
        ORDERS,
    ),
    Case(
        "mask_field_replacement_conversions",
        """
- {name: m1, type: MaskField$Value, fields: [qty], replacement: "1e3"}
- {name: m2, type: MaskField$Value, fields: [id], replacement: "-0.5"}
- {name: m3, type: MaskField$Value, fields: [ratio, score], replacement: "  0.1 "}
- {name: m4, type: MaskField$Value, fields: [small, mid], replacement: "-12.99"}
- {name: m5, type: MaskField$Value, fields: [amount], replacement: "7.5"}
""",
        ALL_TYPES,
    ),
    Case(
        "mask_field_key",
        """
- {name: mask, type: MaskField$Key, fields: [region], replacement: "  x  "}
""",
        ORDERS,
        key=("id", "region"),
    ),
    # ------------------------------------------------------------------ ExtractField
    Case(
        "extract_field_primitive",
        """
- {name: pick, type: ExtractField$Value, field: name}
""",
        ORDERS,
    ),
    Case(
        "extract_field_struct",
        """
- {name: pick, type: ExtractField$Value, field: customer}
""",
        NESTED,
    ),
    Case(
        "extract_field_key",
        """
- {name: pick, type: ExtractField$Key, field: id}
""",
        ORDERS,
        key=("id", "region"),
    ),
    Case(
        "extract_field_v2_nested",
        """
- {name: pick, type: ExtractField$Value, field.syntax.version: v2, field: customer.address.city}
""",
        NESTED,
    ),
    Case(
        "extract_field_v2_backticks",
        """
- {name: pick, type: ExtractField$Value, field.syntax.version: V2, field: "`a.b`"}
""",
        (("a.b", "INT"), ("a", "STRUCT<b INT>")),
    ),
    Case(
        "extract_field_v2_dotted_nested",
        """
- {name: pick, type: ExtractField$Value, field.syntax.version: V2, field: "a.b"}
""",
        (("a.b", "INT"), ("a", "STRUCT<b INT>")),
    ),
    Case(
        "extract_field_v1_dotted_name",
        """
- {name: pick, type: ExtractField$Value, field: "a.b"}
""",
        (("a.b", "INT"), ("a", "STRUCT<b INT>")),
    ),
    # KIP-821 paths as Kafka's SingleFieldPath parses them (reference section 4.3): V2 exists only in ExtractField.
    *(
        Case(
            f"extract_field_v2_path_{i}",
            f"""
- {{name: pick, type: ExtractField$Value, field.syntax.version: V2, field: '{path}'}}
""",
            columns,
            draws=3,
        )
        for i, (path, columns) in enumerate(
            (
                ("foo.`bar.baz`", (("foo", "STRUCT<`bar.baz` INT, bar STRUCT<baz INT>>"),)),
                ("`foo.bar`.baz", (("foo.bar", "STRUCT<baz STRING>"), ("foo", "STRUCT<bar STRUCT<baz INT>>"))),
                ("foo.ba`r.baz", (("foo", "STRUCT<`ba``r` STRUCT<baz INT>, ba STRUCT<`r.baz` INT>>"),)),
                ("foo.`bar\\`.baz`", (("foo", "STRUCT<`bar``.baz` INT, bar STRUCT<baz INT>>"),)),
                ("foo.`bar\\`.`baz`", (("foo", "STRUCT<`bar``.``baz` INT>"),)),
                ("foo`.bar`", (("foo`", "STRUCT<`bar``` INT>"),)),
                ("``foo.bar.baz``", (("`foo.bar.baz`", "INT"), ("foo", "STRUCT<bar STRUCT<baz INT>>"))),
                ("`a\\`.`", (("a`.", "INT"), ("a", "INT"))),
                ("`a`b`.c", (("a`b", "STRUCT<c DOUBLE>"),)),
            )
        )
    ),
    Case(
        "extract_field_array",
        """
- {name: pick, type: ExtractField$Value, field: tags}
""",
        ALL_TYPES,
    ),
    # ------------------------------------------------------------------ Flatten
    Case(
        "flatten_value",
        """
- {name: flat, type: Flatten$Value}
""",
        NESTED + (("deep", "STRUCT<a STRUCT<b STRUCT<c BIGINT, d ARRAY<STRUCT<x INT>>>>>"),),
    ),
    Case(
        "flatten_delimiter",
        """
- {name: flat, type: Flatten$Value, delimiter: "__"}
""",
        NESTED,
    ),
    Case(
        "flatten_key",
        """
- {name: flat, type: Flatten$Key, delimiter: "_"}
""",
        (("id", "BIGINT"), ("k", "STRUCT<a INT, b STRUCT<c STRING>>")),
        key=("id", "k"),
    ),
    Case(
        "flatten_after_hoist",
        """
- {name: wrap, type: HoistField$Value, field: wrapped}
- {name: flat, type: Flatten$Value}
""",
        ORDERS,
    ),
    # ------------------------------------------------------------------ HoistField
    Case(
        "hoist_field_value",
        """
- {name: wrap, type: HoistField$Value, field: payload}
""",
        NESTED,
    ),
    Case(
        "hoist_field_key",
        """
- {name: wrap, type: HoistField$Key, field: k}
""",
        ORDERS,
        key=("id",),
    ),
    Case(
        "hoist_field_primitive",
        """
- {name: pick, type: ExtractField$Value, field: price}
- {name: wrap, type: HoistField$Value, field: amount}
""",
        ORDERS,
    ),
    # ------------------------------------------------------------------ ValueToKey
    Case(
        "value_to_key",
        """
- {name: rekey, type: ValueToKey, fields: "region,id"}
""",
        ORDERS,
        key=("id",),
    ),
    Case(
        "value_to_key_then_extract",
        """
- {name: rekey, type: ValueToKey, fields: [customer]}
- {name: pick, type: ExtractField$Key, field: customer}
""",
        NESTED,
    ),
    Case(
        "value_to_key_after_filter",
        """
- {name: drop_tombstones, type: Filter, predicate: tomb}
- {name: rekey, type: ValueToKey, fields: [id, total]}
""",
        NESTED,
        predicates="tomb: {type: RecordIsTombstone}",
    ),
    # ------------------------------------------------------------------ Cast
    Case(
        "cast_numbers",
        """
- {name: cast, type: Cast$Value,
   spec: "small:int64, mid:int8, qty:float32, id:int16, ratio:int32, score:int64, ok:int32, amount:float64"}
""",
        ALL_TYPES,
    ),
    Case(
        "cast_to_string",
        """
- {name: cast, type: Cast$Value,
   spec: [small:string, id:string, ratio:string, score:string, ok:string, amount:string, raw:string, ts:string,
          day:string]}
""",
        ALL_TYPES,
    ),
    Case(
        "cast_to_boolean",
        """
- {name: cast, type: Cast$Value, spec: "qty:boolean,price:boolean,name:boolean"}
""",
        ORDERS,
        gen={"name": BOOL_TEXT, "price": st.sampled_from([0.0, 0.5, -0.5, 1.0, -0.0, 1e300, 3.0])},
    ),
    Case(
        "cast_from_int_text",
        """
- {name: cast, type: Cast$Value, spec: "a:int8, b:int32, c:INT64, d:Int16"}
""",
        (("a", "STRING"), ("b", "STRING"), ("c", "STRING"), ("d", "STRING")),
        tombstones=False,
        gen={"a": INT_TEXT, "b": INT_TEXT, "c": INT_TEXT, "d": INT_TEXT},
    ),
    Case(
        "cast_from_float_text",
        """
- {name: cast, type: Cast$Value, spec: "a:float64, b:float32"}
""",
        (("a", "STRING"), ("b", "STRING")),
        tombstones=False,
        gen={"a": FLOAT_TEXT, "b": FLOAT_TEXT},
        # always run: Spark's texts beyond Java's grammar (all with an n or N), and Java's own with and without one
        fixed=tuple(
            {"value": {"a": a, "b": b}}
            for a, b in (
                ("nan", "INF"),
                (" -infinity ", "+inf"),
                ("+NaN", " -Infinity\t"),
                ("Infinityx", "1n"),
                ("\t1.5\n", "0x1.8p1"),
                ("2.5d", "-0.0"),
            )
        ),
    ),
    Case(
        "cast_floats",
        """
- {name: cast, type: Cast$Value, spec: "ratio:float64, score:float32, qty:float64, id:float32"}
""",
        ALL_TYPES,
    ),
    Case(
        "cast_logical_to_numbers",
        """
- {name: cast, type: Cast$Value, spec: "ts:int64, day:int32"}
""",
        ALL_TYPES,
    ),
    Case(
        "cast_whole_value",
        """
- {name: pick, type: ExtractField$Value, field: qty}
- {name: cast, type: Cast$Value, spec: string}
""",
        ORDERS,
    ),
    Case(
        "cast_key",
        """
- {name: cast, type: Cast$Key, spec: "id:string, region:string"}
""",
        ORDERS,
        key=("id", "region"),
    ),
    Case(
        "cast_narrowing",
        """
- {name: cast, type: Cast$Value, spec: "ratio:int8, score:int16, amount:int8, id:int8, qty:int16, mid:int8"}
""",
        ALL_TYPES,
        gen={
            "ratio": st.sampled_from([1e10, -1e10, 3.9, -3.9, 255.5, 128.0, 2.5e9, 0.49]),
            "score": st.one_of(st.floats(-1e20, 1e20), st.sampled_from([65535.9, -32769.0, 9.3e18])),
        },
    ),
    Case(
        "cast_to_float32_and_back",
        """
- {name: to_f32, type: Cast$Value, spec: "id:float32, qty:float32, score:float32, amount:float32"}
- {name: to_f64, type: Cast$Value, spec: "id:float64, qty:float64, score:float64, amount:string"}
""",
        ALL_TYPES,
    ),
    Case(
        "cast_booleans_out",
        """
- {name: cast, type: Cast$Value, spec: "ok:float64, small:boolean, mid:string, qty:int8"}
- {name: again, type: Cast$Value, spec: "ok:string, small:int64"}
""",
        ALL_TYPES,
    ),
    Case(
        "cast_decimals",
        """
- {name: cast, type: Cast$Value,
   spec: "tiny:string, wide:string, whole:string, tiny2:float64, wide2:int64, whole2:int32"}
""",
        (
            ("tiny", "DECIMAL(20, 10)"),
            ("wide", "DECIMAL(38, 18)"),
            ("whole", "DECIMAL(5, 0)"),
            ("tiny2", "DECIMAL(20, 10)"),
            ("wide2", "DECIMAL(38, 18)"),
            ("whole2", "DECIMAL(5, 0)"),
        ),
        fixed=(
            {
                "value": {
                    "wide": Decimal("-99999999999999999999.999999999999999999"),
                    "wide2": Decimal("-99999999999999999999.999999999999999999"),
                }
            },
            {
                "value": {
                    "wide": Decimal("99999999999999999999.999999999999999999"),
                    "wide2": Decimal("12345678901234567890.123456789012345678"),
                }
            },
        ),
        gen={
            "tiny": st.sampled_from(
                [
                    Decimal(0),
                    Decimal("0.0000001"),
                    Decimal("-0.0000000001"),
                    Decimal("0.000001"),
                    Decimal("1E+5"),
                    Decimal("12.5"),
                ]
            ).map(lambda d: d.quantize(Decimal("1E-10")))
        },
    ),
    Case(
        "header_from_decimals",
        """
- {name: copy, type: HeaderFrom$Value, fields: [tiny, wide, whole], headers: [tiny, wide, whole], operation: copy}
""",
        (("tiny", "DECIMAL(20, 10)"), ("wide", "DECIMAL(38, 18)"), ("whole", "DECIMAL(5, 0)")),
        gen={
            "tiny": st.sampled_from(
                [Decimal(0), Decimal("0.0000001"), Decimal("-0.0000000001"), Decimal("0.000001"), Decimal("12.5")]
            ).map(lambda d: d.quantize(Decimal("1E-10")))
        },
    ),
    Case(
        "cast_whole_bytes",
        """
- {name: pick, type: ExtractField$Value, field: raw}
- {name: cast, type: Cast$Value, spec: " STRING "}
""",
        ALL_TYPES,
    ),
    Case(
        "cast_whole_timestamp_key",
        """
- {name: pick_key, type: ExtractField$Key, field: ts}
- {name: cast_key, type: Cast$Key, spec: string}
""",
        ALL_TYPES,
        key=("ts",),
        differences=("cast-temporal-to-string",),
    ),
    Case(
        "cast_bytes_to_int",
        """
- {name: cast, type: Cast$Value, spec: "raw:int32"}
""",
        (("id", "BIGINT"), ("raw", "BYTES")),
        gen={"raw": st.binary(min_size=4, max_size=4)},
        tombstones=False,
        differences=("cast-bytes-to-number",),
    ),
    # ------------------------------------------------------------------ TimestampConverter
    Case(
        "timestamp_to_string",
        """
- {name: fmt, type: TimestampConverter$Value, field: ts, target.type: string, format: "yyyy-MM-dd'T'HH:mm:ss.SSS"}
""",
        ALL_TYPES,
    ),
    Case(
        "timestamp_to_unix_seconds",
        """
- {name: unix, type: TimestampConverter$Value, field: ts, target.type: unix, unix.precision: seconds}
""",
        ALL_TYPES,
    ),
    Case(
        "timestamp_to_unix_micros",
        """
- {name: unix, type: TimestampConverter$Value, field: ts, target.type: unix, unix.precision: microseconds}
""",
        ALL_TYPES,
    ),
    Case(
        "timestamp_to_date_and_time",
        """
- {name: to_date, type: TimestampConverter$Value, field: ts, target.type: Date}
- {name: to_time, type: TimestampConverter$Value, field: ts2, target.type: Time}
""",
        (("ts", "TIMESTAMP_LTZ(3)"), ("ts2", "TIMESTAMP_LTZ(3)")),
    ),
    Case(
        "timestamp_from_unix",
        """
- {name: from_ms, type: TimestampConverter$Value, field: id, target.type: Timestamp}
- {name: from_ns, type: TimestampConverter$Value, field: ns, target.type: Timestamp, unix.precision: nanoseconds}
""",
        (("id", "BIGINT"), ("ns", "BIGINT")),
        gen={"id": st.integers(-(10**12) * 2, 10**13)},
    ),
    Case(
        "timestamp_from_date",
        """
- {name: day_ts, type: TimestampConverter$Value, field: day, target.type: Timestamp}
- {name: day_text, type: TimestampConverter$Value, field: day2, target.type: string, format: "EEE, d MMM yyyy"}
""",
        (("day", "DATE"), ("day2", "DATE")),
    ),
    Case(
        "timestamp_parse_date_text",
        """
- {name: parse, type: TimestampConverter$Value, field: text, target.type: Date, format: yyyy-MM-dd}
""",
        (("id", "BIGINT"), ("text", "STRING")),
        gen={"text": DATE_TEXT},
        tombstones=False,
        differences=("timestamp-converter-strict-parsing",),
    ),
    Case(
        "timestamp_parse_to_unix",
        """
- {name: parse, type: TimestampConverter$Value, field: text, target.type: unix, format: "yyyy-MM-dd HH:mm:ss"}
""",
        (("id", "BIGINT"), ("text", "STRING")),
        gen={"text": STAMP_TEXT},
        tombstones=False,
        differences=("timestamp-converter-strict-parsing",),
    ),
    Case(
        "timestamp_to_string_patterns",
        """
- {name: f1, type: TimestampConverter$Value, field: t1, target.type: string, format: "yyyy.MM.dd G 'at' HH:mm:ss z"}
- {name: f2, type: TimestampConverter$Value, field: t2, target.type: string, format: "EEE, MMM d, ''yy"}
- {name: f3, type: TimestampConverter$Value, field: t3, target.type: string, format: "h:mm a"}
- {name: f4, type: TimestampConverter$Value, field: t4, target.type: string, format: "yyyyMMddHHmmssZ"}
- {name: f5, type: TimestampConverter$Value, field: t5, target.type: string, format: "yyyy-MM-dd'T'HH:mm:ss.SSSXXX"}
- {name: f6, type: TimestampConverter$Value, field: t6, target.type: string, format: "D k K MMMM"}
""",
        tuple((f"t{i}", "TIMESTAMP_LTZ(3)") for i in range(1, 7)),
    ),
    Case(
        "timestamp_to_unix_extremes",
        """
- {name: ns, type: TimestampConverter$Value, field: ts, target.type: unix, unix.precision: nanoseconds}
- {name: us, type: TimestampConverter$Value, field: ts2, target.type: unix, unix.precision: microseconds}
""",
        (("ts", "TIMESTAMP_LTZ(3)"), ("ts2", "TIMESTAMP_LTZ(3)")),
        fixed=(
            {"value": {"ts": dt.datetime(2300, 1, 1, tzinfo=UTC), "ts2": dt.datetime(1600, 1, 1, tzinfo=UTC)}},
            {"value": {"ts": dt.datetime(1600, 1, 1, tzinfo=UTC), "ts2": dt.datetime(9999, 12, 31, tzinfo=UTC)}},
            {"value": {"ts": dt.datetime(1677, 9, 21, 0, 12, 43, 145000, tzinfo=UTC)}},
        ),
    ),
    Case(
        "timestamp_from_unix_seconds",
        """
- {name: from_s, type: TimestampConverter$Value, field: secs, target.type: Date, unix.precision: seconds}
- {name: from_us, type: TimestampConverter$Value, field: micros, target.type: string, unix.precision: microseconds,
   format: "yyyy-MM-dd HH:mm:ss.SSS"}
""",
        (("secs", "BIGINT"), ("micros", "BIGINT")),
        gen={"secs": st.integers(-(2**34), 2**34), "micros": st.integers(-(2**52), 2**52)},
    ),
    Case(
        "timestamp_ntz_columns",
        """
- {name: unix, type: TimestampConverter$Value, field: local, target.type: unix}
- {name: text, type: Cast$Value, spec: "ts:string"}
- {name: copy, type: HeaderFrom$Value, fields: [local2], headers: [local2], operation: copy}
""",
        (("local", "TIMESTAMP(3)"), ("ts", "TIMESTAMP(3)"), ("local2", "TIMESTAMP(3)")),
    ),
    Case(
        "timestamp_whole_value",
        """
- {name: pick, type: ExtractField$Value, field: ts}
- {name: unix, type: TimestampConverter$Value, target.type: unix}
""",
        ALL_TYPES,
    ),
    Case(
        "timestamp_key",
        """
- {name: fmt, type: TimestampConverter$Key, field: ts, target.type: string, format: "yyyyMMddHHmmssSSS"}
""",
        (("id", "BIGINT"), ("ts", "TIMESTAMP_LTZ(3)")),
        key=("id", "ts"),
    ),
    # ------------------------------------------------------------------ headers
    Case(
        "insert_header_literals",
        """
- {name: h1, type: InsertHeader, header: num, value.literal: "1"}
- {name: h2, type: InsertHeader, header: big, value.literal: "3000000000"}
- {name: h3, type: InsertHeader, header: text, value.literal: " spaced "}
- {name: h4, type: InsertHeader, header: flag, value.literal: "true"}
- {name: h5, type: InsertHeader, header: list, value.literal: "[1, 2,3]"}
- {name: h6, type: InsertHeader, header: map, value.literal: '{"a":1, "b": "x"}'}
- {name: h7, type: InsertHeader, header: day, value.literal: "2024-01-02"}
- {name: h8, type: InsertHeader, header: frac, value.literal: "1.5"}
- {name: h9, type: InsertHeader, header: trace-id, value.literal: "again"}
""",
        ORDERS,
        headers=HEADERS,
    ),
    Case(
        "insert_header_literal_edges",
        """
- {name: h1, type: InsertHeader, header: nothing, value.literal: "null"}
- {name: h2, type: InsertHeader, header: empty, value.literal: ""}
- {name: h3, type: InsertHeader, header: quoted, value.literal: '"quoted"'}
- {name: h4, type: InsertHeader, header: time, value.literal: "10:15:30.000Z"}
- {name: h5, type: InsertHeader, header: stamp, value.literal: "2024-01-02T10:15:30.000Z"}
- {name: h6, type: InsertHeader, header: huge, value.literal: "12345678901234567890"}
- {name: h7, type: InsertHeader, header: mixed, value.literal: '[1, "a", true]'}
- {name: h8, type: InsertHeader, header: nested, value.literal: '{"a": [1, 2], "b": {"c": null}}'}
- {name: h9, type: InsertHeader, header: neg, value.literal: "-0"}
- {name: h10, type: InsertHeader, header: sci, value.literal: "1e3"}
- {name: h11, type: InsertHeader, header: short, value.literal: "300"}
- {name: h12, type: InsertHeader, header: word, value.literal: "hello world"}
""",
        ORDERS,
        draws=2,
    ),
    Case(
        "drop_headers",
        """
- {name: drop, type: DropHeaders, headers: "trace-id, source"}
""",
        ORDERS,
        headers=HEADERS,
        fixed=HEADER_KEY_EDGES,
    ),
    # arrays whose elements Spark casts to Connect's text one by one: the whole array cast, no lambda per element
    Case(
        "header_from_number_arrays",
        """
- {name: copy, type: HeaderFrom$Value, operation: copy, fields: [ints, longs, doubles, flags, amounts, small],
   headers: [ints, longs, doubles, flags, amounts, small]}
""",
        (
            ("id", "BIGINT"),
            ("ints", "ARRAY<INT>"),
            ("longs", "ARRAY<BIGINT>"),
            ("doubles", "ARRAY<DOUBLE>"),
            ("flags", "ARRAY<BOOLEAN>"),
            ("amounts", "ARRAY<DECIMAL(10, 2)>"),
            ("small", "ARRAY<TINYINT>"),
        ),
        headers=HEADERS,
        fixed=({"value": {"id": 1, "ints": [], "doubles": [None, -2.5, 1e7, 1.5e-5], "flags": [True, None]}},),
    ),
    Case(
        "header_from_copy",
        """
- {name: copy, type: HeaderFrom$Value, operation: copy,
   fields: [id, name, qty, price, id], headers: [h_id, h_name, h_qty, h_price, trace-id]}
""",
        ORDERS,
        headers=HEADERS,
    ),
    Case(
        "header_from_move_types",
        """
- {name: move, type: HeaderFrom$Value, operation: move,
   fields: "ok,amount,ts,day,raw,tags,addr,attrs,ratio", headers: "ok,amount,ts,day,raw,tags,addr,attrs,ratio"}
""",
        ALL_TYPES,
        differences=("map-entry-order",),
    ),
    # an empty struct: Kafka keeps a struct whose fields all moved (tombstones: HeaderFrom fails on them)
    Case(
        "header_from_move_every_field",
        """
- {name: move, type: HeaderFrom$Value, operation: move, fields: "id,region,name,qty,price",
   headers: "id,region,name,qty,price"}
""",
        ORDERS,
        tombstones=False,
    ),
    Case(
        "header_from_key",
        """
- {name: copy, type: HeaderFrom$Key, fields: [region], headers: [region], operation: copy}
""",
        ORDERS,
        key=("id", "region"),
    ),
    # ------------------------------------------------------------------ routers
    Case(
        "regex_router",
        """
- {name: route, type: RegexRouter, regex: "(test-)?(.*)", replacement: "$2_v2"}
""",
        ORDERS,
        topics=TOPICS,
    ),
    Case(
        "regex_router_named_groups",
        """
- {name: route, type: RegexRouter, regex: "(?<env>test)-(?<t>[a-z]+)", replacement: '${t}.${env}.\\$1'}
""",
        ORDERS,
        topics=TOPICS,
    ),
    Case(
        "regex_router_alternation",
        """
- {name: route, type: RegexRouter, regex: "orders|test(-orders)?", replacement: "$0+$1"}
""",
        ORDERS,
        topics=TOPICS,
    ),
    Case(
        "regex_router_star",
        """
- {name: route, type: RegexRouter, regex: "(.*)", replacement: "$1-x"}
- {name: again, type: RegexRouter, regex: "(?i)TEST.*", replacement: "routed"}
""",
        ORDERS,
        topics=TOPICS,
    ),
    Case(
        "timestamp_router",
        """
- {name: route, type: TimestampRouter}
""",
        ORDERS,
        topics=TOPICS,
    ),
    Case(
        "timestamp_router_format",
        """
- {name: route, type: TimestampRouter, topic.format: "${timestamp}/${topic}/${topic}",
   timestamp.format: "yyyy-MM-dd'T'HH"}
""",
        ORDERS,
        topics=TOPICS,
    ),
    # ------------------------------------------------------------------ SetSchemaMetadata
    Case(
        "set_schema_metadata",
        """
- {name: rename, type: SetSchemaMetadata$Value, schema.name: com.example.Order, schema.version: 3}
""",
        ORDERS,
    ),
    Case(
        "set_schema_metadata_key",
        """
- {name: rename, type: SetSchemaMetadata$Key, schema.name: com.example.OrderKey}
""",
        ORDERS,
        key=("id",),
    ),
    # ------------------------------------------------------------------ chains: later steps see earlier changes
    Case(
        "route_then_filter_and_insert",
        """
- {name: route, type: RegexRouter, regex: "test-(.*)", replacement: "$1"}
- {name: drop_eu, type: Filter, predicate: eu}
- {name: where, type: InsertField$Value, topic.field: routed_topic}
- {name: day, type: TimestampRouter, topic.format: "${topic}@${timestamp}", timestamp.format: yyyy}
- {name: tag_old, type: InsertField$Value, static.field: old, static.value: "yes", predicate: old}
""",
        ORDERS,
        predicates="""
eu: {type: TopicNameMatches, pattern: ".*-eu"}
old: {type: TopicNameMatches, pattern: ".*@19.."}
""",
        topics=TOPICS,
        differences=("predicate-one-type",),
    ),
    Case(
        "headers_then_predicates",
        """
- {name: drop, type: DropHeaders, headers: [trace-id]}
- {name: drop_traced, type: Filter, predicate: traced}
- {name: mark, type: InsertHeader, header: trace-id, value.literal: "42"}
- {name: keep_traced, type: Filter, predicate: traced, negate: true}
- {name: copy, type: HeaderFrom$Value, fields: [qty], headers: [Trace-Id], operation: copy}
""",
        ORDERS,
        predicates="traced: {type: HasHeaderKey, name: trace-id}",
        headers=HEADERS,
        fixed=HEADER_KEY_EDGES,
    ),
    Case(
        "key_chain",
        """
- {name: rekey, type: ValueToKey, fields: [id, region, price]}
- {name: drop_price, type: ReplaceField$Key, exclude: [price]}
- {name: cast_id, type: Cast$Key, spec: "id:string"}
- {name: mask_region, type: MaskField$Key, fields: [region]}
- {name: pick, type: ExtractField$Key, field: id}
- {name: wrap, type: HoistField$Key, field: order}
""",
        ORDERS,
        key=("id",),
    ),
    Case(
        "insert_field_on_primitive",
        """
- {name: pick, type: ExtractField$Value, field: name}
- {name: ins, type: InsertField$Value, static.field: x, static.value: y}
""",
        ORDERS,
        differences=("struct-required",),
    ),
    # ------------------------------------------------------------------ real-world chains (tests/real_world/configs)
    Case(
        "rw_valuetokey_extractfield_key",
        """
- {name: copyIdToKey, type: org.apache.kafka.connect.transforms.ValueToKey, fields: id}
- {name: extractKeyFromStruct, type: "org.apache.kafka.connect.transforms.ExtractField$Key", field: id}
""",
        (("id", "INT"), ("full_name", "STRING"), ("birthdate", "DATE")),
        tombstones=False,
    ),
    Case(
        "rw_key_and_mask",
        """
- {name: copyFieldToKey, type: ValueToKey, fields: user_name}
- {name: extractKeyFromStruct, type: ExtractField$Key, field: user_name}
- {name: maskSsn, type: MaskField$Value, fields: ssn, replacement: xxx-xx-xxxx}
""",
        (("user_id", "INT"), ("user_name", "STRING"), ("ssn", "STRING")),
        tombstones=False,
    ),
    Case(
        "rw_cast_text_to_numbers",
        """
- {name: castTypes, type: Cast$Value, spec: "cost:float32,units:int16"}
""",
        (("cost", "STRING"), ("units", "STRING"), ("item", "STRING")),
        tombstones=False,
        gen={"cost": FLOAT_TEXT, "units": st.one_of(INT_TEXT, st.integers(-40000, 40000).map(str))},
        fixed=({"value": {"cost": "17.49", "units": "29"}}, {"value": {"cost": "92.88", "units": "36"}}),
    ),
    Case(
        "rw_insert_timestamp_as_text",
        """
- {name: insertTS, type: InsertField$Value, timestamp.field: messageTS}
- {name: formatTS, type: TimestampConverter$Value, format: "yyyy-MM-dd HH:mm:ss:SSS", field: messageTS,
   target.type: string}
""",
        (("customer_id", "STRING"), ("cost", "STRING")),
    ),
    Case(
        "rw_epoch_field_to_text",
        """
- {name: TimestampConverter, type: TimestampConverter$Value, format: "yyyy-MM-dd'T'HH:mm:ss.SSSZ", field: CREATE_TS,
   target.type: string}
""",
        (("ID", "BIGINT"), ("CREATE_TS", "BIGINT")),
        gen={"CREATE_TS": st.integers(-(2**41), 2**42)},
        fixed=({"value": {"ID": 1, "CREATE_TS": 1636048731469}},),
    ),
    Case(
        "rw_insert_field_metadata",
        """
- {name: insertStaticField1, type: InsertField$Value, static.field: sourceSystem, static.value: NeverGonna}
- {name: insertPartition, type: InsertField$Value, partition.field: kafkaPartition}
- {name: insertOffset, type: InsertField$Value, offset.field: kafkaOffset}
- {name: insertTopic, type: InsertField$Value, topic.field: kafkaTopic}
""",
        ORDERS,
        topics=("day6-transactions", "orders"),
    ),
    Case(
        "rw_headers_move_drop_insert",
        """
- {name: moveFieldsToHeader, type: HeaderFrom$Value, fields: "id,ts", headers: "record_id,event_timestamp",
   operation: move}
- {name: dropAppIdHeader, type: DropHeaders, headers: "app.id,txn.id"}
- {name: insertAppIdHeader, type: InsertHeader, header: app.id, value.literal: best-app-ever}
- {name: map_literal, type: InsertHeader, header: ratios, value.literal: "{3.4: 4761, -5.9: -9753186420}"}
""",
        (("id", "INT"), ("ts", "BIGINT"), ("name", "STRING")),
        headers=("app.id", "txn.id", "source"),
        tombstones=False,
    ),
    Case(
        "rw_flatten_underscore",
        """
- {name: flatten, type: Flatten$Value, delimiter: "_"}
""",
        (
            ("FULL_NAME", "STRING"),
            ("ADDRESS", "STRUCT<STREET STRING, CITY STRING, ZIP_OR_POSTCODE STRING>"),
            ("content", "STRUCT<id BIGINT, name STRUCT<first STRING, middle STRING, `last` STRING>>"),
        ),
    ),
    Case(
        "rw_routers",
        """
- {name: dropTopicPrefix, type: RegexRouter, regex: 'day(\\d+)-(.*)', replacement: "$2_day$1"}
- {name: route, type: RegexRouter, regex: '([^.]+)\\.([^.]+)\\.([^.]+)', replacement: "$3"}
- {name: TimestampRouter, type: TimestampRouter, topic.format: "foo-${topic}-${timestamp}", timestamp.format: yyyyMM}
""",
        ORDERS,
        topics=("day4-transactions", "dbserver1.inventory.customers", "day11-systemB", "orders"),
    ),
    Case(
        "rw_filter_tombstones_replace_fields",
        """
- {name: dropNullRecords, type: Filter, predicate: isNullRecord}
- {name: selectFields, type: ReplaceField$Value, include: "item,cost,units,txn_date"}
- {name: renameTS, type: ReplaceField$Value, renames: "txn_date:transaction_timestamp"}
- {name: changeTableName, type: RegexRouter, regex: ".*", replacement: production_data}
""",
        (("cost", "STRING"), ("units", "STRING"), ("card_type", "STRING"), ("item", "STRING"), ("txn_date", "STRING")),
        predicates="isNullRecord: {type: org.apache.kafka.connect.transforms.predicates.RecordIsTombstone}",
    ),
    Case(
        "rw_kip821_extract_nested",
        """
- {name: smt1, type: ExtractField$Value, field.syntax.version: v2, field: "`parent.child`.k2"}
""",
        (("k1", "INT"), ("parent", "STRUCT<child STRUCT<k2 STRING>>"), ("parent.child", "STRUCT<k2 STRING>")),
    ),
)
