"""Data-driven tests of schemas/pipeline.schema.json (the pipeline language's JSON Schema)."""

import json
import re

import pytest
import yaml
from jsonschema import Draft202012Validator
from pipec.package_data import SCHEMA_PATH
from pipec.transforms import PACKAGE, REGISTRY

SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA)
DEFS = SCHEMA["$defs"]

FQ = PACKAGE
TRANSFORMS = {name: REGISTRY.transforms[name].sides for name in sorted(REGISTRY.transforms)}  # -> $Key/$Value?
PREDICATES = sorted(REGISTRY.predicates)

# Each transform's documented example step (docs/transforms.md), as a config merged into a step.
EXAMPLE_CONFIG = {
    name: {k: v for k, v in yaml.safe_load(spec.example)[0].items() if k not in ("name", "type", "predicate")}
    for name, spec in REGISTRY.transforms.items()
}
# The smallest config the schema accepts: each required key with a value of its kind.
KIND_VALUES = {"STRING": "a", "LIST": ["a"], "BOOLEAN": True, "INT": 1}
REQUIRED_CONFIG = {
    name: {k.name: k.choices[0] if k.choices else KIND_VALUES[k.kind] for k in spec.keys if k.required}
    for name, spec in REGISTRY.transforms.items()
}

BASE = """
version: 1
name: base
source: {connector: files, path: /tmp/in, format: json}
sink: {connector: console}
"""


def load(text):
    return yaml.safe_load(text)


def errors_of(doc):
    return sorted(VALIDATOR.iter_errors(doc), key=lambda e: (list(map(str, e.absolute_path)), str(e.validator)))


def spellings(name):
    bare = [f"{name}$Key", f"{name}$Value"] if TRANSFORMS[name] else [name]
    return bare + [REGISTRY.transforms[name].package + b for b in bare]


# ----------------------------------------------------------------------------------------------------------
# the schema itself
# ----------------------------------------------------------------------------------------------------------


def test_schema_is_valid_draft_2020_12():
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert re.fullmatch(r"https://pipec\.dev/schemas/pipeline/v\d+\.json", SCHEMA["$id"])
    assert SCHEMA["title"] and SCHEMA["description"]
    Draft202012Validator.check_schema(SCHEMA)


def test_defs_named_by_bare_transform_and_predicate_names():
    for name in list(TRANSFORMS) + PREDICATES:
        assert name in DEFS, name
        assert DEFS[name]["additionalProperties"] is False, name


_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "dependentSchemas")
_SCHEMA_ONE = (
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "not",
    "then",
    "else",
    "contains",
    "propertyNames",
)
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")


def _walk(node, path=()):
    """Yield (path, schema) for every subschema that declares something (`if` conditions only test)."""
    if not isinstance(node, dict):
        return
    yield path, node
    for key in _SCHEMA_MAPS:
        for name, sub in node.get(key, {}).items():
            yield from _walk(sub, path + (key, name))
    for key in _SCHEMA_ONE:
        if key in node:
            yield from _walk(node[key], path + (key,))
    for key in _SCHEMA_LISTS:
        for i, sub in enumerate(node.get(key, [])):
            yield from _walk(sub, path + (key, i))


def test_every_property_has_a_description():
    missing = []
    for path, node in _walk(SCHEMA):
        for name, sub in node.get("properties", {}).items():
            if not (isinstance(sub, dict) and isinstance(sub.get("description"), str) and sub["description"].strip()):
                missing.append("/".join(map(str, path + ("properties", name))))
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and not extra.get("description"):
            missing.append("/".join(map(str, path + ("additionalProperties",))))
    assert not missing, missing
    for name, sub in DEFS.items():
        assert sub.get("description"), f"$defs/{name} has no description"


def _resolve(ref):
    assert ref.startswith("#/"), ref
    node = SCHEMA
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def test_every_ref_resolves_and_every_def_is_used():
    used = set()
    for _, node in _walk(SCHEMA):
        if "$ref" in node:
            _resolve(node["$ref"])
            used.add(node["$ref"].split("/")[-1])
    assert set(DEFS) - used == set()


def test_every_object_is_closed():
    """Each object schema with `properties` is closed, or dispatches (if/then on one key) to closed defs that
    know every key the dispatcher declares."""
    for path, node in _walk(SCHEMA):
        props = node.get("properties")
        if not isinstance(props, dict) or node.get("type") != "object":
            continue
        if node.get("additionalProperties") is False or node.get("unevaluatedProperties") is False:
            continue
        if isinstance(node.get("additionalProperties"), dict):
            # a map (KafkaSourceProperties) that also names some well-known keys: other keys are map entries
            continue
        branches = [item["then"]["$ref"] for item in node.get("allOf", [])]
        assert branches, f"{'/'.join(map(str, path))} is open"
        for ref in branches:
            target = _resolve(ref)
            assert target["additionalProperties"] is False, ref
            assert set(props) <= set(target["properties"]), ref


