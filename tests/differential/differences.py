"""The ONE table of deliberate differences between pipec and Kafka Connect 4.x that the differential tests accept.

Each entry: the transform, what differs, the reason quoted from SPEC.md or the reference
(`reference/kafka-connect-smts.md`) (two entries, marked "Not in SPEC", quote the framework or a transform module
instead: they are decisions the spec does not state), and how the difference shows:
- kind "compile": pipec refuses the configuration at compile time where Kafka runs it; a case naming the entry
  must fail to compile (and Kafka must accept its config);
- kind "record": one record's outcomes differ in the way `matches(kafka, pipec)` recognises;
- kind "model": not a difference in outcomes but in representation, handled by the comparison itself
  (listed so the table is complete).
A case lists the ids it exhibits, and each listed id must show up in that case at least once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from diff_connect import Row
from diff_run import Outcome


@dataclass(frozen=True)
class Difference:
    id: str
    transform: str
    kind: str  # compile | record | model
    what: str
    reason: str  # quoted
    source: str
    matches: Callable[[Outcome, Outcome], bool] | None = None


def _kafka_error_pipec_out(*needles: str) -> Callable[[Outcome, Outcome], bool]:
    def match(kafka: Outcome, pipec: Outcome) -> bool:
        return kafka.kind == "error" and pipec.kind == "out" and all(n in kafka.message for n in needles)

    return match


def _kafka_out_pipec_error(kafka: Outcome, pipec: Outcome) -> bool:
    return kafka.kind == "out" and pipec.kind == "error"


def _reshaped(kafka: object, pipec: object) -> object:
    """Kafka's struct carried in pipec's type: fields matched by name, missing ones null, extra ones dropped."""
    if isinstance(kafka, Row) and isinstance(pipec, Row):
        return Row((name, _reshaped(kafka.get(name), v)) for name, v in pipec.items())
    return kafka


def _carried_in_output_type(kafka: Outcome, pipec: Outcome) -> bool:
    if not (kafka.kind == pipec.kind == "out"):
        return False
    k, p = kafka.record, pipec.record
    return all(k[f] == p[f] for f in ("topic", "partition", "timestamp", "headers")) and all(
        _reshaped(k[side], p[side]) == p[side] for side in ("key", "value")
    )


def _json_object(text: object) -> dict | None:
    try:
        value = json.loads(text, strict=False) if isinstance(text, str) else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _same_but_map_order(kafka: Outcome, pipec: Outcome) -> bool:
    """Equal records whose header texts differ only in the order of a JSON object's entries."""
    if not (kafka.kind == pipec.kind == "out"):
        return False
    k, p = kafka.record, pipec.record
    if any(k[f] != p[f] for f in ("topic", "partition", "timestamp", "key", "value")):
        return False
    if [h[0] for h in k["headers"]] != [h[0] for h in p["headers"]]:
        return False
    return all(
        a == b or (_json_object(a) is not None and _json_object(a) == _json_object(b))
        for (_, a), (_, b) in zip(k["headers"], p["headers"])
    )


