"""docs/benchmarks.md's sections for `scripts/bench connect-peer` (bench/connect_peer.py, bench/peer_profile.py),
`scripts/bench chain-what-if`, and a shorter `scripts/bench` run of the hand-written ratios kept beside the full run's."""

from __future__ import annotations

LABELS = {
    "connect": "Kafka Connect: JsonConverter + transforms, one thread (`bench/ConnectPeer.java`)",
    "generated": "compiled job, the same chain, `local[1]`",
    "generated_as_is": "compiled job of bench/chain.yaml as written, `local[1]` (reference)",
    "connect_converters": "Kafka Connect's converters alone (no transforms)",
}
RATIO_LABELS = {
    "generated": "compiled job ÷ Kafka Connect",
    "generated_as_is": "bench/chain.yaml as written ÷ Kafka Connect",
}
WHAT_IF_LABELS = {  # bench/peer_whatif.py
    "array_contains": "`HasHeaderKey` as `array_contains(headers.key, 'test')` (generated code; a Kafka header key is "
    "never null, so the three-valued results agree)",
    "filter_first": "the filter moved before the chain (it reads a header no step changes; Spark pushes it below "
    "the parse)",
    "key_as_read": "the key written as read (no `from_json`/`to_json` of a key no step reads or changes)",
    "filter_first_key_as_read": "the filter first and the key written as read",
    "both": "both",
    "both_key_as_read": "both, and the key written as read (no `from_json`/`to_json` of a key no step reads or "
    "changes)",
}
CUT_LABELS = {
    "scan": "scan of the cached rows",
    "decode": "decode (`from_json` of key and value, the value's struct)",
    "chain": "the chain",
    "encode": "encode (`to_json` of key and value)",
}

PROFILE_NOTES = """\
What the profile says (the cuts above, and the flight recordings of a run without `--no-jfr`, which the latest run
skipped; the decode's pieces measured 2026-11-28 on this host at load 4 to 6 by variants of the decode over 300,000 records at `local[1]`, three alternating rounds):

1. **Decode, most of the job (the cuts above): Spark's JSON parse costs 2.5 to 3 times Kafka's.** Parsing the value
   with `from_json` costs about 5.3 CPU s per million records, the key's `{"id":N}` alone about 1.5 (nearly the
   fixed cost of one `from_json` call), the decode's checks and struct about 0.7 more; Kafka's JsonConverter reads
   key and value in about 3 (a quarter of the peer's time). Spark hands Jackson a `Reader` per record
   (`CreateJacksonParser.utf8String` wraps the bytes in an `InputStreamReader`, whose decoder allocates an 8 KB
   buffer each time: about 10% of the job's samples) and parses characters, where JsonConverter parses the bytes;
   a known Spark limitation (apache/spark#46408, whose review found that `from_json` still goes through the
   reader). And `from_json` (`JsonToStructs`) is a `CodegenFallback`: Spark keeps the projection that holds it out
   of whole-stage codegen and copies its output into new rows before the chain's stage reads them.
2. **Chain: generated code only.** `HasHeaderKey` is `array_contains(headers.key, 'test')` and a header column
   `array_position` over the reversed header keys: no lambda over the headers is left (Spark only interprets a
   higher-order function, `CodegenFallback`; when `HasHeaderKey` was `exists(headers, h -> h.key = 'test')` its
   lambda and the `SQLConf` read behind every interpreted field read on Spark 4.2 were about 10% of the job's
   samples, and it kept its projection out of whole-stage codegen). The codegen line above: the chain and the
   encode run in one generated stage; the decode's two `JsonToStructs` are the only interpreted expressions. What
   the chain spends is the struct build, the Java-number check of the cast, the topic's regular expressions, two
   timestamp formats and the null guards. Kafka's chain is about half of its time, mostly copying each schemaless
   map into a new `HashMap` per transform. Outside this chain (`python -m bench.header_lambdas`, one step alone,
   2026-11-29): `HeaderFrom` of a numeric array is one array cast, 1.9 CPU s per million records against 3.0 for a
   lambda per element; `DropHeaders` keeps its `filter` lambda, as an exact form without one (sort, slice, except)
   cost 9.1 against 2.8.
3. **Encode (the cuts above):** `to_json` writes characters, then encodes them; about what Kafka's converter spends
   writing key and value.
4. The cuts and the variants below run after the rounds in the same JVM, where the job costs more per record than
   in the rounds (more generated classes have run through Spark's shared code by then, and the load differed):
   compare within a table, not across them.
"""

