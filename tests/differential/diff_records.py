"""Cases as data: a case's records (hypothesis, deterministic), its pipec pipeline and its harness document."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import yaml
from diff_connect import EXACT, UTC, envelope, epoch_millis, pipec_json
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from kafka_chain import harness_chain
from pipec.transforms.base import PACKAGE
from pipec.types.parser import parse_type
from pipec.types.sql import ArrayType, MapType, Primitive, SqlType, StructField, StructType

Strategy = st.SearchStrategy
INT_RANGES = {"TINYINT": 7, "SMALLINT": 15, "INT": 31, "BIGINT": 63}
MIN_TIME = dt.datetime(1900, 1, 1, tzinfo=UTC)
MAX_TIME = dt.datetime(2199, 12, 31, 23, 59, 59, 999000, tzinfo=UTC)
EDGE_TIMES = (
    dt.datetime(1970, 1, 1, tzinfo=UTC),
    dt.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=UTC),
    dt.datetime(2000, 2, 29, 23, 59, 59, 999000, tzinfo=UTC),
    dt.datetime(2024, 1, 1, 0, 0, 0, 1000, tzinfo=UTC),
)


@dataclass(frozen=True)
class Case:
    """One transform chain run on both sides.

    steps/predicates: YAML text as under `transforms:` / `predicates:` of a pipeline.
    columns: the value's columns (name, type); key: names of the columns that also form the key (json key).
    gen: per-column strategies replacing the type's default (e.g. numeric strings for a Cast).
    fixed: records always included (value/key given as plain dicts, missing columns null; None = null).
    differences: ids in differences.py this case is expected to show (each must show up).
    """

    id: str
    steps: str
    columns: tuple[tuple[str, str], ...]
    key: tuple[str, ...] = ()
    predicates: str = ""
    topics: tuple[str, ...] = ("orders",)
    headers: tuple[str, ...] = ()
    gen: dict[str, Strategy] = field(default_factory=dict, hash=False, compare=False)
    fixed: tuple[dict, ...] = ()
    draws: int = 6
    tombstones: bool = True
    differences: tuple[str, ...] = ()

    @property
    def value_type(self) -> StructType:
        return StructType(tuple(StructField(n, parse_type(t)) for n, t in self.columns))

    @property
    def key_type(self) -> StructType | None:
        if not self.key:
            return None
        types = dict(self.columns)
        return StructType(tuple(StructField(n, parse_type(types[n])) for n in self.key))

    @property
    def step_list(self) -> list[dict]:
        return yaml.safe_load(self.steps) or []

    @property
    def predicate_map(self) -> dict:
        return yaml.safe_load(self.predicates) if self.predicates else {}

    def transforms(self) -> set[str]:
        """The registry names of the transforms this case uses."""
        return {str(s["type"]).removeprefix(PACKAGE).split("$")[0] for s in self.step_list}


# ------------------------------------------------------------------ value strategies


def _maybe(strategy: Strategy, none_in: int = 8) -> Strategy:
    """`strategy`, or None about once in `none_in` draws."""
    return st.integers(0, none_in - 1).flatmap(lambda i: st.none() if i == 0 else strategy)


def _timestamps() -> Strategy:
    drawn = st.datetimes(MIN_TIME.replace(tzinfo=None), MAX_TIME.replace(tzinfo=None))
    ms = drawn.map(lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000, tzinfo=UTC))
    return st.one_of(st.sampled_from(EDGE_TIMES), ms)


def _decimals(t: Primitive) -> Strategy:
    top = EXACT.subtract(Decimal(10) ** (t.precision - t.scale), Decimal(1).scaleb(-t.scale))
    return st.decimals(EXACT.minus(top), top, places=t.scale, allow_nan=False, allow_infinity=False)


# JSON has no NaN or infinities, and JsonConverter reads numbers through BigDecimal, which has no -0.0: floats are
# finite and -0.0 is drawn as 0.0, so that both sides receive the same value.
PRIMITIVE_STRATEGIES: dict[str, Callable[[Primitive], Strategy]] = {
    "BOOLEAN": lambda t: st.booleans(),
    "FLOAT": lambda t: st.floats(width=32, allow_nan=False, allow_infinity=False).map(lambda x: x + 0.0),
    "DOUBLE": lambda t: st.floats(allow_nan=False, allow_infinity=False).map(lambda x: x + 0.0),
    "DECIMAL": _decimals,
    "STRING": lambda t: st.text(max_size=12),
    "BYTES": lambda t: st.binary(max_size=12),
    "DATE": lambda t: st.dates(MIN_TIME.date(), MAX_TIME.date()),
    "TIMESTAMP": lambda t: _timestamps(),
    "TIMESTAMP_LTZ": lambda t: _timestamps(),
}


def _integers(bits: int) -> Strategy:
    lo, hi = -(2**bits), 2**bits - 1
    return st.one_of(st.sampled_from((lo, hi, 0, -1, 1)), st.integers(lo, hi))


def values(t: SqlType) -> Strategy:
    """Random values of a column type, None included at every level."""
    if isinstance(t, StructType):
        return _maybe(st.fixed_dictionaries({f.name: values(f.type) for f in t.fields}))
    if isinstance(t, ArrayType):
        return _maybe(st.lists(values(t.element), max_size=3))
    if isinstance(t, MapType):
        return _maybe(st.dictionaries(st.text(max_size=4), values(t.value), max_size=3))
    assert isinstance(t, Primitive)
    if t.name in INT_RANGES:
        return _maybe(_integers(INT_RANGES[t.name]))
    return _maybe(PRIMITIVE_STRATEGIES[t.name](t))


def _struct(t: StructType, overrides: dict[str, Strategy]) -> Strategy:
    return st.fixed_dictionaries(
        {f.name: _maybe(overrides[f.name]) if f.name in overrides else values(f.type) for f in t.fields}
    )


def record_strategy(case: Case) -> Strategy:
    key_type = case.key_type
    value = _struct(case.value_type, case.gen)
    return st.fixed_dictionaries(
        {
            "topic": st.sampled_from(case.topics),
            "partition": st.integers(0, 3),
            "timestamp": _timestamps(),
            "key": _maybe(_struct(key_type, case.gen), 6) if key_type else st.none(),
            "value": _maybe(value, 10) if case.tombstones else value,
            "headers": st.lists(st.tuples(st.sampled_from(case.headers), _maybe(st.text(max_size=8), 5)), max_size=3)
            if case.headers
            else st.just([]),
        }
    )


def draw_records(case: Case) -> list[dict]:
    """The case's records: its fixed ones, then `draws` hypothesis lists (deterministic: seeded by the id)."""
    drawn: list[dict] = []

    @seed(sum(map(ord, case.id)) * 7919)
    @settings(
        database=None,
        max_examples=case.draws,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.lists(record_strategy(case), min_size=1, max_size=6))
    def collect(batch: list[dict]) -> None:
        drawn.extend(batch)

    collect()
    fixed = [_fill(case, r) for r in case.fixed]
    records = fixed + drawn
    for i, rec in enumerate(records):
        rec["offset"] = 100 + i  # unique: how outputs are matched to inputs
    return records