# ----------------------------------------------------------------------------------------------------------
# transform `type` dispatch
# ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spelling", DEFS["TransformStep"]["properties"]["type"]["enum"])
def test_each_spelling_selects_exactly_its_def(spelling):
    chosen = [
        item["then"]["$ref"]
        for item in DEFS["TransformStep"]["allOf"]
        if Draft202012Validator(item["if"]).is_valid({"type": spelling})
    ]
    bare = spelling.rpartition(".")[2].split("$")[0]
    assert chosen == [f"#/$defs/{bare}"]


@pytest.mark.parametrize("spelling", DEFS["Predicate"]["properties"]["type"]["enum"])
def test_each_predicate_spelling_selects_exactly_its_def(spelling):
    chosen = [
        item["then"]["$ref"]
        for item in DEFS["Predicate"]["allOf"]
        if Draft202012Validator(item["if"]).is_valid({"type": spelling})
    ]
    assert chosen == ["#/$defs/" + spelling.split(".")[-1]]


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_each_transform_example_valid_in_every_spelling(name):
    for spelling in spellings(name):
        doc = load(BASE)
        doc["transforms"] = [{"name": "s", "type": spelling, **EXAMPLE_CONFIG[name]}]
        assert errors_of(doc) == [], spelling


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_each_transform_needs_exactly_its_required_keys(name):
    doc = load(BASE)
    doc["transforms"] = [{"name": "s", "type": spellings(name)[0], **REQUIRED_CONFIG[name]}]
    assert errors_of(doc) == []
    for key in REQUIRED_CONFIG[name]:
        doc["transforms"] = [{"name": "s", "type": spellings(name)[0], **REQUIRED_CONFIG[name]}]
        del doc["transforms"][0][key]
        errs = errors_of(doc)
        assert [(tuple(e.absolute_path), e.validator) for e in errs] == [(("transforms", 0), "required")], key
        assert f"'{key}' is a required property" in errs[0].message


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_each_transform_rejects_an_unknown_key_precisely(name):
    doc = load(BASE)
    doc["transforms"] = [{"name": "s", "type": spellings(name)[-1], **EXAMPLE_CONFIG[name], "bogus.key": "x"}]
    errs = errors_of(doc)
    assert [(tuple(e.absolute_path), e.validator) for e in errs] == [(("transforms", 0), "additionalProperties")]
    assert "'bogus.key' was unexpected" in errs[0].message


@pytest.mark.parametrize("name", [n for n, v in TRANSFORMS.items() if v])
def test_variant_transforms_need_a_suffix(name):
    doc = load(BASE)
    doc["transforms"] = [{"name": "s", "type": name, **EXAMPLE_CONFIG[name]}]
    errs = errors_of(doc)
    assert [(tuple(e.absolute_path), e.validator) for e in errs] == [(("transforms", 0, "type"), "enum")]


def test_unknown_type_error_lists_the_accepted_names():
    doc = load(BASE)
    doc["transforms"] = [{"name": "s", "type": "InsertFeld$Value", "static.field": "a", "static.value": "b"}]
    (err,) = errors_of(doc)
    assert err.json_path == "$.transforms[0].type"
    assert err.validator == "enum"
    assert err.message.startswith("'InsertFeld$Value' is not one of ['Cast$Key', 'Cast$Value', ")
    assert "'InsertField$Value'" in err.message and f"'{FQ}ValueToKey'" in err.message


# ----------------------------------------------------------------------------------------------------------
# valid documents
# ----------------------------------------------------------------------------------------------------------

FULL_EXAMPLE = r"""
# yaml-language-server: $schema=../schemas/pipeline.schema.json
version: 1
name: orders_masked
description: Mask card numbers and route orders by day.
mode: streaming
source:
  connector: kafka
  topics: [orders]
  properties:
    bootstrap.servers: ${env:KAFKA_BOOTSTRAP_SERVERS:-localhost:9092}
    security.protocol: PLAINTEXT
    max.poll.records: 500
  startup:
    mode: earliest-offset
  key:
    format: json
    fields: [order_id]
  value:
    format: json
    fields-include: ALL
  columns:
    - {name: order_id, type: BIGINT}
    - {name: customer, type: "STRUCT<name STRING, card STRING>"}
    - {name: amount, type: "DECIMAL(10, 2)"}
    - {name: ts, type: "TIMESTAMP_LTZ(3)", metadata: timestamp, virtual: true}
    - {name: part, type: INT, metadata: partition, virtual: true}
    - {name: hdrs, headers: true}
    - {name: trace, type: BYTES, header: trace-id, description: the tracing id}
  options: {maxOffsetsPerTrigger: 10000, failOnDataLoss: false}
predicates:
  is_test: {type: TopicNameMatches, pattern: "test-.*"}
transforms:
  - name: drop_tests
    type: Filter
    predicate: is_test
  - name: mask_card
    type: MaskField$Value
    field.syntax.version: V2
    fields: [customer.card]
    replacement: "****"
  - name: day_topic
    type: TimestampRouter
    topic.format: "${topic}-${timestamp}"
    timestamp.format: yyyyMMdd
sink:
  connector: kafka
  topic: orders_masked
  properties: {bootstrap.servers: "${env:KAFKA_BOOTSTRAP_SERVERS}"}
  key: {format: json, fields: [order_id]}
  value: {format: json, fields-include: ALL}
  metadata: {headers: hdrs, partition: part}
  checkpoint: ${env:CHECKPOINT_DIR}/orders_masked
  trigger: available-now
errors:
  tolerance: all
  deadletterqueue.topic.name: orders_dlq
  deadletterqueue.context.headers.enable: true
  deadletterqueue.topic.replication.factor: 3
  log.enable: true
  log.include.messages: false
spark:
  conf: {spark.sql.shuffle.partitions: 4, spark.ui.enabled: false, spark.app.name: orders}
tests:
  - name: masks the card
    given:
      - {key: {order_id: 1}, value: {order_id: 1, customer: {name: a, card: "4111"}, amount: 9.5},
         headers: {trace-id: "abc"}, topic: orders, partition: 0, offset: 7, timestamp: "2024-01-01T00:00:00Z"}
    expect:
      - key: {order_id: 1}
        value: {order_id: 1, customer: {name: a, card: "****"}, amount: 9.5,
                hdrs: [{key: trace-id, value: "YWJj"}], trace: "YWJj"}
        topic: orders-20240101
"""