CLOSING_NOTES = """\
What would close the gap. The chain has nothing interpreted left to remove: `HasHeaderKey` as `array_contains` (6%
to 17% off the job's CPU time in the runs that decided it) and header columns by position (about 5%) are how the
compiler lowers them, and the codegen line above shows one generated stage for chain and encode. The ratio above is
measured with both; the figures marked "before" (an earlier run, at another load) had `array_contains` too and the
header column of the chain as written still by a lambda (now the chain as written costs what the Flatten-first chain
costs). Between the two runs Kafka Connect's one thread went from 16.9 to 13.0 CPU s per million records and the job
from 18.2 to 16.3 on the same chain: at the lower load of this run the peer's single thread gained more than the
job's JVM. What is left is the decode, about two thirds of the job. With the cuts above, a chain that cost nothing
would bring the ratio to about 0.9; 1.3 needs the whole job at 1 ÷ 1.3 of Kafka Connect's CPU per record (about 10
CPU s per million here against 16.3), which with the chain and encode as they are leaves the decode less than half
of what it costs now: below what Kafka's converters spend reading and writing the whole record (their row in the
table above). Moving a filter that reads only source headers before the chain gave 0.89, 0.97 and the figure of an
earlier run: no consistent gain, and it would change which records an earlier step's error stops. Writing a key that
no step reads or changes as the source read it (no `from_json`/`to_json` of the key) took another fifth off in
earlier runs: it writes a key differently from Kafka's JsonConverter when the input's spelling is not the
converter's (spaces, `1.0` for a BIGINT) and stops checking the key's JSON, so it would be an option, not the
default. The rest of the gap is Spark's: a `from_json` that parses the UTF-8 bytes (Jackson's byte parser, as
JsonConverter does) and has generated code (so that the parse fuses with the chain's stage) would remove most of the
decode's excess. Not a way: decoding the value as VARIANT (`parse_json`, then `variant_get` per field) cost 14.6 CPU
s per million records against `from_json`'s 5.8.
"""


def _f(value: float, digits: int = 2) -> str:
    return f"{value:,.{digits}f}"


def _mmm(s: dict, digits: int = 0) -> str:
    return " / ".join(_f(s[k], digits) for k in ("min", "median", "max"))


def _profile(p: dict) -> list[str]:
    cuts = p["cuts"]
    out = [
        "Where the compiled job's time goes (bench/peer_profile.py): the job cut after each part, each cut written to "
        "the noop sink (which builds every column), CPU seconds of the Spark JVM per million records, medians of "
        "alternating rounds; a part's cost is the difference of two cuts.",
        "",
        "| cut | CPU s per 1M (median) | the part | share of the job |",
        "|---|---|---|---|",
    ]
    for name, label in CUT_LABELS.items():
        out.append(
            f"| {label} | {_f(cuts['cpu_s_per_1m'][name]['median'])} | {_f(cuts['part_cpu_s_per_1m'][name])} | "
            f"{cuts['part_share'][name]:.0%} |"
        )
    cg = p["codegen"]
    out += [
        "",
        "Whole-stage codegen of the job: stages (largest method, bytecode bytes) "
        + ", ".join(str(s["max_method_bytes"]) for s in cg["stages"])
        + "; operators outside any stage: "
        + (", ".join(f"{k} x{v}" for k, v in cg["outside_codegen"].items()) or "none")
        + "; expressions Spark interprets (`CodegenFallback`; a projection holding one runs outside whole-stage "
        "codegen): " + (", ".join(f"{k} x{v}" for k, v in cg["interpreted_expressions"].items()) or "none") + ".",
        "",
    ]
    if "jfr" in p:
        out += [
            "Java Flight Recorder, one pass of each side (execution samples of the working threads; each sample "
            "counted under the first group any frame of its stack belongs to):",
            "",
        ]
        for side, label in (("generated", "compiled job"), ("connect", "Kafka Connect peer")):
            j = p["jfr"][side]
            shares = "; ".join(f"{k} {v:.0%}" for k, v in j["share"].items())
            out.append(f"- {label} ({j['samples']:,} samples): {shares}.")
        out.append("")
    return out


