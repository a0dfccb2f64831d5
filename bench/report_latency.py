"""docs/benchmarks.md's section for `scripts/bench latency` (bench/latency.py, bench/latency_legs.py)."""

from __future__ import annotations

from .report import _f, _rate

LATENCY_MODES = {
    "micro_batch": "micro-batch, default trigger (payments job, dead letters)",
    "micro_batch_two_writes": "micro-batch, default trigger (payments job, dead letters through persist and two writes)",
    "zero_interval": "micro-batch, `processing-time: 0 seconds` (payments job, dead letters)",
    "micro_batch_stateless": "micro-batch, default trigger (payments without dead letters)",
    "real_time": "real-time mode, `real-time: 5 seconds` (payments without dead letters)",
    "real_time_dead_letters": "real-time mode, `real-time: 5 seconds` (payments job, dead letters)",
    "real_time_steady": "real-time mode, `real-time: 5 minutes`, no batch end in the run (payments without dead letters)",
}


LATENCY_NOTES = """\
Where the time goes. In micro-batch mode a record waits for the micro-batch in flight to end and then rides the
next one, so its latency is one to two micro-batches. A micro-batch of the payments job as shipped spends most of
its time running (addBatch): its dead letters are split through `foreachBatch`, which persists the micro-batch
and writes it twice (the sink, the dead-letter topic) and counts it; without dead letters the job writes straight
through Spark's Kafka sink and addBatch shrinks to about a third of the micro-batch. What stays is fixed per
micro-batch: planning (the offsets, the query plan, the write-ahead log walCommit) and commitOffsets, both
mostly the checkpoint's small file writes, together about 60% of a stateless micro-batch here. Spark's default
trigger and `processing-time: 0 seconds` are the same trigger (`Trigger.ProcessingTime(0)`): their rows differ
by the machine's load and by the JVM's warm-up. Real-time mode has no per-batch path for a record: long-running
tasks read, transform and write each record as it arrives, and a batch (5 s here; 5 minutes by default) only
bounds the checkpoint; its addBatch is the whole batch. Its tail is not measured apart: on this machine the two
long-running tasks hold both cores, beside the broker, the producer, the consumer and other work (the load).\
"""


def _jvm_warmup(c: dict) -> str:
    seconds = c.get("jvm_warmup_s")
    return f" (the first mode also after an unmeasured {seconds:g} s run of it: the JVM's warm-up)" if seconds else ""


def _gc(g: dict | None) -> str:
    return "-" if not g else f"{g['pauses']} / {_f(g['total_ms'], 1)} / {_f(g['max_ms'], 1)}"


def latency_section(c: dict) -> list[str]:
    """docs/benchmarks.md's section for bench/latency.py."""
    out = [
        "## End-to-end latency (Kafka -> payments job -> Kafka)",
        "",
        f"`scripts/bench latency --write` ({c['date']}, Spark {c['spark']}, local[2], {c['cores']} cores, "
        f"{_f(c['wall_s'] / 60, 1)} minutes): {c['rate_per_s']:,} records/s for {c['seconds']:g} s per mode after "
        f"{c['warmup_s']:g} s of warm-up{_jvm_warmup(c)}, on the embedded broker; latency from the producer's send to the consumer "
        "seeing the output record (one process, one clock). Planning: the median micro-batch's `durationMs` of "
        "latestOffset + getBatch + queryPlanning + walCommit; running: its addBatch (the batch's Spark job, the "
        "sink's writes); a micro-batch's whole trigger in the last column.",
        "",
        "| mode | records seen | p50 s | p95 s | **p99 s** | max s | micro-batches | rows per batch (median) "
        "| planning ms | addBatch ms | trigger ms | load (1 min) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, label in LATENCY_MODES.items():
        m = c.get(name)
        if m is None:
            continue
        if "error" in m:
            out.append(f"| {label} | did not run: {m['error']} | | | | | | | | | | |")
            continue
        batches = " | ".join("-" if k not in m else _rate(m[k]) for k in (  # no batch ended: none
            "rows_per_batch_median", "planning_ms_median", "add_batch_ms_median", "trigger_ms_median"))
        out.append(
            f"| {label} | {m['received']:,} of {m['records']:,} | {_f(m['p50_s'], 3)} | {_f(m['p95_s'], 3)} | "
            f"**{_f(m['p99_s'], 3)}** | {_f(m['max_s'], 3)} | {m['batches']} | {batches} | {_f(m['load_average'][0])} |"
        )
    return out + _legs_rows(c) + ["", LATENCY_NOTES, ""]


def _legs_rows(c: dict) -> list[str]:
    """Where each mode's latency goes: its legs, GC pauses, CPU use and pressure (runs that measured them)."""
    modes = [(label, c[name]) for name, label in LATENCY_MODES.items() if c.get(name, {}).get("legs")]
    if not modes:
        return []
    out = [
        "",
        "Where a record's latency goes (the broker's append times split it: send -> input topic, input -> output "
        "topic through the job, output topic -> seen), p50 / p99 of each leg and its median over the records at or "
        "above the whole's p99 (the tail); in the measured window, the GC pauses of the Spark JVM and of the broker "
        "(count / total ms / longest ms), the cores used by the Spark JVM, the broker, the benchmark's own process "
        "(producer and consumer) and everything else on the machine, and the share of the window during which some "
        "task waited for a CPU (/proc/pressure/cpu); in real-time mode, the share of the tail's records that reached "
        "the broker within a second before or half a second after a batch's end, against the share of the run such "
        "windows cover:",
        "",
        "| mode | to broker p50 / p99 / tail s | job p50 / p99 / tail s | to consumer p50 / p99 / tail s "
        "| Spark GC | broker GC | cores: Spark / broker / bench / others | waiting for a CPU "
        "| tail near a batch end (windows' share) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for label, m in modes:
        legs = " | ".join(" / ".join(_f(m["legs"][leg][k], 3) for k in ("p50_s", "p99_s", "tail_median_s"))
                          for leg in ("to_broker", "job", "to_consumer"))
        gcs = " | ".join(_gc(m.get(key)) for key in ("gc", "broker_gc"))
        cores = m.get("cpu_cores")
        cores = "-" if not cores else " / ".join(_f(cores[k]) for k in ("spark", "broker", "bench", "other"))
        waiting = m.get("cpu_waiting_share")
        near = m["legs"].get("tail_near_batch_end")
        near = "-" if near is None else f"{near:.0%} ({m['legs']['near_batch_end_share_of_run']:.0%})"
        out.append(f"| {label} | {legs} | {gcs} | {cores} | {'-' if waiting is None else f'{waiting:.0%}'} | {near} |")
    return out