ALL_TRANSFORMS_BARE = r"""
version: 1
name: every_transform
source: {connector: files, path: /data/in, format: json}
predicates:
  has_trace: {type: HasHeaderKey, name: trace-id}
  tombstone: {type: RecordIsTombstone}
  test_topic: {type: TopicNameMatches, pattern: "test-.*"}
transforms:
  - {name: c1, type: Cast$Value, spec: ["amount:float64", "qty:int32"], field.syntax.version: v2,
     replace.null.with.default: false}
  - {name: c2, type: Cast$Key, spec: int64, bytes.order: little_endian, bytes.string.encoding: utf8}
  - {name: c3, type: Cast$Value, spec: "raw:string", bytes.string.encoding: base64, bytes.order: BIG_ENDIAN}
  - {name: d1, type: DropHeaders, headers: [trace-id, other], predicate: has_trace, negate: true}
  - {name: e1, type: ExtractField$Value, field: "`parent.child`.k2", field.syntax.version: V2,
     replace.null.with.default: "TRUE"}
  - {name: f1, type: Filter, predicate: tombstone, negate: "false"}
  - {name: f2, type: Flatten$Value, delimiter: __}
  - {name: h1, type: HeaderFrom$Value, fields: "a, b", headers: "ha, hb", operation: move,
     field.syntax.version: V1, replace.null.with.default: true}
  - {name: h2, type: HoistField$Key, field: other, hoisted: parent.child, field.syntax.version: V2}
  - name: i1
    type: InsertField$Value
    topic.field: topic
    partition.field: part!
    offset.field: off?
    timestamp.field: ts
    static.field: source
    static.value: 42
    field.on.missing.parent: ignore
    field.on.existing.field: overwrite
    field.syntax.version: V2
    replace.null.with.default: true
  - {name: i2, type: InsertHeader, header: version, value.literal: 3}
  - {name: m1, type: MaskField$Key, fields: card, replacement: 0, field.syntax.version: V1,
     replace.null.with.default: "false"}
  - {name: r1, type: RegexRouter, regex: "orders-(.*)", replacement: "out-$1", predicate: test_topic}
  - name: r2
    type: ReplaceField$Value
    include: [a, b]
    exclude: c
    renames: ["a:alpha", "b:beta"]
    whitelist: [a]
    blacklist: c
    field.syntax.version: V2
    replace.null.with.default: false
  - {name: s1, type: SetSchemaMetadata$Value, schema.name: com.example.Order, schema.version: 2}
  - {name: s2, type: SetSchemaMetadata$Key, schema.version: "3", replace.null.with.default: false}
  - {name: t1, type: TimestampConverter$Value, field: ts, target.type: string, format: "yyyy-MM-dd'T'HH:mm:ss",
     unix.precision: microseconds, field.syntax.version: V2, replace.null.with.default: true}
  - {name: t2, type: TimestampConverter$Key, target.type: Timestamp}
  - {name: t3, type: TimestampRouter, topic.format: "${topic}_${timestamp}", timestamp.format: yyyy-MM-dd}
  - {name: v1, type: ValueToKey, fields: [a, parent.b], field.syntax.version: V2, replace.null.with.default: true}
sink: {connector: console, envelope: true, trigger: "processing-time: 10 seconds", checkpoint: /tmp/ck}
"""