def _before(b: dict) -> str:
    """The label suffix of an earlier run's ratios (`before`: kept when a change is measured against them)."""
    load = f"{_f(b['load_average_start'][0], 1)} -> {_f(b['load_average_end'][0], 1)}"
    return f", before ({b['date']}, {b['records']:,} records, {b['reps']} rounds, load {load})"


def connect_peer_section(c: dict) -> list[str]:
    """docs/benchmarks.md's section for bench/connect_peer.py."""
    eq = c["equality"]
    out = [
        "## Against Kafka Connect's own classes, per core (issue 14, target 3)",
        "",
        f"`scripts/bench connect-peer --write` ({c['date']}, Spark {c['spark']} at {c['master']}, Kafka Connect "
        f"{c['kafka']}, {_f(c['wall_s'] / 60, 1)} minutes): the same {c['records']:,} Kafka-shaped records "
        "(`bench/generate.py`: key, value, headers, topic, partition, offset, timestamp) through bench/chain.yaml "
        "in the order Kafka's classes can run it (`peer_chain` in bench/peer_side.py: Flatten first and MaskField on "
        "`customer_card`, as Kafka's MaskField ignores V2 paths; no header column). Kafka Connect: JsonConverter "
        "without schemas in, SimpleHeaderConverter, the transforms, JsonConverter out to bytes, in one thread of "
        "a JVM started as connect-distributed.sh starts a worker, records held in memory (no consumer, producer or "
        "worker around it: the least Kafka Connect spends on them); its CPU time is that thread's (ThreadMXBean). "
        "The compiled job: its `transform` over the records cached, into Spark's `noop` sink, with the job's session "
        "settings and JVM options; its CPU time is the Spark JVM's (every thread, planning included). "
        f"{c['warmups']} warm-up round(s), then {c['reps']} rounds in a rotating order. Load average (1/5/15 min) "
        f"at start {', '.join(_f(x) for x in c['load_average_start'])}, at end "
        f"{', '.join(_f(x) for x in c['load_average_end'])}: the host ran other work, so wall clock is stretched; "
        "per-core figures use CPU time.",
        "",
        f"Outputs compared first over {eq['records']:,} records (bench/peer_compare.py): {eq['kept']:,} written and "
        f"{eq['dropped']:,} dropped by both, equal record by record once Kafka's schemaless value is read in pipec's "
        f"type ({eq.get('a field absent from the schemaless record', 0):,} fields absent from Kafka's map were null "
        "in pipec's; tests/differential/test_connect_peer.py also covers a null nested map, which Kafka's "
        "schemaless Flatten keeps as one null field).",
        "",
        "| variant | records per CPU second (per core): min / median / max | records/s wall (median) | CPU s per 1M (median) |",
        "|---|---|---|---|",
    ]
    for name, label in LABELS.items():
        pc = c["per_core"][name]
        out.append(f"| {label} | {_mmm(pc)} | {_f(c['records_per_s'][name]['median'], 0)} | {_f(1e6 / pc['median'])} |")
    out += [
        "",
        "| ratio per round | by CPU time: min / median / max | by wall clock (median) | against the peer's whole JVM (GC, JIT) (median) |",
        "|---|---|---|---|",
    ]
    for run, suffix in ((c, ""), *(((b, _before(b)),) if (b := c.get("before")) else ())):
        for name in ("generated", "generated_as_is"):
            q = run["ratio"][name]
            out.append(
                f"| {RATIO_LABELS[name]}{suffix} | "
                f"{_mmm(q['cpu'], 3)} | {_f(q['wall']['median'], 3)} | {_f(q['cpu_whole_jvm']['median'], 3)} |"
            )
    out += [
        "",
        f"Kafka Connect's converters alone take {c['converters_share']['median']:.0%} of its CPU time (median), its "
        "transforms the rest.",
        "",
    ]
    if "profile" in c:
        out += _profile(c["profile"])
    out += [PROFILE_NOTES]
    if "what_if" in c:
        out += _what_if(c["what_if"], c["records"])
    return out + [CLOSING_NOTES, ""]


