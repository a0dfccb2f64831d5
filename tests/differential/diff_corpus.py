"""The real-world corpus (tests/real_world/configs/) through Kafka's own classes: each test case's given records
become an SmtHarness document (the pipeline's own transforms and predicates, as the connector configuration
carries them), and Kafka's outcomes are put in the form the pipeline's sink writes, to be compared with the
case's `expect`, `expect_error` and `expect_dead_letters`. This checks the corpus's expectations, not pipec."""

from __future__ import annotations

import binascii
import datetime as dt
import json
from pathlib import Path
from typing import Any

import yaml
from diff_connect import EPOCH, envelope, epoch_millis, from_envelope, from_pipec_json
from kafka_chain import harness_chain
from pipec.connectors.kafka import key_columns, value_columns
from pipec.model import TestCase
from pipec.project.driver import build_all
from pipec.resolve.builder import Compiled
from pipec.testing.kafka_rows import kafka_rows
from pipec.types.sql import SqlType, StructField, StructType

CORPUS = Path(__file__).resolve().parents[1] / "real_world" / "configs"
# Corpus files whose chain Kafka's classes cannot run as the file states it, and why.
NOT_IN_KAFKA = {
    "debezium_unwrap_es_sink_key": "the source format debezium-json stands for Debezium's ExtractNewRecordState, "
    "which is not one of Kafka's classes",
}
CONVERTER_STAGES = ("KEY_CONVERTER", "VALUE_CONVERTER")


class Undecodable(Exception):
    """A given key or value JsonConverter cannot read (the record fails in the converter, before any transform)."""


def corpus_files() -> list[Path]:
    return sorted(CORPUS.glob("*.yaml"))


def _decode(data: bytes | None, fmt: str, t: SqlType | None) -> Any:
    """Given bytes as the Kafka converter of `fmt` reads them: JSON, or raw text."""
    if data is None or t is None:
        return None
    if fmt == "raw":
        return data if t.is_binary else data.decode("utf-8")
    try:
        return from_pipec_json(t, json.loads(data.decode("utf-8")))
    except (UnicodeDecodeError, json.JSONDecodeError, binascii.Error) as exc:
        raise Undecodable(str(exc)) from exc


def _struct(columns) -> StructType:
    return StructType(tuple(StructField(c.name, c.type) for c in columns))


def _types(compiled: Compiled) -> tuple[SqlType | None, SqlType | None]:
    """The key and value types of the records Kafka Connect sees (the value without the key's columns under
    EXCEPT_KEY; a raw key is its one column)."""
    source = compiled.pipeline.source
    if source.connector == "files":
        return None, _struct(source.config.columns)
    key_type = None
    if source.config.key_fields:
        keys = key_columns(source)
        key_type = keys[0].type if source.config.key_format == "raw" else _struct(keys)
    return key_type, _struct(value_columns(source))


def not_checkable(compiled: Compiled) -> str | None:
    """Why a corpus pipeline's cases cannot be checked this way, or None."""
    source, sink = compiled.pipeline.source, compiled.pipeline.sink
    if source.connector == "files" and source.config.format != "text":
        return f"files source format {source.config.format}"
    if source.connector == "kafka" and (
        source.config.format != "json" or source.config.key_format not in ("none", "json", "raw")
    ):
        return f"kafka source formats {source.config.key_format}/{source.config.format}"
    if any(c.metadata or c.headers or c.header for c in source.config.columns):
        return "metadata or header columns"
    if sink.connector not in ("kafka", "files"):
        return f"{sink.connector} sink"
    if sink.config.key_fields and not (
        source.config.fields_include == sink.config.fields_include == "EXCEPT_KEY"
        and source.config.key_fields == sink.config.key_fields
    ):
        return "a sink key built from value fields other than the source's EXCEPT_KEY key"
    return None


def harness_records(compiled: Compiled, case: TestCase) -> tuple[list[dict], list[int]]:
    """The case's given records as SmtHarness records, and the offsets of those that fail to decode."""
    source = compiled.pipeline.source
    key_type, value_type = _types(compiled)
    records, undecodable = [], []
    if source.connector == "files":
        topic = source.config.topic.literal if source.config.topic else compiled.pipeline.name
        rows = [
            (0, (None, json.dumps(r.fields.get("value")).encode(), topic, 0, i, EPOCH, 0, None))
            for i, r in enumerate(case.given)
        ]
    else:
        rows = kafka_rows(source, list(case.given))
    for _, (key, value, topic, partition, offset, timestamp, _, headers) in rows:
        try:
            plain_key = _decode(key, source.config.key_format, key_type)
            plain_value = _decode(value, "json", value_type)
        except Undecodable:
            undecodable.append(offset)
            continue
        records.append(
            {
                "topic": topic,
                "partition": partition,
                "offset": offset,
                "timestamp": epoch_millis(timestamp),
                "key": envelope(key_type, plain_key) if plain_key is not None else None,
                "value": envelope(value_type, plain_value),
                "headers": [[k, None if v is None else v.decode("utf-8")] for k, v in headers or []],
            }
        )
    return records, undecodable


def harness_document(doc_id: str, path: Path, records: list[dict]) -> dict:
    """The harness document of one case: the file's steps and predicates as Kafka configuration."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {
        "id": doc_id,
        **harness_chain(data.get("transforms") or [], data.get("predicates") or {}),
        "records": records,
    }


def _as_written(env: Any) -> Any:
    """Kafka's output as a JSON sink writes it: FLOAT32 as JsonConverter prints it (17.49f as 17.49), not widened."""
    if env is None:
        return None

    def doubles(schema: Any) -> Any:
        if isinstance(schema, dict):
            out = {k: doubles(v) for k, v in schema.items()}
            if out.get("type") == "float":
                out["type"] = "double"
            return out
        if isinstance(schema, list):
            return [doubles(s) for s in schema]
        return schema

    return from_envelope({"schema": doubles(env.get("schema")), "payload": env.get("payload")})


def sink_view(compiled: Compiled, sent: dict, out: dict) -> dict:
    """One record Kafka wrote, as the pipeline's sink would: the fields `expect` may name."""
    sink = compiled.pipeline.sink
    key, value = _as_written(out["key"]), _as_written(out["value"])
    headers = [(k, None if v is None else v.encode("utf-8")) for k, v in out["headers"]]
    if sink.connector == "kafka":
        topic = out["topic"]
        if sink.config.topic is not None and topic == sent["topic"]:  # a router's topic wins over the sink's (SPEC 7)
            topic = sink.config.topic.literal
        return {"key": key, "value": value, "topic": topic, "headers": headers}
    record: dict[str, Any] = {"value": value}
    if sink.config.envelope:
        millis = out["timestamp"]
        record.update(
            key=key,
            topic=out["topic"],
            partition=out["partition"],
            offset=out["offset"],
            headers=headers,
            timestamp=None if millis is None else EPOCH + dt.timedelta(milliseconds=millis),
        )
    return record


def compile_corpus_file(path: Path) -> Compiled:
    result = build_all([str(path)])
    result.diags.check()
    (compiled,) = result.compiled
    return compiled