DIFFERENCES: tuple[Difference, ...] = (
    Difference(
        "unknown-field",
        "ReplaceField, MaskField, Cast, TimestampConverter, HeaderFrom, ValueToKey, ExtractField",
        "compile",
        "A field the tracked schema lacks is a compile error; Kafka ignores it (ReplaceField, MaskField, Cast, "
        "TimestampConverter) or fails each record (HeaderFrom: NullPointerException, ValueToKey: DataException, "
        "ExtractField: IllegalArgumentException).",
        "Semantics are Kafka Connect's *with-schema* semantics [...] except where pipec is stricter: naming a field "
        "absent from the tracked schema is a compile error.",
        "SPEC section 6",
    ),
    Difference(
        "struct-required",
        "InsertField, ReplaceField, MaskField, Flatten, HeaderFrom, ValueToKey, ExtractField, Cast",
        "compile",
        "A field transform on a key or value the tracked schema says is a primitive is a compile error; Kafka fails "
        "each non-null record (DataException: Only Struct objects supported for [...]).",
        "a transform that names a missing field, casts to an impossible type, or extracts from a primitive is a "
        "compile error pointing at that step.",
        "SPEC section 5",
    ),
    Difference(
        "replace-field-rename-collision",
        "ReplaceField",
        "compile",
        "A rename onto the name of another output field is a compile error; Kafka fails every record with "
        "SchemaBuilderException (field name duplication).",
        "a rename onto the name of another field of its output is a compile error (Kafka silently mixes the two "
        "values).",
        "SPEC section 6",
    ),
    Difference(
        "replace-field-removed-aliases",
        "ReplaceField",
        "compile",
        "`whitelist`/`blacklist` are compile errors; Kafka 4.x ignores them silently (nothing is dropped).",
        "ReplaceField's removed `whitelist`/`blacklist` are errors that suggest `include`/`exclude`",
        "SPEC section 6",
    ),
    Difference(
        "cast-temporal-to-string",
        "Cast",
        "record",
        "A whole TIMESTAMP or DATE key/value cast to string gives its text; Kafka keeps the Timestamp/Date schema "
        "name on the string, so its JSON converter fails every record (DataException: Invalid type for Timestamp).",
        "Not in SPEC (a Kafka quirk: the reference's section 3.1 notes that the whole-value Cast copies the schema "
        "name). Where Kafka has an accidental quirk, choose what a user expects, document the choice.",
        "compiler/transforms/casting.py CAST.differences; the transform library issue",
        _kafka_error_pipec_out("Invalid type for"),
    ),
    Difference(
        "insert-field-overwrite",
        "InsertField",
        "record",
        "Inserting a field that already exists overwrites it in place; Kafka's with-schema InsertField fails the "
        "record (SchemaBuilderException: Cannot create field because of field name duplication).",
        "`InsertField` supports `field.on.missing.parent` [...] and `field.on.existing.field` under V1 and V2; an "
        "overwritten field keeps its place and new fields are appended.",
        "SPEC section 6",
        _kafka_error_pipec_out("field name duplication"),
    ),
    Difference(
        "kip821-v2-paths",
        "every transform but ExtractField",
        "model",
        "V2 dotted paths reach nested fields in every transform; Kafka 4.x implements them only in ExtractField "
        "(other transforms ignore field.syntax.version and read the dotted text as one top-level name), so V2 "
        "cases exist only for ExtractField.",
        "Nested paths (KIP-821): with `field.syntax.version: V2` every field path may be dotted",
        "SPEC section 6; reference section 4.4",
    ),
    Difference(
        "time-as-timestamp",
        "TimestampConverter",
        "model",
        "target.type Time gives a timestamp on 1970-01-01 UTC where Kafka gives a Connect Time; the comparison reads "
        "a Connect Time as that timestamp.",
        "`target.type: Time` gives a timestamp on 1970-01-01 UTC (Connect's own representation, as Spark has no "
        "TIME type)",
        "SPEC section 6",
    ),
    Difference(
        "timestamp-converter-strict-parsing",
        "TimestampConverter",
        "record",
        "A string the `format` pattern does not fully match is a record error; Kafka's lenient SimpleDateFormat "
        "accepts it (rolling over out-of-range fields, ignoring trailing text).",
        "string parsing is strict: input the pattern does not fully match is a record error (Kafka's lenient "
        "parsing is a documented difference).",
        "SPEC section 6",
        _kafka_out_pipec_error,
    ),
    Difference(
        "cast-bytes-to-number",
        "Cast",
        "record",
        "Cast decodes BYTES into int32, int64 and float64 (bytes.order); Kafka fails the record "
        "(DataException: Unexpected type in Cast transformation: class [B).",
        "`Cast` additionally decodes `BYTES` into `int32`, `int64`, `float64` with `bytes.order: BIG_ENDIAN | "
        "LITTLE_ENDIAN`",
        "SPEC section 6",
        _kafka_error_pipec_out("class [B"),
    ),
    Difference(
        "cast-bytes-utf8",
        "Cast",
        "model",
        "`bytes.string.encoding: utf8` (Cast BYTES to string as UTF-8 text) is a pipec extension: Kafka ignores the "
        "key and writes base64, so the two cannot agree and no case runs it against Kafka.",
        "`Cast` of `BYTES` to `string` is base64 as in Kafka, or the UTF-8 text with `bytes.string.encoding: utf8`",
        "SPEC section 6",
    ),
    Difference(
        "predicate-one-type",
        "every transform with a predicate",
        "record",
        "A step with a predicate changes the type of the key or value of every record: records it skips are carried "
        "in the step's output type (a field the step adds is null, a field it removes or renames away is dropped); "
        "Kafka leaves skipped records and their schema as they were. Not in SPEC.",
        "A step with a predicate leaves the records it skips as they were, but a column has one type: those records "
        "are carried in the step's output type this way.",
        "compiler/transforms/structs.py, conform()",
        _carried_in_output_type,
    ),
    Difference(
        "schemaless-peer",
        "Flatten, InsertField (the Kafka Connect peer benchmark)",
        "model",
        "bench/ConnectPeer.java runs Kafka's classes schemaless (JsonConverter with schemas.enable=false): its value "
        "holds only the fields its JSON had, its Flatten keeps a null nested map as one null field "
        "(`customer_address: null`), and InsertField's timestamp.field is epoch milliseconds; pipec's value has "
        "a schema, so a missing field and each field of a null struct are null and the timestamp is written as "
        "ISO-8601 text. tests/differential/test_connect_peer.py reads Kafka's value in pipec's type "
        "(bench/peer_compare.py).",
        "Semantics are Kafka Connect's *with-schema* semantics (every record here has a schema); `json` writes "
        "null fields (as Kafka Connect's JsonConverter and Flink do) [...] and timestamps as ISO-8601 UTC strings.",
        'SPEC sections 6 and 7; reference section 3.5 (schemaless Flatten: "Null values are kept as null")',
    ),
    Difference(
        "map-entry-order",
        "HeaderFrom",
        "record",
        "A MAP field copied or moved into a header is written with its entries in the order Spark holds them (as "
        "the record carried them); Kafka writes them in the order of the HashMap JsonConverter read them into. "
        "Not in SPEC.",
        "Map entries are written in Spark's map order (HeaderFrom's documented differences); Kafka: \"schemaless "
        'outputs are new HashMaps (unordered)"',
        "compiler/transforms/headers.py HeaderFrom differences; reference section 1.1",
        _same_but_map_order,
    ),
)

BY_ID = {d.id: d for d in DIFFERENCES}


def documented(ids: tuple[str, ...], kafka: Outcome, pipec: Outcome) -> Difference | None:
    """The first of a case's listed record-level differences that explains a mismatch, if any."""
    for d in (BY_ID[i] for i in ids):
        if d.kind == "record" and d.matches(kafka, pipec):
            return d
    return None