def _what_if(w: dict, records: int) -> list[str]:
    rows = [
        f"Variants of the compiled job edited by hand (`scripts/bench connect-peer --what-if`, bench/peer_whatif.py, "
        f"the same run and {records:,} records; each writes the same records as the job), CPU time of the Spark JVM, "
        "medians of alternating rounds:",
        "",
        "| variant | CPU s per 1M | ÷ the job's |",
        "|---|---|---|",
        f"| the compiled job | {_f(w['job']['cpu_s_per_1m'])} | 1.00 |",
    ]
    rows += [
        f"| {label} | {_f(w[name]['cpu_s_per_1m'])} | {_f(w[name]['vs_job'])} |"
        for name, label in WHAT_IF_LABELS.items()
        if name in w
    ]
    return rows + [""]


CHAIN_VARIANTS = {  # bench/chain_whatif.py
    "job": "the compiled job",
    "no_record_checks": "without any per-record failure check (raise_error of steps and converters)",
    "plain_casts": "Cast without its checks (Spark's cast to double, a plain cast of the header bytes)",
    "no_filter_barrier": "the Filter without its barrier (Spark repeats the rebuilt headers in it)",
    "key_as_read": "the key written as read (no `from_json`/`to_json` of a key no step reads or changes)",
    "header_by_filter": "the header column by filtering the headers with a lambda (as before issue 28)",
    "handwritten": "bench/handwritten.py",
}


def chain_what_if_section(w: dict) -> list[str]:
    """`scripts/bench chain-what-if`: what the compiled bench/chain.yaml pays for exactness, and where CPU goes."""
    load = f"load {w['load_average_start'][0]:.1f} -> {w['load_average_end'][0]:.1f}"
    out = [
        "## What bench/chain.yaml's job pays for Kafka Connect's exactness",
        "",
        f"`scripts/bench chain-what-if` (bench/chain_whatif.py): variants of the compiled job edited by hand, "
        f"{w['records']:,} records, {w['reps']} alternating rounds, CPU time of the Spark JVM (medians; {load}):",
        "",
        "| variant | CPU s per 1M | ÷ the job's | hand-written ÷ this, by CPU |",
        "|---|---|---|---|",
    ]
    out += [
        f"| {label} | {_f(w['variants'][n]['cpu_s_per_1m'])} | {_f(w['variants'][n]['vs_job'])} | "
        f"{_f(w['variants'][n]['handwritten_vs_this'])} |"
        for n, label in CHAIN_VARIANTS.items()
        if n in w["variants"]
    ]
    out += [
        "",
        "Java Flight Recorder samples of one pass each, as CPU seconds per 1M records (share x the timed median):",
        "",
        "| what ran | the job | hand-written |",
        "|---|---|---|",
    ]
    job, hand = w["jfr"]["job"]["share"], w["jfr"]["handwritten"]["share"]
    per_job, per_hand = w["variants"]["job"]["cpu_s_per_1m"], w["variants"]["handwritten"]["cpu_s_per_1m"]
    out += [
        f"| {label} | {_f(job.get(label, 0) * per_job)} | {_f(hand.get(label, 0) * per_hand)} |"
        for label in dict.fromkeys([*job, *hand])
    ]
    return out + [""]


RECHECK_RATIOS = {
    "generated_vs_handwritten": "bench/chain.yaml: generated ÷ hand-written",
    "structs_generated_vs_handwritten": "bench/structs.yaml: generated ÷ hand-written",
}


def chain_recheck_section(q: dict, full: dict) -> list[str]:
    """A shorter `scripts/bench` run (merged as `chain_recheck`) beside the full run's ratios above ("before")."""
    m, s = q["machine"], q["settings"]
    load = f"{_f(m['load_average_start'][0], 1)} -> {_f(m['load_average_end'][0], 1)}"
    out = [
        "## Generated ÷ hand-written, re-measured (issue 28)",
        "",
        f"`scripts/bench --quick --skip-compile --reps {s['reps']}` ({q['date']}, {s['records']:,} records, "
        f"{s['warmups']} warm-up round(s), load {load}), its ratios per repetition beside the full run's above "
        f"({full['date']}). The same variants, machine settings and output checks as the full run.",
        "",
        "| ratio | by CPU time: min / median / max | by wall clock: min / median / max |",
        "|---|---|---|",
    ]
    for run, suffix in ((q["throughput"], ""), (full["throughput"], f", before ({full['date']}, full run)")):
        for key, label in RECHECK_RATIOS.items():
            if key in run:
                out.append(f"| {label}{suffix} | {_mmm(run[key]['cpu'], 3)} | {_mmm(run[key]['wall'], 3)} |")
    return out + [""]
