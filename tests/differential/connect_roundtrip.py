"""The import round trip: a Kafka Connect config from public documentation is imported by `pipec import connect`,
compiled, and run on the same records as Kafka's own transform and predicate classes (SmtHarness.java) configured
with the config's `transforms.*` and `predicates.*` as written. Both sides get the bytes the connector's converter
puts on the topic (the harness as JsonConverter envelopes, its input format)."""

from __future__ import annotations

import base64
import datetime as dt
import json
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path

from diff_connect import UTC, from_envelope, from_spark
from pipec.project.driver import build_all, generate_all
from pipec.resolve.builder import Compiled
from pipec.testing.frames import rows_frame
from pipec.testing.kafka_rows import KAFKA_ROW_SCHEMA
from pipec.testing.runner import load_job
from pipec.tools.connect_columns import Sample, connect_schema_type
from pipec.tools.connect_config import ConnectorConfig, read_config
from pipec.tools.connect_formats import JSON_CONVERTER
from pipec.tools.connect_import import RAW_SUFFIX, Importer

HERE = Path(__file__).resolve().parent
CONFIGS = HERE / "connect_configs"
CONFLUENT = "https://docs.confluent.io/kafka-connectors/transforms/current/"


@dataclass(frozen=True)
class DocConfig:
    """A config whose transforms come from `source` (public documentation); the connector around them is ours."""

    file: str
    source: str
    value_schema: dict  # the Connect schema of the values the connector reads (sink) or writes (source)
    topics: tuple[str, ...]

    @property
    def id(self) -> str:
        return Path(self.file).stem


def _struct(*fields: tuple[str, str]) -> dict:
    return {
        "type": "struct",
        "optional": True,
        "fields": [{"field": n, "type": t, "optional": True} for n, t in fields],
    }


DOC_CONFIGS = (
    DocConfig(
        "file_source.properties",
        "https://kafka.apache.org/documentation/#connect_transforms",
        {"type": "string", "optional": True},
        ("connect-test",),
    ),
    DocConfig(
        "cast_value.json", CONFLUENT + "cast.html (Cast Value)", {"type": "double", "optional": True}, ("prices",)
    ),
    DocConfig(
        "cast_fields.json",
        CONFLUENT + "cast.html (Cast Comma-Separated Values)",
        _struct(("ID", "int32"), ("score", "int32")),
        ("scores",),
    ),
    DocConfig(
        "mask_value.json",
        CONFLUENT + "maskfield.html (Mask value)",
        _struct(("integer_field", "int32"), ("string_field", "string")),
        ("events",),
    ),
    DocConfig(
        "mask_replace.properties",
        "https://cwiki.apache.org/confluence/display/KAFKA/KIP-437%3A+Custom+replacement+for+MaskField+SMT",
        _struct(
            ("name", "string"), ("SSN", "string"), ("IPAddress", "string"), ("office", "string"), ("mobile", "string")
        ),
        ("customers",),
    ),
    DocConfig(
        "replace_drop.json",
        CONFLUENT + "replacefield-ak.html (Drop a Field)",
        _struct(("c1", "int32"), ("c2", "string")),
        ("measurements",),
    ),
    DocConfig(
        "replace_rename.json",
        CONFLUENT + "replacefield-ak.html (Rename a Field)",
        _struct(("foo", "int32"), ("bar", "string")),
        ("legacy",),
    ),
    DocConfig(
        "insert_static.json",
        CONFLUENT + "insertfield.html",
        _struct(("author", "string"), ("character", "string")),
        ("books",),
    ),
    DocConfig(
        "flatten.json",
        CONFLUENT + "flatten.html (Flatten with the period delimiter)",
        {
            "type": "struct",
            "optional": True,
            "fields": [
                {
                    "field": "content",
                    "type": "struct",
                    "optional": True,
                    "fields": [
                        {"field": "id", "type": "int64", "optional": True},
                        {
                            "field": "name",
                            "type": "struct",
                            "optional": True,
                            "fields": [
                                {"field": k, "type": "string", "optional": True} for k in ("first", "middle", "last")
                            ],
                        },
                    ],
                }
            ],
        },
        ("content",),
    ),
    DocConfig(
        "regex_drop_prefix.json",
        CONFLUENT + "regexrouter.html (Remove a topic prefix)",
        _struct(("id", "int64")),
        ("soe-Order", "soe-Invoice"),
    ),
    DocConfig(
        "regex_add_prefix.json",
        CONFLUENT + "regexrouter.html (Add a topic prefix)",
        _struct(("id", "int64"), ("ok", "boolean")),
        ("Order",),
    ),
    DocConfig("hoist_field.json", CONFLUENT + "hoistfield.html", {"type": "string", "optional": True}, ("lines",)),
)


