"""Where the compiled job's time goes at local[1] (for `scripts/bench connect-peer`): the job cut after each of its
parts, its whole-stage codegen stages and the expressions Spark interprets inside them, and, on request, Java
Flight Recorder samples of one pass of each side (the job, the Kafka Connect peer) grouped by what they ran.

Cuts (each written to the noop sink, alternating, CPU seconds of the Spark JVM per million records):
  scan    the cached raw rows as they are
  decode  + the source's decode (from_json of key and value, the value's struct with its header column)
  chain   + the chain
  encode  + the sink's encode (to_json of key and value): the whole job
Each part's cost is the difference between two cuts: the noop sink builds every column of each cut's rows.
"""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from pathlib import Path

CUTS = ("scan", "decode", "chain", "encode")
FALLBACK = "org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback"
# what a sample ran: the first rule (in this order) any frame of its stack matches
SPARK_SAMPLES = (
    ("to_json (Spark's JacksonGenerator)", ("catalyst.json.JacksonGenerator", "StructsToJson")),
    (
        "from_json (Spark's JacksonParser over Jackson, building rows)",
        ("catalyst.json.JacksonParser", "JsonToStructs", "com.fasterxml.jackson"),
    ),
    ("regular expressions (rlike, regexp_replace)", ("java.util.regex",)),
    ("timestamp formatting", ("java.time.format", "TimestampFormatter", "DateTimeUtils")),
    (
        "interpreted lambdas (headers: filter, exists)",
        ("HigherOrderFunction", "ArrayFilter", "ArrayExists", "LambdaFunction", "NamedLambdaVariable"),
    ),
    ("the cached input's scan", ("execution.columnar", "InMemoryTableScan", "ColumnarToRow")),
    (
        "generated code (projections, row building, strings)",
        ("GeneratedClass", "UTF8String", "UnsafeRow", "UnsafeWriter"),
    ),
)
PEER_SAMPLES = (
    (
        "JsonConverter: bytes to Connect (Jackson parse, schemaless values)",
        ("JsonConverter.toConnectData", "JsonDeserializer", "convertToConnect"),
    ),
    ("JsonConverter: Connect to bytes", ("JsonConverter.fromConnectData", "JsonSerializer", "convertToJson")),
    ("SimpleHeaderConverter (headers in and out)", ("SimpleHeaderConverter", "connect.data.Values")),
    ("the chain's transforms and predicates", ("connect.transforms",)),
    ("records and headers (SinkRecord, ConnectHeaders)", ("connect.sink.", "connect.header.", "ConnectRecord")),
)


def cuts(job, raw) -> dict:
    decoded = job.decode(raw)
    chained = job.chain(decoded)
    return {"scan": raw, "decode": decoded, "chain": chained, "encode": job.encode(chained)}


def time_cuts(spark, job, raw, jvm_pid: int, reps: int) -> dict:
    """CPU seconds per million records of each cut (median of `reps` rotating rounds, after one warm-up each),
    and each part's share of the whole job's."""
    from .compiler_speed import summary
    from .connect_peer import spark_pass

    frames = cuts(job, raw)
    records = raw.count()
    for name in CUTS:
        spark_pass(frames[name], jvm_pid)
    cpu: dict[str, list[float]] = {name: [] for name in CUTS}
    for rep in range(reps):
        for name in CUTS[rep % len(CUTS) :] + CUTS[: rep % len(CUTS)]:
            cpu[name].append(spark_pass(frames[name], jvm_pid)["cpu_s"] * 1e6 / records)
    medians = {name: summary(values)["median"] for name, values in cpu.items()}
    parts = {name: medians[name] - (medians[CUTS[i - 1]] if i else 0.0) for i, name in enumerate(CUTS)}
    return {
        "cpu_s_per_1m": {name: summary(values) for name, values in cpu.items()},
        "part_cpu_s_per_1m": parts,
        "part_share": {name: part / medians["encode"] for name, part in parts.items()},
    }


