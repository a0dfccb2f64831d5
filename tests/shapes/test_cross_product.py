"""The cross product of record shapes and sinks (issue 11): every transform family's output shapes (shape_cases)
x every sink connector and format of the registry (combos), each compiled as its own pipeline.

- A combination pipec refuses must be refused at compile time, with exactly the codes combos.refusals names,
  each located inside the YAML node at fault (the format, or primary-key), never at run time. Every combination
  is compiled (no Spark).
- Combinations pipec accepts run on the same three Kafka records (every field set, every field null, a tombstone)
  through their generated job's own `transform` on the shared Spark session, and what they write must be what
  Kafka Connect and Flink document for that shape and format (connect_formats): the key and value bytes of a Kafka
  sink; the files a files sink writes with the job's own `write_sink` (json and csv compared as text, parquet and
  avro read back); the rows a files or console sink writes. Spark runs the combinations combos.runs_on_spark
  picks (each family's shapes through kafka json, each kind of shape through every other sink and format): each
  job costs Spark's planning, and the others repeat what those show.

Kafka sinks' rows are collected in a few unions (one Spark job per batch, from a few threads); files sinks' rows
with the same columns are written together, one write per format, envelope and column types.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import struct
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # the helper modules beside this file
    sys.path.insert(0, str(HERE))

from combos import (  # noqa: E402
    Combo,
    all_combos,
    column_types,
    kafka_expected,
    refusals,
    row_columns,
    runs_on_spark,
    yaml_text,
)
from connect_formats import csv_line, json_text  # noqa: E402
from pipec.connectors import SINKS  # noqa: E402
from pipec.emit.job import job_text  # noqa: E402
from pipec.project.driver import build_all  # noqa: E402
from pipec.testing.frames import rows_frame  # noqa: E402
from pipec.testing.kafka_rows import EPOCH, KAFKA_ROW_SCHEMA  # noqa: E402
from pipec.testing.runner import load_job  # noqa: E402
from pipec.transforms import REGISTRY  # noqa: E402
from pipec.types.sql import BYTES, ArrayType, MapType, SqlType, StructField, StructType  # noqa: E402
from shape_cases import FULL_JSON, INPUTS, NULLS_JSON, recipes_for  # noqa: E402

COMBOS = all_combos()
UTC = dt.timezone.utc
AT = "at"  # the header naming each given record's offset, so written Kafka rows can be told apart
UNION_BATCH = 8  # combinations per Spark job
WORKERS = 2


@functools.lru_cache(maxsize=1)
def compiled_all(folder: str) -> dict:
    """name -> (Combo, Compiled or None, its errors, its YAML) for every combination, each compiled on its own."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    out = {}
    for combo in COMBOS:
        path = root / f"{combo.name}.yaml"
        text = yaml_text(combo)
        path.write_text(text, encoding="utf-8")
        result = build_all([str(path)])
        errors = [d for d in result.diags.items if d.severity == "error"]
        out[combo.name] = (combo, result.compiled[0] if result.compiled else None, errors, text)
    return out


@pytest.fixture(scope="module")
def everything(tmp_path_factory):
    return compiled_all(str(tmp_path_factory.mktemp("cross-product") / "pipelines"))


def test_every_transform_family_and_sink_format_is_covered():
    families = {r.family for side in ("key", "value") for r in recipes_for(side)}
    assert set(REGISTRY.transforms) <= families, f"no shape recipe for {sorted(set(REGISTRY.transforms) - families)}"
    for name, sink in SINKS.items():
        used = {c.fmt for c in COMBOS if c.sink == name}
        assert set(sink.formats) | set(sink.key_formats) <= used | {None}, name
    # table sinks (delta, iceberg) write a table, not records: tests/tables covers their shapes (not yet every family)
    assert {c.sink for c in COMBOS} == {name for name, sink in SINKS.items() if not sink.writes_table}


# ---------------------------------------------------------------- compile time


def _node_span(text: str, path: tuple) -> tuple[tuple[int, int], tuple[int, int]]:
    """(line, col) where the YAML node at `path` starts and ends, 1-based, by PyYAML's own composer."""
    node = yaml.compose(text)
    for step in path:
        node = next(v for k, v in node.value if k.value == step)
    return (node.start_mark.line + 1, node.start_mark.column + 1), (node.end_mark.line + 1, node.end_mark.column + 1)


def test_refused_combinations_are_refused_at_compile_time_at_the_node_at_fault(everything):
    problems = []
    for combo, compiled, errors, text in everything.values():
        want = refusals(combo)
        got = set()
        for d in errors:
            located = [path for code, path in want if code == d.code and _inside(text, path, d.loc)]
            got.add((d.code, located[0]) if located else (d.code, f"at {d.loc.line}:{d.loc.col}: {d.message}"))
        if got != want:
            problems.append(
                f"{combo.label}: expected {sorted(want) or 'no error'}, got {sorted(got, key=str) or 'no error'}"
            )
        elif not want and compiled is None:
            problems.append(f"{combo.label}: not compiled")
    assert not problems, f"{len(problems)} of {len(everything)} combinations:\n" + "\n".join(problems[:40])