ALL_TRANSFORMS_QUALIFIED = r"""
version: 1
name: qualified
source: {connector: files, path: /data/in, format: json}
predicates:
  p1: {type: org.apache.kafka.connect.transforms.predicates.HasHeaderKey, name: h}
  p2: {type: org.apache.kafka.connect.transforms.predicates.RecordIsTombstone}
  p3: {type: org.apache.kafka.connect.transforms.predicates.TopicNameMatches, pattern: x}
transforms:
  - {name: a, type: org.apache.kafka.connect.transforms.Cast$Key, spec: "a:int8,b:boolean"}
  - {name: b, type: org.apache.kafka.connect.transforms.DropHeaders, headers: "x,y"}
  - {name: c, type: org.apache.kafka.connect.transforms.ExtractField$Key, field: id}
  - {name: d, type: org.apache.kafka.connect.transforms.Filter, predicate: p2}
  - {name: e, type: org.apache.kafka.connect.transforms.Flatten$Key}
  - {name: f, type: org.apache.kafka.connect.transforms.HeaderFrom$Key, fields: [id], headers: [id], operation: copy}
  - {name: g, type: org.apache.kafka.connect.transforms.HoistField$Value, field: v}
  - {name: h, type: org.apache.kafka.connect.transforms.InsertField$Key, static.field: s, static.value: x}
  - {name: i, type: org.apache.kafka.connect.transforms.InsertHeader, header: h, value.literal: "true"}
  - {name: j, type: org.apache.kafka.connect.transforms.MaskField$Value, fields: [a]}
  - {name: k, type: org.apache.kafka.connect.transforms.RegexRouter, regex: ".*", replacement: all}
  - {name: l, type: org.apache.kafka.connect.transforms.ReplaceField$Key, renames: "a:b"}
  - {name: m, type: org.apache.kafka.connect.transforms.SetSchemaMetadata$Value, schema.version: 1}
  - {name: n, type: org.apache.kafka.connect.transforms.TimestampConverter$Value, target.type: Date}
  - {name: o, type: org.apache.kafka.connect.transforms.TimestampRouter}
  - {name: p, type: org.apache.kafka.connect.transforms.ValueToKey, fields: "a", predicate: p1, negate: false}
sink: {connector: console}
"""

SOURCES_AND_SINKS = {
    "kafka_source_pattern_timestamp_avro_confluent": r"""
version: 1
name: k1
mode: batch
source:
  connector: kafka
  topic-pattern: "orders-.*"
  properties: {bootstrap.servers: "localhost:9092"}
  startup: {mode: timestamp, timestamp-millis: 1700000000000}
  key: {format: avro-confluent, fields: [k_id], fields-prefix: k_, schema-id: 7}
  value: {format: avro-confluent, fields-include: EXCEPT_KEY, schema-id: 8}
  columns:
    - {name: k_id, type: BIGINT}
    - {name: tbl, type: STRING, metadata: value.source.table, virtual: true}
    - {name: topic, type: STRING, metadata: true, virtual: true}
sink: {connector: files, path: /out, format: parquet, partition-by: [k_id], envelope: true}
""",
    "kafka_source_specific_offsets_string_topics": r"""
version: 1
name: k2
source:
  connector: kafka
  topics: "a,b"
  properties: {bootstrap.servers: "${env:BS}"}
  startup: {mode: specific-offsets, specific-offsets: "partition:0,offset:42;partition:1,offset:-2"}
  value: {format: debezium-json}
sink:
  connector: kafka
  properties: {bootstrap.servers: "b:9092", acks: all, linger.ms: 5, enable.idempotence: true}
  key: {format: avro-confluent, schema-id: 3}
  value: {format: debezium-json}
  metadata: {headers: h, partition: p, timestamp: ts}
  checkpoint: /ck
  trigger: once
  options: {topic: x}
""",
    "kafka_source_startup_env_and_group_offsets_accepted": r"""
version: 1
name: k3
source:
  connector: kafka
  topics: [a]
  properties: {bootstrap.servers: "x:1"}
  startup: {mode: timestamp, timestamp-millis: "${env:START_MS}"}
  key: {format: none}
  value: {format: canal-json}
sink: {connector: console}
""",
    "upsert_kafka_both_ends": r"""
version: 1
name: upserts
source:
  connector: upsert-kafka
  topics: [users]
  properties: {bootstrap.servers: "localhost:9092"}
  primary-key: [user_id]
  key: {format: json, fields-prefix: k_}
  value: {format: json, fields-include: EXCEPT_KEY}
  columns: [{name: user_id, type: BIGINT}, {name: name, type: STRING}]
  options: {minPartitions: 4}
sink:
  connector: upsert-kafka
  topic: users_out
  properties: {bootstrap.servers: "localhost:9092"}
  primary-key: [user_id]
  key: {format: json}
  value: {format: avro, fields-include: ALL}
  checkpoint: /ck/users
  trigger: "processing-time: 1 minute"
""",
    "files_source_all_keys_to_files_sink": r"""
version: 1
name: files_all
mode: batch
source:
  connector: files
  path: "${env:IN}/*.csv"
  format: csv
  columns: [{name: id, type: INT}, {name: f, type: STRING, metadata: file.name, virtual: true}]
  topic: things
  key: {fields: [id]}
  options: {header: true, delimiter: ";"}
sink: {connector: files, path: /out, format: csv, checkpoint: /ck, trigger: available-now, options: {header: true}}
""",
    "kafka_to_delta_upsert_with_table_tests": r"""
version: 1
name: customers_silver
source: {connector: kafka, topics: [c], properties: {bootstrap.servers: "x:1"}, value: {format: debezium-json},
         columns: [{name: id, type: BIGINT}, {name: at, type: BIGINT}]}
sink:
  connector: delta
  path: ${env:LAKE:-lake}/customers
  apply: upsert
  primary-key: [id]
  sequence-by: at
  partition-by: [id]
  schema-evolution: add-columns
  table-properties: {delta.enableChangeDataFeed: true}
  checkpoint: /ck
tests:
  - name: upserts
    table_before: [{id: 1, at: 0}]
    given: [{value: {op: c, after: {id: 1, at: 5}}}]
    expect_table: [{id: 1, at: 5}]
""",
    "files_to_iceberg_history": r"""
version: 1
name: orders_history
mode: batch
source: {connector: files, path: /in, format: json, columns: [{name: id, type: BIGINT}]}
sink: {connector: iceberg, table: local.db.orders, catalog: {name: local, type: hadoop, warehouse: /wh},
       apply: history, primary-key: [id]}
""",
    "delta_change_feed_to_delta_upsert": r"""
version: 1
name: customers_gold
source: {connector: delta, path: /lake/silver, read-change-feed: true, topic: customers, key: {fields: [id]},
         options: {startingVersion: 1, maxFilesPerTrigger: 10},
         columns: [{name: id, type: BIGINT}, {name: v, type: BIGINT, metadata: commit-version, virtual: true}]}
sink: {connector: delta, table: db.customers_gold, apply: upsert, primary-key: [id], checkpoint: /ck}
""",
    "iceberg_changelog_to_console": r"""
version: 1
name: orders_changes
mode: batch
source: {connector: iceberg, table: local.db.orders, catalog: {name: local, type: hadoop, warehouse: /wh},
         read-change-feed: true, options: {start-snapshot-id: 1}, columns: [{name: id, type: BIGINT}]}
sink: {connector: console}
""",
    "text_files_to_console_minimal": r"""
version: 1
name: t
source: {connector: files, path: /in, format: text}
sink: {connector: console}
""",
}