# ------------------------------------------------------------------ records

TEXT = ["", "a", "Foo", "Bar", "ünïcødé ✓", "123", " spaced ", "x" * 20, "null", "-0"]


def draw(schema: dict, rng: random.Random, root: bool = True):
    """A random payload of a Connect schema (None about one time in seven for optional fields; a null record is a
    tombstone, drawn apart)."""
    if not root and schema.get("optional") and rng.random() < 0.15:
        return None
    kind = schema["type"]
    if kind == "struct":
        return {f["field"]: draw(f, rng, False) for f in schema["fields"]}
    return {
        "int32": lambda: rng.choice([0, -1, 1, 2**31 - 1, -(2**31), rng.randint(-(10**6), 10**6)]),
        "int64": lambda: rng.choice([0, 2**63 - 1, -(2**63), rng.randint(-(10**12), 10**12)]),
        "double": lambda: rng.choice([0.0, 1.5, -2.25, round(rng.uniform(-1e6, 1e6), 3)]),
        "boolean": lambda: rng.random() < 0.5,
        "string": lambda: rng.choice(TEXT + [str(rng.randint(0, 99999))]),
    }[kind]()


def records(doc: DocConfig, count: int = 40) -> list[dict]:
    """Records as they arrive (harness form): topic, partition, offset, timestamp (ms), value payload or None."""
    rng = random.Random(doc.id)
    out = []
    for i in range(count):
        tombstone = i % 9 == 8
        out.append(
            {
                "topic": doc.topics[i % len(doc.topics)],
                "partition": i % 3,
                "offset": 100 + i,
                "timestamp": rng.randint(946684800000, 1893456000000),
                "value": None if tombstone else draw(doc.value_schema, rng),
                "tombstone": tombstone,
            }
        )
    return out


def value_bytes(config: ConnectorConfig, doc: DocConfig, rec: dict) -> bytes | None:
    """The value as the connector's converter writes it: a JsonConverter envelope, or the payload alone."""
    if rec["tombstone"]:
        return None
    envelope = (
        config.get("value.converter", JSON_CONVERTER) == JSON_CONVERTER
        and config.get("value.converter.schemas.enable", "true") == "true"
    )
    data = {"schema": doc.value_schema, "payload": rec["value"]} if envelope else rec["value"]
    return json.dumps(data, ensure_ascii=False).encode("utf-8")


# ------------------------------------------------------------------ the two sides


def harness_document(config: ConnectorConfig, doc: DocConfig, recs: list[dict]) -> dict:
    """The connector's transforms and predicates exactly as configured, and the records as envelopes."""

    def block(prefix: str, alias: str) -> dict:
        return {e.key[len(prefix) + len(alias) + 1 :]: e.value for e in config.under(f"{prefix}{alias}.")}

    def aliases(key: str) -> list[str]:
        return [a.strip() for a in (config.get(key) or "").split(",") if a.strip()]

    stages = []
    for alias in aliases("transforms"):
        cfg = block("transforms.", alias)
        stage = {"class": cfg.pop("type"), "config": {k: v for k, v in cfg.items() if k not in ("predicate", "negate")}}
        if "predicate" in cfg:
            stage["predicate"], stage["negate"] = cfg["predicate"], cfg.get("negate", "false") == "true"
        stages.append(stage)
    predicates = {}
    for alias in aliases("predicates"):
        cfg = block("predicates.", alias)
        predicates[alias] = {"class": cfg.pop("type"), "config": cfg}
    return {
        "id": doc.id,
        "predicates": predicates,
        "transforms": stages,
        "records": [
            {
                "topic": r["topic"],
                "partition": r["partition"],
                "offset": r["offset"],
                "timestamp": r["timestamp"],
                "key": None,
                "value": None if r["tombstone"] else {"schema": doc.value_schema, "payload": r["value"]},
                "headers": [],
            }
            for r in recs
        ],
    }