def _fill(case: Case, rec: dict) -> dict:
    """A fixed record with defaults: first topic, partition 0, epoch, no headers, null key; missing columns null."""
    out = {
        "topic": case.topics[0],
        "partition": 0,
        "timestamp": dt.datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=UTC),
        "key": None,
        "headers": [],
        **rec,
    }
    if out.get("value") is not None:
        out["value"] = {n: out["value"].get(n) for n, _ in case.columns}
    if out.get("key") is not None and case.key:
        out["key"] = {n: out["key"].get(n) for n in case.key}
    return out


# ------------------------------------------------------------------ the two sides' inputs


def harness_document(case: Case, records: list[dict]) -> dict:
    """The case as SmtHarness reads it: Kafka class names, config values as a connector's properties carry them."""
    key_type, value_type = case.key_type, case.value_type
    return {
        "id": case.id,
        **harness_chain(case.step_list, case.predicate_map),
        "records": [
            {
                "topic": r["topic"],
                "partition": r["partition"],
                "offset": r["offset"],
                "timestamp": epoch_millis(r["timestamp"]),
                "key": envelope(key_type, r["key"]),
                "value": envelope(value_type, r["value"]),
                "headers": [list(h) for h in r["headers"]],
            }
            for r in records
        ],
    }


def pipeline_name(case: Case) -> str:
    return "diff_" + re.sub(r"[^a-z0-9_]", "_", case.id.lower())


def pipeline_yaml(case: Case) -> str:
    """A batch pipeline: kafka source (json key/value with the case's columns), the chain, a console sink
    with envelope: true (the rows a files sink would write, without its writers' limits: an empty struct)."""
    source: dict[str, Any] = {
        "connector": "kafka",
        "topics": list(case.topics),
        "properties": {"bootstrap.servers": "localhost:9092"},
    }
    if case.key:
        source["key"] = {"format": "json", "fields": list(case.key)}
    source["value"] = {"format": "json"}
    source["columns"] = [{"name": n, "type": t} for n, t in case.columns]
    doc: dict[str, Any] = {"version": 1, "name": pipeline_name(case), "mode": "batch", "source": source}
    if case.predicates:
        doc["predicates"] = case.predicate_map
    doc["transforms"] = case.step_list
    doc["sink"] = {"connector": "console", "envelope": True}
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=1000)


def given_fields(case: Case, rec: dict) -> dict:
    """A record as a pipec test's `given` fields (what pipec.testing.kafka_rows encodes)."""
    key_type, value_type = case.key_type, case.value_type
    return {
        "topic": rec["topic"],
        "partition": rec["partition"],
        "offset": rec["offset"],
        "timestamp": epoch_millis(rec["timestamp"]),
        "key": pipec_json(key_type, rec["key"]) if key_type else None,
        "value": pipec_json(value_type, rec["value"]),
        "headers": [{"key": k, "value": v} for k, v in rec["headers"]],
    }