TESTS_SECTION = r"""
version: 1
name: with_tests
mode: streaming
source: {connector: upsert-kafka, topics: [u], properties: {bootstrap.servers: "x:1"}, primary-key: [id],
         key: {format: json}, value: {format: json}}
sink: {connector: files, path: /out, format: json, envelope: true, checkpoint: /ck}
tests:
  - name: changelog
    description: an update and a delete
    given:
      - {key: {id: 1}, value: {id: 1, v: a}, batch: 0}
      - {key: {id: 1}, value: {id: 1, v: b}, batch: 1, timestamp: 1700000000000}
      - {key: {id: 1}, value: null, batch: 2,
         headers: [{key: h, value: "1"}, {key: h, value: null}, {key: b, value: {base64: "AAE="}}]}
    expect:
      - {op: +I, key: {id: 1}, value: {id: 1, v: a}, headers: {}}
      - {op: -U, value: {id: 1, v: a}}
      - {op: +U, value: {id: 1, v: b}, partition: 0, offset: 1, timestamp: "2023-11-14T22:13:20Z"}
      - {op: -D, key: {id: 1}, value: null, topic: u, headers: {h: null, b: {base64: AAE=}}}
  - name: nothing comes out
    given: [{value: {id: 2}}]
    expect: []
  - name: bad record
    given: [{value: "not json", key: null, partition: 3, offset: 9, topic: u}]
    expect_error: the value is not JSON
"""

VALID = {
    "full_example": FULL_EXAMPLE,
    "all_transforms_bare": ALL_TRANSFORMS_BARE,
    "all_transforms_qualified": ALL_TRANSFORMS_QUALIFIED,
    "tests_section": TESTS_SECTION,
    **SOURCES_AND_SINKS,
}


@pytest.mark.parametrize("text", VALID.values(), ids=list(VALID))
def test_valid_documents(text):
    errs = errors_of(load(text))
    assert errs == [], [f"{e.json_path}: {e.message}" for e in errs]


def test_valid_documents_cover_every_source_and_sink():
    """(Every transform, predicate, key and choice is covered by the golden tests, which validate each case.)"""
    docs = [load(t) for t in VALID.values()]
    assert {d["source"]["connector"] for d in docs} == set(DEFS["Source"]["properties"]["connector"]["enum"])
    assert {d["sink"]["connector"] for d in docs} == set(DEFS["Sink"]["properties"]["connector"]["enum"])


# ----------------------------------------------------------------------------------------------------------
# invalid documents: (top-level keys merged into BASE (null deletes), expected [(path, keyword, message part)])
# Each document must fail with exactly these errors, no more.
# ----------------------------------------------------------------------------------------------------------

