"""The prose that closes docs/benchmarks.md: what the profiling found and what changed."""

NOTES = """\
## What the profiling found, and what changed

Tools: `df.explain("formatted")` and the optimized plan's text (counting `from_json`, projections, filters),
`debug.codegenStringSeq` for generated method sizes, Java Flight Recorder CPU samples of the noop writes, and
variants of the generated job edited by hand to measure one change at a time (1M records, CPU seconds).

1. **Fixed: a filter after the chain copied the whole chain into itself** (`compiler/lower/record_path.py`, `pin`). Spark pushes a
   filter below the projections under it and replaces every column its condition reads by that column's expression.
   Here the `Filter` (`HasHeaderKey`) comes after `HeaderFrom`, which rebuilds the headers from the value: each step's
   struct rebuild was inlined into every field the next step reads, so the plan grew exponentially with the chain.
   Before the fix this chain's optimized plan was **77 MB with `from_json` 130,422 times** (it would never have run);
   the synthetic chain went from 28 KB at 12 steps to 328 MB at 14, and at 25 steps printing the plan exhausted a 1 GiB
   heap, so the 50-step figure could not be taken at all. Now a filter whose condition reads a column that an
   earlier step rebuilt takes its condition from a `__keep` column computed with `spark_partition_id()`, which
   Spark counts as nondeterministic and never pushes a filter through; the filter runs where the chain puts it
   (the generated step comment says so). A filter that reads only what the source produced (the usual filter
   first) is still pushed below the JSON parsing. Plans now grow linearly (the growth table above).
2. **Fixed for jobs that start their own JVM: large generated methods ran interpreted.** Spark fuses consecutive
   projections into one generated Java method and does not split expressions inside it; each step adds its struct
   rebuild, and each `raise_error` guard inlines a `format_string`. HotSpot does not compile a method over 8,000
   bytes of bytecode, so such a stage ran interpreted: with the filter first this chain's stage is 8,984 bytes and
   ran at 0.32 of the hand-written job. A generated job now starts its JVM with `-XX:-DontCompileHugeMethods`
   (`JVM_OPTIONS` in `compiler/emit/job.py`, appended to `spark.driver.extraJavaOptions` when the job is run as
   `python job.py`; its docstring tells spark-submit users to pass the same), and the benchmark gives every variant
   the JVM a generated job would have: the filter-first chain now runs at about the same speed as the other order
   (the ratio tables). `spark.sql.codegen.hugeMethodLimit=8000` would do part of this from the session alone but
   costs about a third against the JVM flag, so it is not set.
3. **Done: one struct build per run of edits, and cheaper exactness checks.** Before, the compiled job used about
   1.25x the hand-written job's CPU (0.78 of its throughput): both spend about half their CPU in Spark's JSON code
   (Jackson); the rest was one struct rebuild per step (a row built per step per record, where the hand-written job
   builds one), and Kafka's exact semantics, which the hand-written job skips: a Java-number regex before each
   string→double cast (about 4%), a UTF-8 check on the header read as text (about 3%), and the filter running
   after the chain rather than before the parse (1% of records). Spark's `CollapseProject` does not merge a
   projection whose struct is wrapped in a null check (`when(value.isNotNull(), struct(...))`, needed so a
   tombstone stays null) into the next one that reads its fields, so each step's struct was materialised.
   Now (`compiler/lower/fusion.py`): consecutive steps that edit fields of the value (or the key) are lowered as
   statements on a dict of named field expressions (`value = {**value, "amount": ...}`, `value.pop("internal")`), one
   commented block per step, and one projection builds the struct after the run, null where it was null, or the
   record error of the first step in the run that refuses a null value. A step joins a run when its whole lowering
   is a `withField`/`dropFields`/null-safe rebuild/null check of that side reading it only through its fields;
   predicates, other columns and whole-struct reads end the run. The Kafka sink writes a value whose fields are
   all written as it is (it rebuilt it). The string→float cast keeps Kafka's exact grammar but checks it only
   where Spark's parse gives NaN or an infinity (Spark parses with Java's own `parseDouble`/`parseFloat` and adds
   only case-insensitive `inf`/`nan` spellings; 111,688 generated strings, ANSI on, gave the same result as the
   regex before every cast). Still per record: the decode's struct (the source's value laid out with its header
   column, also null-safe), the UTF-8 check of the header cast to text (a scan of its bytes), the `raise_error`
   guards of the JSON parse (PERMISSIVE, against the hand-written job's FAILFAST), and the filter after the chain.
   Measured (2026-11-25, a loaded host): generated ÷ hand-written 0.82 by CPU time, 0.84 by throughput (before:
   0.78 both); the structs chain 0.87 by CPU time. **Target 1 (0.95) is not met.** Its struct chain shows the main
   remaining cost: the decode still builds the source's value as a struct (40 fields there, then the run builds
   42: two builds where the hand-written job makes one), because the source's null-safe layout
   (`when(value.isNotNull(), struct(...))`) is not a projection `CollapseProject` merges into the next. What would
   meet it: decode the value as the parsed row edited in place (`dropFields` of the corrupt-record column,
   `withField` of header and metadata columns, which Spark does inline into the first run's field reads), once the
   JSON text `null` (a null row from `from_json`, a struct of nulls today) is settled as Kafka's JsonConverter reads
   it (a null value); then the parse checks (PERMISSIVE with a corrupt-record column and a `raise_error` per side,
   where FAILFAST would fail the job without the record's position), and the UTF-8 scan of the header.
   Tried and measured, not kept: header lookups without lambdas (`array_contains(headers.key, k)` for
   `HasHeaderKey`, the last header by `array_position(reverse(headers.key), k)`): 0.58 against 0.78 in the same
   quick run, as each builds arrays of keys per record where the lambdas allocate nothing.
4. **The UDF ratio is bounded by JSON.** The UDF is lean (one Python call per record, the C `json` module) and the
   native jobs are JSON-bound on two cores: even the hand-written job is well under 10x the UDF here.
5. **The compile no longer runs black, and costs half the CPU it did.** black took about 90% of compile CPU
   (3.5 pipelines/s). The job templates are written black-clean and the printer (`compiler/emit/format/printer`) lays out
   each generated statement as black would (its right-hand and delimiter splits, optional parentheses, magic
   trailing commas and second pass), remembering layouts by statement text; files are compiled in a forked
   worker per core; `pipec check` reads a job cache keyed by content and pipec's fingerprint and hashes each
   job. The tests hold the output to black's (`generated/`, every job they build, a synthetic corpus). Then,
   profiled with cProfile and counted with callgrind (instructions, which a loaded host does not change) over
   the synthetic corpus: the printer marked every leaf again for each line a split built (about half of
   generating); jsonschema walked every branch of each document, and its import and registry were most of a
   one-pipeline compile's validating; the scalar pass expanded the schema anew at every value; the loader
   parsed each file twice; and with PYTHONDONTWRITEBYTECODE set, as on this host, an editable install compiled
   pipec's ~150 modules from source in every process. Now a valid document passes a compiled check of the
   schema (`compiler/validate/compiled_schema.py`, held to jsonschema's answers by tests; jsonschema describes an invalid
   one), the schema's expansions and a dispatcher's answers are remembered per process, a small file is parsed
   once, the printer marks a line's leaves in one loop, never marks a line it leaves as it is and takes back
   its first pass's leaves for the second, IR walks read field names from a table, and `scripts/setup-env`
   byte-compiles pipec. Building and generating one pipeline in a warm process: 107 million instructions,
   from 224 million (0.48); a cold one-pipeline compile: 1.14 billion, from 2.29 billion (0.50; 1.57 with the
   old code byte-compiled). In one run alternating the old and new code at load 5: `pipec compile` of the
   1,000, 25.3 CPU seconds against 49.4 (medians of 3), one pipeline 0.29 against 0.40. The output is byte
   for byte the same (the 1,000 synthetic jobs and every test pipeline). Wall clock on this host follows the
   load: two cores shared with Spark suites give the compile about one (and contention inflates the CPU
   seconds too). What remains: the printer is still about 45% of generating (black's right-hand split
   rebuilds a line once per bracket level, twice over for its second pass), then the scalar pass, lowering
   and the Builder, a few percent each.
6. **A cold one-pipeline compile costs half of what it did.** It was mostly start-up: importing jinja2 and
   compiling the job templates, defining ~100 dataclasses (each frozen one compiles six methods from source
   text) and importing `dataclasses` (with `inspect`), tempfile, fractions and difflib. Now the templates run
   as Python translated at build time (`compiler/emit/job_templates.py`, written by `python -m
   pipec.emit.template_translator --write` from the jinja2 templates, which stay the source; jinja2 renders only while
   that module is stale, and tests hold the two to the same output for every pipeline of the repository), the
   classes are `compiler/dataclass_lite.py` records (shared methods, `__init__` compiled only after a class's first
   64 instances), jobs are written through `compiler/project/atomic_write.py`, and the rest is imported where it is used.
   Counted with callgrind: one 20-step pipeline cold, 0.61 billion instructions from 1.15 billion (0.52); 60
   of them (two forked workers), 8.8 billion from 10.3 (0.86). Alternating with the old code at load 3.5 (20
   pairs): one pipeline 0.22 s wall against 0.41 (0.54), the 1,000 within the noise of the host (CPU medians
   27.5 s against 26.8 over 4 rounds each, the first of each pair the slower). Output byte for byte the same.
   What remains of the 0.61 billion: Python's start-up with the editable install's import finder, 88 million
   (28 without `site`); PyYAML's import, about 100 million (its reader compiles one large regular expression);
   the compiler's other imports, about 150 million; validating and building, 81 million (compiling the
   schema's checks); the printer laying out the job's statements, 109 million (work, not start-up).
7. **Issue 25 traded findings 5 and 6's copies of libraries for the libraries.** The printer, the template
   translator and `dataclass_lite` are gone: ruff's formatter (pinned; black's style, which scripts/black-contract checks
   under black 24.1 and 26.10) formats the jobs, many in one call; jinja2 renders the templates; the model is stdlib
   dataclasses (`frozen=True, slots=True`); the runtime is real modules pasted by the parts a job uses. In one run
   alternating with the code before it (farm-bench, load 5 to 7, medians): `pipec compile` of the 1,000, 19.7 CPU
   seconds against 27.4 (0.70; wall 37.0 s against 48.0, 0.77); `pipec check` of the 1,000 unchanged 0.68 s wall
   against 0.52, and `pipec compile` of them, which now reads the job cache too, 0.68 s; one pipeline cold 0.27 CPU
   seconds against 0.15 (wall 0.45 against 0.23), cold `validate` 0.20 against 0.13 (wall 0.26 against 0.18). The
   cold start pays for jinja2's import (the translated templates avoided it), about 100 dataclasses made by
   `dataclasses` (about 80 ms more than the copy's, measured alone) and ruff's process. The compiled JSON Schema check
   stays: with jsonschema answering every validity question, a cold `validate` costs 0.42 CPU seconds against 0.29.
8. **Building a job's DataFrame cost the driver 4-6 times the hand-written one's; most of it was PySpark recording
   call sites** (issues 26 and 28; `scripts/bench build-cost`, bench/build_cost.py). PySpark classic analyses every
   `select`/`withColumns`/`where` as it is called, and every Column method (`getField`, `alias`, `cast`, `isNotNull`,
   `F.col`, operators) first records the Python call site for error messages: about a dozen Py4J calls (active
   session, a conf read, set and clear of the origin) and a Python stack walk per method, against 1-3 calls for the
   method itself. Counted on bench/chain.yaml into Delta: about 4,600 Py4J calls over ~280 Column methods to build
   the compiled chain against 671 for the hand-written `table_rows` (~45 methods); payments_cleared with its counts
   and dead letters about 3,900 (2026-11-29 08:50 UTC, load 1.4-2.2); build medians 0.58-0.71 s against 0.09 s.
   What changed: (a) a job's own session turns the recording off (the static
   `spark.python.sql.dataFrameDebugging.enabled=false`, not under Spark Connect; the job's `failure()` prints an
   error's first line only, so no message a user saw changes); (b) the emitted code calls fewer Column methods: a
   select keeps a same-named column by its name (`"topic"`, not `F.col("topic").alias("topic")`), `record_error`
   names topic/partition/offset, a table sink writing the value's fields as they are selects `value.*`. The plans
   Spark optimizes are the same (12-13 analysed nodes either way), so per-batch planning does not move.
   `scripts/bench build-cost --reps 5 --without-call-sites`, one session, main's jobs against this code's
   (2026-11-29 09:20 UTC, load 2.8 -> 2.3; seconds min/median/max): chain into Delta, main 0.35/0.59/0.70, now
   0.41/0.52/0.64, hand-written 0.08/0.13/0.16; payments main 0.33/0.58/0.66, now 0.36/0.48/0.64. With call sites
   off (as a job's own session now runs): chain into Delta 0.15/0.18/0.27 (main's 0.14/0.15/0.29: the emission
   changes are within the noise there), payments 0.15/0.18/0.31, hand-written `table_rows` 0.03/0.04/0.09.
   Optimizing and planning a frame from its analysed plan, as each micro-batch does: payments 0.017-0.030 s against
   0.003-0.004 s for the pass-through, the same for main's jobs and this code's.
   `scripts/bench tables --append-only --reps 5 --baseline-job <main's job>` (09:39 UTC, load 2.8-3.4; call sites
   off for every variant, a process-wide setting), hand-written ÷ pipec medians **0.98 wall / 1.02 CPU**, ÷ main's
   compiled job in the same run 1.01 / 1.04 (each append 4.1-5.1 s wall, so 0.1 s of build is inside the noise).
   With PySpark's default call sites for every variant (`--call-sites --reps 4`, 09:58 UTC, load 1.2-2.5):
   hand-written ÷ pipec 1.14 wall / **0.99 CPU**, ÷ main's compiled job 1.07 / **0.90 CPU** (wall spans 3.5-5.8 s).
   What still stands between the compiled chain's build and the hand-written one's with call sites off: ~800 Py4J
   calls against ~190 (the Kafka-exact checks' expressions: record errors, the decode's corrupt-record test, Cast's
   number syntax) and 12 analysed operations against 6.
"""