def _inside(text: str, path: tuple, loc) -> bool:
    start, end = _node_span(text, path)
    return start <= (loc.line, loc.col) <= end


# ---------------------------------------------------------------- run time


def _jobs(everything, tmp: Path) -> dict[str, Any]:
    """name -> the generated job module of every compiled combination (black's layout skipped: same code)."""
    tmp.mkdir(parents=True, exist_ok=True)
    jobs = {}
    for name, (_, compiled, _, _) in everything.items():
        if compiled is None:
            continue
        path = tmp / f"{name}.py"
        path.write_text(job_text(compiled), encoding="utf-8")
        jobs[name] = load_job(path)
    return jobs


@pytest.mark.spark
def test_accepted_combinations_write_what_kafka_connect_documents(everything, spark, tmp_path):
    from pyspark.sql import functions as F

    timings: dict[str, float] = {}
    started = time.monotonic()
    ran = {n: entry for n, entry in everything.items() if entry[1] is not None and runs_on_spark(entry[0])}
    jobs = _jobs(ran, tmp_path / "jobs")
    for key, value in next(iter(jobs.values())).SESSION_CONF.items():
        spark.conf.set(key, value)
    raw = rows_frame(spark, _raw_rows(), KAFKA_ROW_SCHEMA)

    def transform(name: str):
        combo = ran[name][0]
        return combo, jobs[name], jobs[name].transform(raw.where(F.col("offset").isin(list(combo.offsets))))

    with ThreadPoolExecutor(WORKERS) as pool:  # Spark plans the jobs of several threads at once
        outputs = list(pool.map(transform, jobs))
        timings["transform"] = time.monotonic() - started
        kafka, rows, writes = [], [], defaultdict(list)
        for combo, job, out in outputs:
            if combo.sink in ("kafka", "upsert-kafka"):
                kafka.append((combo, out.select(F.lit(combo.index).alias("combo"), "key", "value", "headers")))
                continue
            as_json = F.to_json(F.struct(*[F.col(c) for c in out.columns]), {"ignoreNullFields": "false"})
            rows.append((combo, out.select(F.lit(combo.index).alias("combo"), as_json.alias("row"))))
            if combo.sink == "files":
                writes[(combo.fmt, combo.envelope, out.schema.simpleString())].append((combo, job, out))
        problems = _check_kafka(pool, kafka) + _check_sink_rows(pool, rows)
        timings["kafka and rows"] = time.monotonic() - started - timings["transform"]
        folders = [tmp_path / f"files-{i}" for i in range(len(writes))]
        for found in pool.map(lambda args: _check_files(spark, *args), zip(writes.values(), folders)):
            problems += found
    timings["total"] = time.monotonic() - started
    print(
        f"cross product: {len(jobs)} jobs run ({len(writes)} file writes) of {len(everything)} combinations; "
        + ", ".join(f"{k} {v:.1f}s" for k, v in timings.items())
    )
    assert not problems, f"{len(problems)} mismatches:\n" + "\n".join(problems[:40])


def _raw_rows() -> list[tuple]:
    """The given records as Spark Kafka rows (the key the same JSON as the value), each with a header naming its
    offset: 0 every field set, 1 every field null, 2 a tombstone."""
    texts = {0: FULL_JSON, 1: NULLS_JSON, 2: None}
    rows = []
    for offset in INPUTS:
        payload = None if texts[offset] is None else texts[offset].encode()
        rows.append((payload, payload, "orders", 0, offset, EPOCH, 0, [(AT, str(offset).encode()), ("trace-id", b"t")]))
    return rows


def _union(frames: list):
    return functools.reduce(lambda a, b: a.unionByName(b), frames)


def _collect(pool, ran: list) -> list:
    """The rows of every (combo, frame), a few unions at a time (one Spark job each)."""
    batches = [_union([f for _, f in ran[i : i + UNION_BATCH]]) for i in range(0, len(ran), UNION_BATCH)]
    return [row for rows in pool.map(lambda df: df.collect(), batches) for row in rows]


def _check_kafka(pool, ran: list) -> list[str]:
    """Key and value bytes of every Kafka sink combination."""
    written: dict[int, dict[int, tuple]] = defaultdict(dict)
    for row in _collect(pool, ran):
        offset = int(next(v for k, v in row.headers if k == AT).decode())
        written[row.combo][offset] = (_bytes(row.key), _bytes(row.value))
    problems = []
    for combo, _ in ran:
        for offset in combo.offsets:
            want, got = kafka_expected(combo, offset), written[combo.index].get(offset)
            if got is not None and combo.recipe is not None and combo.side == "key":
                got = (got[0], None)  # the value is the source's record, unchanged
            if got != want:
                problems.append(f"{combo.label} @{offset}: wrote {got!r}, expected {want!r}")
    return problems


