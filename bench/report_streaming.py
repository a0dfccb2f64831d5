"""docs/benchmarks.md's sections for the streaming and format benchmarks: changelog state
(bench/changelog_state.py), dead letters from a files source (bench/files_dead_letters.py) and avro-confluent
against json (bench/avro_confluent.py)."""

from __future__ import annotations

from .report import _f, _mmm

CHANGELOG_DESIGNS = {
    "deltas": "versioned deltas + compaction (shipped)",
    "rewrite": "whole state rewritten per micro-batch (before)",
    "delta-lake": "Delta Lake table, MERGE",
    "state-store": "state store (RocksDB), `applyInPandasWithState`",
}


def changelog_section(c: dict) -> list[str]:
    """docs/benchmarks.md's section for bench/changelog_state.py."""
    st = c["settings"]
    out = [
        "## Changelog state (upsert-kafka, streaming)",
        "",
        f"`scripts/bench changelog-state --write` ({c['date']}, {_f(c['wall_s'] / 60, 1)} minutes; design: "
        "docs/changelogs.md). Micro-batch 0 inserts the state's keys; each of the next "
        f"{st['batches'] - 1} changes {st['batch_keys']:,} distinct keys (85% updates, 5% identical re-upserts, 5% "
        "deletes, 5% new keys). The timed work is the state's: `ChangelogState.apply` and counting the events it "
        "emits (for the state store, the stateful query's micro-batch). The ChangelogState designs take turns "
        "micro-batch by micro-batch in a rotating order; the state store runs afterwards as its own streaming query. "
        f"Load average (1/5/15 min) at start {', '.join(_f(x) for x in c['load_average_start'])}, at end "
        f"{', '.join(_f(x) for x in c['load_average_end'])}.",
        "",
        "| design | keys in state | first micro-batch, s | later micro-batches: wall s min / median / max / mean "
        "| CPU s median / mean | load (1 min) median | state on disk after the first, at the end, max (MB) "
        "| bytes per live key at the end |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, d in c["designs"].items():
        for state, run in sorted(d["runs"].items(), key=lambda kv: int(kv[0])):
            w, cpu = run["wall_s"], run["cpu_s"]
            mb = " / ".join(
                _f(run[k] / 1e6, 1) for k in ("state_bytes_after_first", "state_bytes_end", "state_bytes_max")
            )
            out.append(
                f"| {CHANGELOG_DESIGNS.get(name, name)} | {int(state):,} | {_f(run['first_micro_batch_wall_s'], 1)} | "
                f"{' / '.join(_f(w[k]) for k in ('min', 'median', 'max', 'mean'))} | "
                f"{_f(cpu['median'])} / {_f(cpu['mean'])} | {_f(run['load_1min']['median'])} | {mb} | "
                f"{_f(run['state_bytes_per_live_key_end'], 1)} |"
            )
    out += [
        "",
        "Ratios: the larger state's micro-batch ÷ the smaller state's, of the medians, of the means (which include "
        "the compaction micro-batches), and micro-batch by micro-batch (same micro-batch id):",
        "",
        "| design | states | wall, medians | **wall, means** | CPU, medians | CPU, means | per micro-batch min / median / max |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, d in c["designs"].items():
        if "ratio" in d:
            q, (small, big) = d["ratio"], d["ratio_of_states"]
            paired = " / ".join(_mmm(q["wall_s_paired"]))
            out.append(
                f"| {CHANGELOG_DESIGNS.get(name, name)} | {big:,} ÷ {small:,} | {_f(q['wall_s_median'])} | "
                f"**{_f(q['wall_s_mean'])}** | {_f(q['cpu_s_median'])} | {_f(q['cpu_s_mean'])} | {paired} |"
            )
    return out + [""]


def files_dead_letters_section(c: dict) -> list[str]:
    """docs/benchmarks.md's section for bench/files_dead_letters.py."""
    st, q = c["settings"], c["ratio"]
    out = [
        "## Dead letters from a files source (tolerance: all against none)",
        "",
        f"`scripts/bench files-dead-letters --write` ({c['date']}): one json-lines file of {st['lines']:,} lines "
        f"({st['file_bytes'] / 1e6:.0f} MB, {st['malformed']:,} malformed), batch mode, a json files sink, {st['master']}, "
        f"{st['reps']} runs each taking turns after a warm-up. Under `tolerance: all` the job reads lines as text, numbers "
        "them per file (a window) and parses them itself (docs/errors.md); under `none` Spark's json reader parses them "
        "(and a malformed line becomes nulls). Records read: the stages' input records (Spark's status API). Load "
        f"average (1 min) at start {_f(c['load_average_start'][0])}, at end {_f(c['load_average_end'][0])}.",
        "",
        "| tolerance | wall s min / median / max | CPU s min / median / max | records read (median) | MB read (median) |",
        "|---|---|---|---|---|",
    ]
    for name, run in c["runs"].items():
        out.append(
            f"| {name} | {' / '.join(_mmm(run['wall_s']))} | "
            f"{' / '.join(_mmm(run['cpu_s']))} | "
            f"{int(run['input_records']['median']):,} | {_f(run['input_bytes']['median'] / 1e6, 0)} |"
        )
    return out + [
        "",
        f"Ratio all ÷ none, medians: wall **{_f(q['wall_s_median'])}**, CPU {_f(q['cpu_s_median'])}; records read per "
        f"line under `all`: {_f(q['input_records_per_line'])} (one read of the file; the dead letters of the last run: "
        f"{c['dead_letters_last_run']:,}).",
        "",
    ]


def avro_confluent_section(a: dict) -> list[str]:
    """docs/benchmarks.md's section for bench/avro_confluent.py."""
    st, q = a["settings"], a["avro_vs_json"]
    out = [
        "## avro-confluent through a Schema Registry against json",
        "",
        f"`scripts/bench avro-confluent --write` ({a['date']}, {_f(a['wall_s'] / 60, 1)} minutes; design: "
        "docs/design/avro-registry.md). One pipeline compiled twice, its value `json` or `avro-confluent` with a "
        "registry `url` on both sides (source decoding by writer schema id with resolution to the declared "
        "columns, a ReplaceField step, sink encoding with the registered id), each job's `transform` over the same "
        f"{st['records']:,} records as cached raw Kafka rows into Spark's `noop` sink, alternating for {st['reps']} "
        "repetitions in one local[2] session; outputs decoded back and compared first "
        f"({'equal' if a['outputs_equal'] else 'NOT equal'}). The registry (Apicurio, scripts/registry) answered "
        f"{_f(a['registry_start_s'], 1)} s after `start`. Load average (1/5/15 min) at start "
        f"{', '.join(_f(x) for x in a['load_average_start'])}, at end {', '.join(_f(x) for x in a['load_average_end'])}.",
        "",
        "| format | µs per record, wall: min / median / max | CPU µs per record, median |",
        "|---|---|---|",
    ]
    for fmt, us in a["us_per_record"].items():
        out.append(f"| {fmt} | {' / '.join(_mmm(us))} | {_f(a['cpu_us_per_record'][fmt]['median'])} |")
    out += [
        "",
        f"avro-confluent ÷ json, per repetition: wall **{_f(q['wall']['median'])}** ({_f(q['wall']['min'])} to "
        f"{_f(q['wall']['max'])}), CPU {_f(q['cpu']['median'])} ({_f(q['cpu']['min'])} to {_f(q['cpu']['max'])}).",
        "",
    ]
    return out