def sample_of(doc: DocConfig) -> Sample:
    schema = doc.value_schema
    if schema["type"] == "struct":  # (the round trip's configs only)
        return Sample([(f["field"], connect_schema_type(f)) for f in schema["fields"]])
    return Sample([("value", connect_schema_type(schema))], True)


def import_config(doc: DocConfig) -> tuple[ConnectorConfig, str, list]:
    """(config, imported YAML, diagnostics)."""
    config = read_config(CONFIGS / doc.file)
    imported = Importer(config, sample_of(doc)).run()
    return config, imported.text, imported.diags.items


def compile_yaml(text: str, folder: Path) -> tuple[Compiled, object]:
    path = folder / "imported.yaml"
    path.write_text(text, encoding="utf-8")
    result = build_all([str(path)])
    assert not result.diags.errors, "\n".join(d.render() for d in result.diags.errors)
    files = generate_all(result)
    (compiled,) = result.compiled
    job_file = folder / f"{compiled.pipeline.name}.py"
    job_file.write_text(files[job_file.name], encoding="utf-8")
    return compiled, load_job(job_file)


def pipec_outcomes(spark, config: ConnectorConfig, doc: DocConfig, text: str, recs: list[dict]) -> dict[int, str]:
    """offset -> pipec's outcome: the record the chain hands the sink (canonical text), "dropped", or "error: ...".
    The chain's own output (`transform` before encoding) keeps each record's offset and tells a null value from a
    struct of nulls, which a files sink's rows cannot. Records that fail are run alone (a record error fails a job)."""
    with tempfile.TemporaryDirectory(prefix="pipec-roundtrip-") as tmp:
        compiled, job = compile_yaml(text, Path(tmp))
        raw_topic = (
            ""
            if compiled.pipeline.source.config.topics and compiled.pipeline.source.config.topics[0].raw in doc.topics
            else RAW_SUFFIX
        )
        if compiled.pipeline.source.config.topic_pattern is not None:
            raw_topic = ""
        final = compiled.final

        def run(batch: list[dict]) -> dict[int, str]:
            rows = [
                (
                    None,
                    value_bytes(config, doc, r),
                    r["topic"] + raw_topic,
                    r["partition"],
                    r["offset"],
                    dt.datetime.fromtimestamp(r["timestamp"] / 1000, UTC),
                    0,
                    None,
                )
                for r in batch
            ]
            records = job.chain(job.decode(rows_frame(spark, rows, KAFKA_ROW_SCHEMA)))
            out = {r["offset"]: "dropped" for r in batch}
            for row in records.select("offset", "topic", "key", "value").collect():
                out[row["offset"]] = canonical(
                    {
                        "topic": row["topic"],
                        "key": _plain(row["key"]),
                        "value": from_spark(final.value, _plain(row["value"])),
                    }
                )
            return out

        outcomes = run([r for r in recs if not r["tombstone"]])
        for r in recs:
            if r["tombstone"]:
                try:
                    outcomes.update(run([r]))
                except Exception:  # a record error: the job fails naming the record
                    outcomes[r["offset"]] = "error"  # (the messages are each system's own)
        return outcomes


def _plain(value):
    if hasattr(value, "asDict"):
        return {k: _plain(v) for k, v in value.asDict(recursive=False).items()}
    return value


def kafka_outcomes(answer: dict, recs: list[dict]) -> dict[int, str]:
    """offset -> Kafka's outcome, in the same form."""
    out = {}
    for rec, res in zip(recs, answer["results"], strict=True):
        if res.get("dropped"):
            out[rec["offset"]] = "dropped"
        elif "error" in res or "input_error" in res:
            out[rec["offset"]] = "error"
        else:
            out[rec["offset"]] = canonical(
                {"topic": res["topic"], "key": from_envelope(res["key"]), "value": from_envelope(res["value"])}
            )
    return out


def canonical(rec: dict) -> str:
    """A record as comparable text (numbers as floats, bytes as base64)."""

    def plain(v):
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
            return [plain(x) for x in v]
        if hasattr(v, "items") and callable(v.items):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, bool) or v is None or isinstance(v, str):
            return v
        if isinstance(v, (int, float)):
            return float(v)
        if isinstance(v, (bytes, bytearray)):
            return base64.b64encode(bytes(v)).decode()
        return str(v)

    return json.dumps({k: plain(rec[k]) for k in ("topic", "key", "value")}, sort_keys=False, ensure_ascii=False)