def _bytes(value: Any) -> bytes | None:
    return None if value is None else bytes(value)


def _check_sink_rows(pool, ran: list) -> list[str]:
    """The rows files and console sinks write (rendered by Spark's to_json, which writes BYTES as base64 as the
    json files do): the key and the value's columns, compared as parsed JSON, per combination."""
    written: dict[int, Counter] = defaultdict(Counter)
    names = {combo.index: _compared_columns(combo) for combo, _ in ran}
    for row in _collect(pool, ran):
        parsed = json.loads(row.row)
        written[row.combo][_canonical_json({n: parsed.get(n) for n in names[row.combo]})] += 1
    problems = []
    for combo, _ in ran:
        want = Counter(_canonical_json(json.loads(json_text(cols, t))) for cols, t in _expected_rows(combo))
        if written[combo.index] != want:
            problems.append(
                f"{combo.label}: wrote {sorted(written[combo.index].elements())}, expected {sorted(want.elements())}"
            )
    return problems


def _compared_columns(combo: Combo) -> list[str]:
    return list(column_types(combo))


def _expected_rows(combo: Combo) -> list[tuple[dict, StructType]]:
    """(columns, their struct type) for each input: the value's columns, and the key with the envelope. A key the
    source never had, or an always-null value, is null, typed BYTES (as the envelope's raw key)."""
    types = {n: (t if t is not None else BYTES) for n, t in column_types(combo).items()}
    t = StructType(tuple(StructField(n, types[n]) for n in _compared_columns(combo)))
    return [({f.name: row_columns(combo, offset)[f.name] for f in t.fields}, t) for offset in combo.offsets]


def _check_files(spark, members: list, folder: Path) -> list[str]:
    """One write of the members' rows (same columns) with the first member's own `write_sink`; the files read back:
    json and csv as text (exact lines; with the envelope json lines are parsed), parquet and avro by Spark."""
    combo, job, _ = members[0]
    job.write_sink(_union([out for _, _, out in members]), job.parse_args(["--sink-path", str(folder)]))
    expected = [row for member, _, _ in members for row in _expected_rows(member)]
    if combo.fmt in ("json", "csv"):
        lines = [
            line for part in sorted(folder.glob("part-*")) for line in part.read_text(encoding="utf-8").splitlines()
        ]
        if combo.fmt == "csv":
            want, got = Counter(csv_line(cols, t) for cols, t in expected), Counter(lines)
        elif not combo.envelope:
            want, got = Counter(json_text(cols, t) for cols, t in expected), Counter(lines)
        else:  # the envelope's topic, offset, ... are Spark's: compare the key and the value's columns
            names = [f.name for f in expected[0][1].fields]
            want = Counter(_canonical_json(json.loads(json_text(cols, t))) for cols, t in expected)
            got = Counter(_canonical_json({n: json.loads(line).get(n) for n in names}) for line in lines)
    else:
        t = expected[0][1]
        want = Counter(_canonical_json(canonical(cols, t)) for cols, t in expected)
        got = Counter(
            _canonical_json(canonical({f.name: row[f.name] for f in t.fields}, t))
            for row in spark.read.format(combo.fmt).load(str(folder)).collect()
        )
    if want == got:
        return []
    labels = ", ".join(c.label for c, _, _ in members)
    return [
        f"{labels}:\n    missing {sorted((want - got).elements())}\n    unexpected {sorted((got - want).elements())}"
    ]


def _canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def canonical(value: Any, t: SqlType) -> Any:
    """A Python value (expected, or read back by Spark) in one comparable form."""
    if value is None:
        return None
    if hasattr(value, "asDict"):
        value = value.asDict(recursive=False)
    if isinstance(t, StructType):
        return {f.name: canonical(value.get(f.name), f.type) for f in t.fields}
    if isinstance(t, ArrayType):
        return [canonical(v, t.element) for v in value]
    if isinstance(t, MapType):
        return {str(k): canonical(v, t.value) for k, v in value.items()}
    name = t.name
    if name == "FLOAT":
        return struct.unpack("<f", struct.pack("<f", value))[0]
    if name == "DECIMAL":
        return str(Decimal(value).quantize(Decimal(1).scaleb(-t.scale)))
    if name == "BYTES":
        return bytes(value).hex()
    if name == "TIMESTAMP_LTZ":
        return (value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)).isoformat()
    if name in ("DATE", "TIMESTAMP"):
        return value.isoformat()
    return value