def _children(seq) -> list:
    return [seq.apply(i) for i in range(seq.size())]


def codegen_report(spark, df) -> dict:
    """The executed plan's operators outside whole-stage codegen, and the expressions Spark evaluates without
    generated code (CodegenFallback: interpreted per row inside a generated stage), by class."""
    jvm = spark._jvm
    fallback = jvm.java.lang.Class.forName(FALLBACK)
    interpreted: Counter = Counter()
    outside: Counter = Counter()

    def expressions(e) -> None:
        if fallback.isAssignableFrom(e.getClass()):
            interpreted[e.getClass().getSimpleName()] += 1
        for child in _children(e.children()):
            expressions(child)

    def operators(node, in_stage: bool) -> None:
        name = node.getClass().getSimpleName()
        if name == "WholeStageCodegenExec":
            in_stage = True
        elif not in_stage and name != "InputAdapter":
            outside[name] += 1
        for e in _children(node.expressions()):
            expressions(e)
        for child in _children(node.children()):
            operators(child, in_stage and name != "InputAdapter")

    operators(df._jdf.queryExecution().executedPlan(), False)
    from .plans import codegen_stats

    return {
        "outside_codegen": dict(outside),
        "interpreted_expressions": dict(interpreted),
        "stages": codegen_stats(spark, df),
    }


def samples(jfr_file: Path, thread: str) -> list[list[str]]:
    """The stacks (innermost frame first) of the execution samples of threads whose name starts with `thread`."""
    text = subprocess.run(
        ["jfr", "print", "--events", "jdk.ExecutionSample", "--stack-depth", "200", str(jfr_file)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    stacks = []
    for event in text.split("jdk.ExecutionSample {")[1:]:
        named = re.search(r'sampledThread = "([^"]*)"', event)
        if named is None or not named.group(1).startswith(thread):
            continue
        body = event.split("stackTrace = [", 1)[1].split("\n  ]", 1)[0]
        stacks.append([line.strip() for line in body.splitlines() if line.strip()])
    return stacks


def by_rule(stacks: list[list[str]], rules: tuple) -> dict:
    """Each sample counted once, under the first rule any of its frames matches (else `other`); shares."""
    counts: Counter = Counter()
    for stack in stacks:
        label = next((label for label, needles in rules if any(n in f for f in stack for n in needles)), "other")
        counts[label] += 1
    total = sum(counts.values()) or 1
    top = Counter(stack[0].split("(")[0] for stack in stacks if stack).most_common(12)
    return {
        "samples": sum(counts.values()),
        "share": {k: v / total for k, v in counts.most_common()},
        "top_frames": [[frame, n / total] for frame, n in top],
    }


def jfr_spark(spark, df, folder: Path) -> dict:
    """JFR samples of one noop write of `df`, on Spark's task threads, by SPARK_SAMPLES."""
    from .run import noop

    jvm = spark._jvm
    recording = jvm.jdk.jfr.Recording(jvm.jdk.jfr.Configuration.getConfiguration("profile"))
    path = folder / "spark.jfr"
    recording.setDestination(jvm.java.io.File(str(path)).toPath())
    recording.start()
    noop(df)
    recording.stop()
    recording.close()
    return by_rule(samples(path, "Executor task"), SPARK_SAMPLES)  # JFR keeps the name a thread first had


def jfr_peer(peer, folder: Path) -> dict:
    path = folder / "peer.jfr"
    peer.ask(f"jfr-start {path}")
    peer.ask("pass")
    peer.ask("jfr-stop")
    return by_rule(samples(path, "main"), PEER_SAMPLES)


def profile(spark, job, raw, jvm_pid: int, peer, reps: int, folder: Path) -> dict:
    out = {"cuts": time_cuts(spark, job, raw, jvm_pid, reps), "codegen": codegen_report(spark, job.transform(raw))}
    if peer is not None:
        out["jfr"] = {"generated": jfr_spark(spark, job.transform(raw), folder), "connect": jfr_peer(peer, folder)}
    return out