INVALID = {
    "unknown_top_level_key": (
        "sources: {}",
        [((), "additionalProperties", "'sources' was unexpected")],
    ),
    "missing_sink": ("sink: null", [((), "required", "'sink' is a required property")]),
    "missing_version": ("version: null", [((), "required", "'version'")]),
    "wrong_version": ("version: 2", [(("version",), "const", "1 was expected")]),
    "bad_name": ("name: Orders", [(("name",), "pattern", "does not match")]),
    "bad_mode": ("mode: stream", [(("mode",), "enum", "is not one of ['streaming', 'batch']")]),
    "bad_source_connector": (
        "source: {connector: kafak, topics: [a]}",
        [
            (
                ("source", "connector"),
                "enum",
                "'kafak' is not one of ['kafka', 'upsert-kafka', 'files', 'delta', 'iceberg']",
            )
        ],
    ),
    "bad_sink_connector": ("sink: {connector: stdout}", [(("sink", "connector"), "enum", "'stdout'")]),
    "source_missing_connector": ("source: {path: /x}", [(("source",), "required", "'connector'")]),
    "unknown_key_in_files_source": (
        "source: {connector: files, path: /x, format: json, startup: {mode: latest-offset}}",
        [(("source",), "additionalProperties", "'startup' was unexpected")],
    ),
    "files_source_missing_path": (
        "source: {connector: files, format: json}",
        [(("source",), "required", "'path' is a required property")],
    ),
    "files_source_bad_format": (
        "source: {connector: files, path: /x, format: orc}",
        [(("source", "format"), "enum", "'orc'")],
    ),
    "kafka_source_bad_startup_mode": (
        "source: {connector: kafka, topics: [a], properties: {bootstrap.servers: 'x:1'}, value: {format: json},"
        " startup: {mode: earliest}}",
        [(("source", "startup", "mode"), "enum", "'earliest'")],
    ),
    "kafka_source_timestamp_mode_needs_millis": (
        "source: {connector: kafka, topics: [a], properties: {bootstrap.servers: 'x:1'}, value: {format: json},"
        " startup: {mode: timestamp}}",
        [(("source", "startup"), "required", "'timestamp-millis' is a required property")],
    ),
    "kafka_source_needs_bootstrap_servers": (
        "source: {connector: kafka, topics: [a], properties: {group.id: g}, value: {format: json}}",
        [(("source", "properties"), "required", "'bootstrap.servers'")],
    ),
    "kafka_source_needs_value": (
        "source: {connector: kafka, topics: [a], properties: {bootstrap.servers: 'x:1'}}",
        [(("source",), "required", "'value' is a required property")],
    ),
    "kafka_source_bad_key_format": (
        "source: {connector: kafka, topics: [a], properties: {bootstrap.servers: 'x:1'}, value: {format: json},"
        " key: {format: protobuf}}",
        [(("source", "key", "format"), "enum", "'protobuf'")],
    ),
    "kafka_source_bad_fields_include": (
        "source: {connector: kafka, topics: [a], properties: {bootstrap.servers: 'x:1'},"
        " value: {format: json, fields-include: except_key}}",
        [(("source", "value", "fields-include"), "enum", "'except_key'")],
    ),
    "unknown_key_in_column": (
        "source: {connector: files, path: /x, format: json, columns: [{name: a, type: INT, nullable: true}]}",
        [(("source", "columns", 0), "additionalProperties", "'nullable' was unexpected")],
    ),
    "column_without_name": (
        "source: {connector: files, path: /x, format: json, columns: [{type: INT}]}",
        [(("source", "columns", 0), "required", "'name'")],
    ),
    "column_metadata_false": (
        "source: {connector: files, path: /x, format: json, columns: [{name: a, metadata: false}]}",
        [(("source", "columns", 0, "metadata"), "const", "True was expected")],
    ),
    "column_headers_false": (
        "source: {connector: files, path: /x, format: json, columns: [{name: a, headers: false}]}",
        [(("source", "columns", 0, "headers"), "const", "True was expected")],
    ),
    "upsert_source_needs_primary_key": (
        "source: {connector: upsert-kafka, topics: [a], properties: {bootstrap.servers: 'x:1'},"
        " key: {format: json}, value: {format: json}}",
        [(("source",), "required", "'primary-key' is a required property")],
    ),
    "upsert_source_no_key_fields": (
        "source: {connector: upsert-kafka, topics: [a], properties: {bootstrap.servers: 'x:1'}, primary-key: [id],"
        " key: {format: json, fields: [id]}, value: {format: json}}",
        [(("source", "key"), "additionalProperties", "'fields' was unexpected")],
    ),
    "upsert_source_no_startup": (
        "source: {connector: upsert-kafka, topics: [a], properties: {bootstrap.servers: 'x:1'}, primary-key: [id],"
        " key: {format: json}, value: {format: json}, startup: {mode: latest-offset}}",
        [(("source",), "additionalProperties", "'startup' was unexpected")],
    ),
    "upsert_source_no_changelog_format": (
        "source: {connector: upsert-kafka, topics: [a], properties: {bootstrap.servers: 'x:1'}, primary-key: [id],"
        " key: {format: json}, value: {format: debezium-json}}",
        [(("source", "value", "format"), "enum", "'debezium-json'")],
    ),
    "bad_trigger": (
        "sink: {connector: console, trigger: every 10 seconds}",
        [(("sink", "trigger"), "pattern", "'every 10 seconds' does not match")],
    ),
    "processing_time_without_interval": (
        "sink: {connector: console, trigger: 'processing-time:'}",
        [(("sink", "trigger"), "pattern", None)],
    ),
    "kafka_sink_needs_value_format": (
        "sink: {connector: kafka, value: {fields-include: ALL}}",
        [(("sink", "value"), "required", "'format'")],
    ),
    "files_sink_unknown_key": (
        "sink: {connector: files, path: /o, format: json, partition_by: [a]}",
        [(("sink",), "additionalProperties", "'partition_by' was unexpected")],
    ),
    "upsert_sink_needs_primary_key": (
        "sink: {connector: upsert-kafka, value: {format: json}}",
        [(("sink",), "required", "'primary-key'")],
    ),
    "sink_metadata_unknown_key": (
        "sink: {connector: kafka, value: {format: json}, metadata: {offset: o}}",
        [(("sink", "metadata"), "additionalProperties", "'offset' was unexpected")],
    ),
    "unknown_key_in_transform_config": (
        "transforms: [{name: m, type: MaskField$Value, fields: [card], replacment: x}]",
        [(("transforms", 0), "additionalProperties", "'replacment' was unexpected")],
    ),
    "unknown_transform_type": (
        "transforms: [{name: i, type: InsertFeld$Value, static.field: a, static.value: b}]",
        [(("transforms", 0, "type"), "enum", "'InsertFeld$Value' is not one of")],
    ),
    "variant_on_transform_without_variants": (
        "transforms: [{name: f, type: Filter$Value}]",
        [(("transforms", 0, "type"), "enum", "'Filter$Value' is not one of")],
    ),
    "type_not_a_string": (
        "transforms: [{name: f, type: 5}]",
        [(("transforms", 0, "type"), "enum", "5 is not one of")],
    ),
    "step_not_an_object": (
        "transforms: [Filter]",
        [(("transforms", 0), "type", "'Filter' is not of type 'object'")],
    ),
    "step_without_name": (
        "transforms: [{type: Filter}]",
        [(("transforms", 0), "required", "'name' is a required property")],
    ),
    "missing_required_transform_config": (
        "transforms: [{name: c, type: Cast$Value}]",
        [(("transforms", 0), "required", "'spec' is a required property")],
    ),
    "empty_list_config": (
        "transforms: [{name: d, type: DropHeaders, headers: []}]",
        [(("transforms", 0, "headers"), "minItems", "should be non-empty")],
    ),
    "list_config_of_wrong_type": (
        "transforms: [{name: v, type: ValueToKey, fields: 5}]",
        [(("transforms", 0, "fields"), "type", "5 is not of type 'array', 'string'")],
    ),
    "list_item_not_a_string": (
        "transforms: [{name: v, type: ValueToKey, fields: [a, {b: c}]}]",
        [(("transforms", 0, "fields", 1), "type", "is not of type 'string'")],
    ),
    "bad_enum_in_transform_config": (
        "transforms: [{name: t, type: TimestampConverter$Value, target.type: timestamp}]",
        [(("transforms", 0, "target.type"), "enum", "'timestamp' is not one of")],
    ),
    "enums_are_case_sensitive": (
        "transforms: [{name: h, type: HeaderFrom$Value, fields: [a], headers: [a], operation: MOVE}]",
        [(("transforms", 0, "operation"), "enum", "'MOVE'")],
    ),
    "bad_field_syntax_version": (
        "transforms: [{name: e, type: ExtractField$Value, field: a, field.syntax.version: v3}]",
        [(("transforms", 0, "field.syntax.version"), "pattern", "'v3' does not match")],
    ),
    "field_syntax_version_not_on_flatten": (
        "transforms: [{name: f, type: Flatten$Value, field.syntax.version: V2}]",
        [(("transforms", 0), "additionalProperties", "'field.syntax.version' was unexpected")],
    ),
    "bad_on_missing_parent": (
        "transforms: [{name: i, type: InsertField$Value, static.field: a, static.value: b,"
        " field.on.missing.parent: fail}]",
        [(("transforms", 0, "field.on.missing.parent"), "enum", "'fail'")],
    ),
    "static_field_without_value": (
        "transforms: [{name: i, type: InsertField$Value, static.field: a}]",
        [(("transforms", 0), "dependentRequired", "'static.value' is a dependency of 'static.field'")],
    ),
    "boolean_for_string_config": (
        "transforms: [{name: i, type: InsertField$Value, static.field: a, static.value: yes}]",
        [(("transforms", 0, "static.value"), "type", "True is not of type 'string', 'number'")],
    ),
    "bad_boolean_string": (
        "transforms: [{name: c, type: Cast$Value, spec: a:int8, replace.null.with.default: maybe}]",
        [(("transforms", 0, "replace.null.with.default"), "pattern", "'maybe' does not match")],
    ),
    "bad_int_string": (
        "transforms: [{name: s, type: SetSchemaMetadata$Value, schema.version: two}]",
        [(("transforms", 0, "schema.version"), "pattern", "'two' does not match")],
    ),
    "bad_bytes_order": (
        "transforms: [{name: c, type: Cast$Value, spec: a:int32, bytes.order: NATIVE}]",
        [(("transforms", 0, "bytes.order"), "pattern", "'NATIVE'")],
    ),
    "empty_mask_replacement": (
        "transforms: [{name: m, type: MaskField$Value, fields: a, replacement: ''}]",
        [(("transforms", 0, "replacement"), "minLength", "should be non-empty")],
    ),
    "negate_without_predicate": (
        "transforms: [{name: f, type: Filter, negate: true}]",
        [(("transforms", 0), "dependentRequired", "'predicate' is a dependency of 'negate'")],
    ),
    "unknown_predicate_type": (
        "predicates: {p: {type: HasHeader, name: h}}",
        [(("predicates", "p", "type"), "enum", "'HasHeader' is not one of")],
    ),
    "unknown_key_in_predicate": (
        "predicates: {p: {type: TopicNameMatches, pattern: x, regex: y}}",
        [(("predicates", "p"), "additionalProperties", "'regex' was unexpected")],
    ),
    "predicate_missing_config": (
        "predicates: {p: {type: HasHeaderKey}}",
        [(("predicates", "p"), "required", "'name' is a required property")],
    ),
    "tombstone_predicate_takes_no_config": (
        "predicates: {p: {type: RecordIsTombstone, name: x}}",
        [(("predicates", "p"), "additionalProperties", "'name' was unexpected")],
    ),
    "errors_bad_tolerance": (
        "errors: {tolerance: some}",
        [(("errors", "tolerance"), "enum", "'some'")],
    ),
    "errors_with_prefix": (
        "errors: {errors.tolerance: all}",
        [(("errors",), "additionalProperties", "'errors.tolerance' was unexpected")],
    ),
    "spark_unknown_key": (
        "spark: {config: {a: b}}",
        [(("spark",), "additionalProperties", "'config' was unexpected")],
    ),
    "spark_conf_nested_value": (
        "spark: {conf: {a: {b: c}}}",
        [(("spark", "conf", "a"), "type", "is not of type 'string', 'number', 'boolean'")],
    ),
    "test_without_expectation": (
        "tests: [{name: t, given: [{value: 1}]}]",
        [(("tests", 0), "required", "'expect' is a required property")],
    ),
    "test_with_both_expectations": (
        "tests: [{name: t, given: [{value: 1}], expect: [], expect_error: boom}]",
        [(("tests", 0, "expect"), "not", None)],
    ),
    "test_without_given": (
        "tests: [{name: t, expect: []}]",
        [(("tests", 0), "required", "'given' is a required property")],
    ),
    "test_unknown_record_field": (
        "tests: [{name: t, given: [{value: 1, headerz: {}}], expect: []}]",
        [(("tests", 0, "given", 0), "additionalProperties", "'headerz' was unexpected")],
    ),
    "batch_only_in_given": (
        "tests: [{name: t, given: [{value: 1}], expect: [{value: 1, batch: 0}]}]",
        [(("tests", 0, "expect", 0), "additionalProperties", "'batch' was unexpected")],
    ),
    "op_only_in_expect": (
        "tests: [{name: t, given: [{value: 1, op: +I}], expect: []}]",
        [(("tests", 0, "given", 0), "additionalProperties", "'op' was unexpected")],
    ),
    "bad_op": (
        "tests: [{name: t, given: [{value: 1}], expect: [{op: U}]}]",
        [(("tests", 0, "expect", 0, "op"), "enum", "'U'")],
    ),
    "numeric_header_value": (
        "tests: [{name: t, given: [{value: 1, headers: {retries: 3}}], expect: []}]",
        [(("tests", 0, "given", 0, "headers", "retries"), "type", "3 is not of type 'string', 'null', 'object'")],
    ),
    "bad_base64_header": (
        "tests: [{name: t, given: [{value: 1, headers: {h: {base64: '**'}}}], expect: []}]",
        [(("tests", 0, "given", 0, "headers", "h", "base64"), "pattern", None)],
    ),
    "header_list_entry_without_value": (
        "tests: [{name: t, given: [{value: 1, headers: [{key: h}]}], expect: []}]",
        [(("tests", 0, "given", 0, "headers", 0), "required", "'value'")],
    ),
    "negative_batch": (
        "tests: [{name: t, given: [{value: 1, batch: -1}], expect: []}]",
        [(("tests", 0, "given", 0, "batch"), "minimum", None)],
    ),
}


@pytest.mark.parametrize("patch,expected", INVALID.values(), ids=list(INVALID))
def test_invalid_documents(patch, expected):
    doc = load(BASE)
    for key, value in load(patch).items():
        if value is None:
            doc.pop(key, None)
        else:
            doc[key] = value
    errs = errors_of(doc)
    got = [(tuple(e.absolute_path), e.validator) for e in errs]
    assert got == [(path, keyword) for path, keyword, _ in expected], [f"{e.json_path}: {e.message}" for e in errs]
    for err, (_, _, part) in zip(errs, expected):
        if part is not None:
            assert part in err.message, err.message
