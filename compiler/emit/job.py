"""The job file: the pipeline part (IR rendered to statements, laid into jinja2 templates), then the parts of the
runtime it uses (runtime_text.py), formatted in black's style by ruff (formatter.py)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .. import __version__, spark_versions
from ..connectors import SINKS, SOURCES, schema_registry, table_formats, table_formats_of
from ..lower.record_path import Lowered, lower
from ..lower.spark_line import job_needs
from ..model import Pipeline
from ..package_data import TEMPLATES
from ..project.job_cache import default_dir
from ..resolve import errors_policy
from ..resolve.builder import Compiled
from . import formatter, render, runtime_text

RUNTIME_MARKER = f"# pipec runtime {__version__}, pasted from pipec's runtime modules; a reviewer may skip it. Parts:"
_HEAD = "# pipec: imports and settings"  # where the template leaves them, filled in once the job's code is known


@dataclass(frozen=True, slots=True)
class Job:
    """A generated job: its file name and its black-formatted source."""

    name: str
    filename: str
    source: str


@lru_cache(maxsize=1)
def template_environment():
    """jinja2's environment of the job templates, made once per process; the templates it compiles are kept in
    pipec's cache (their source's checksum names them): a cold compile loads them instead (some 15 ms)."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        bytecode_cache=_template_cache(),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _template_cache():
    """jinja2's cache of compiled templates in pipec's cache folder, or None where there is none to write."""
    import os

    import jinja2

    folder = default_dir()
    if folder is None:
        return None
    try:
        (folder / "templates").mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    writable = os.access(folder / "templates", os.W_OK)
    return jinja2.FileSystemBytecodeCache(str(folder / "templates")) if writable else None


# JVM options for a job that starts Spark's JVM itself (`python job.py`): HotSpot otherwise leaves generated
# methods over 8,000 bytes of bytecode to the interpreter, and a long chain's whole-stage code passes that.
# compiler/runtime/spark_lines.py carries the same (tests/unit/test_runtime_modules.py).
JVM_OPTIONS = "-XX:-DontCompileHugeMethods"


def per_key_state(p: Pipeline) -> bool:
    """Whether a connector keeps per-key state (the changelog state, the upsert reduction)."""
    return SOURCES[p.source.connector].per_key_state or SINKS[p.sink.connector].per_key(p.sink)


def reads_lines(p: Pipeline) -> bool:
    """Whether the source is read line by line and numbered (a files source under tolerance: all)."""
    return p.errors.tolerance == "all" and SOURCES[p.source.connector].tolerant_reader is not None


def per_batch(p: Pipeline) -> bool:
    """Streaming through foreachBatch: per-key work, and numbering the lines of each file, need whole micro-batches."""
    return p.streaming and (per_key_state(p) or reads_lines(p))


def dead_letters_in_one_write(p: Pipeline) -> bool:
    """Whether the sink's rows and the dead letters go out in one write (errors_policy)."""
    return errors_policy.dead_letters_in_one_write(p.source, p.sink, p.errors)


def in_from_progress(p: Pipeline, lowered: Lowered) -> bool:
    """Whether a streaming micro-batch's `in` is its progress's numInputRows rather than an observation after
    decoding: the query reads each source record once (no foreachBatch: per-key work, a second write), its reader
    counts the records as read (SourceConnector.counted_as_read) and decode yields one row for each (a record that
    does not decode is a dead letter or fails the job, never a dropped row)."""
    return (
        p.streaming
        and not per_batch(p)
        and not (lowered.dead_letters and not dead_letters_in_one_write(p))
        and SOURCES[p.source.connector].counted_as_read
        and lowered.one_row_per_record
    )


def _dead_letter_context(p: Pipeline) -> dict:
    """Where dead letters go (errors.tolerance: all): a Kafka topic through the source's cluster, or JSON files."""
    policy = p.errors
    target = (
        f"Kafka topic {policy.dlq_topic.raw}"
        if policy.dlq_topic
        else f"JSON lines at {policy.dlq_path.raw if policy.dlq_path else '?'}"
    )
    return {
        "topic": render.text_expr(policy.dlq_topic) if policy.dlq_topic else None,
        "path": render.path_expr(policy.dlq_path),
        "options": errors_policy.dead_letter_options(p.source, policy),
        "one_write": dead_letters_in_one_write(p),
        "summary": render.doc_text(f"Dead letters, untouched, to the {target}."),
    }


def _spark_context(lowered: Lowered, real_time: bool, formats: tuple[str, ...]) -> dict:
    """The connectors (their coordinates chosen by the job from its Spark), the runtimes per line of the table
    formats it reads or writes, and the oldest Spark line it needs."""
    line = spark_versions.DEFAULT_LINE
    shown = spark_versions.coordinates(spark_versions.LINES[line].connectors, lowered.packages)
    runtimes = table_formats.job_runtimes(formats)
    if runtimes.get(line):
        shown.extend(runtimes[line].split(","))
    needed, names = job_needs(lowered, real_time)
    return {
        "connectors": list(lowered.packages),
        "table_runtimes": runtimes,
        "table_session": table_formats.session_settings(formats),
        "spark_needed": needed,
        "spark_needed_by": f" ({', '.join(names)})" if names else "",
        "packages_text": f"{', '.join(shown)} on Spark {line} (each Spark line its own: see --help)"
        if shown
        else "none (no connector jars needed)",
        "packages_flag": f"--packages {','.join(shown)} " if shown else "",
    }


def _settings(p: Pipeline, lowered: Lowered, spark: dict, session_conf: dict) -> dict[str, tuple[str, str]]:
    """Each setting a job may open with (runtime_text.SETTINGS): its value as Python text, and what its comment adds;
    the job carries those its runtime parts read."""
    lines = reads_lines(p) and SOURCES[p.source.connector].tolerant_reader(p.source)["lines"]
    policy = p.errors
    values = {
        "PIPELINE": p.name,
        "STREAMING": p.streaming,
        "TRIGGER": p.sink.config.trigger,
        "CHECKPOINT": p.sink.config.checkpoint.raw if p.sink.config.checkpoint else None,
        "DEAD_LETTERS": lowered.dead_letters,
        "DEAD_LETTER_CONTEXT": lowered.dead_letters and policy.context_headers,
        "LOG_DEAD_LETTERS": lowered.dead_letters and policy.log,
        "LOG_RECORDS": lowered.dead_letters and policy.log_messages,
        "FILE_LINES": lines or {},
        "SPARK_CONNECTORS": spark["connectors"],
        "SPARK_NEEDED": spark["spark_needed"],
        "SESSION_CONF": session_conf,
        "TABLE_RUNTIMES": spark["table_runtimes"],
        "TABLE_SESSION": spark["table_session"],
        "TABLE_SINK": SINKS[p.sink.connector].writes_table,
        "SCHEMA_REGISTRY": schema_registry.settings(p.source.registries + p.sink.registries),
    }
    settings = {name: (render.literal(value), "") for name, value in values.items()}
    settings["SPARK_NEEDED"] = (settings["SPARK_NEEDED"][0], spark["spark_needed_by"])
    return settings


def _table_columns(p: Pipeline, compiled: Compiled) -> dict[str, str]:
    """A table sink's columns as DDL (the table connectors' module is imported only for a table job)."""
    from ..connectors import tables

    return tables.columns_ddl(p.sink, compiled.final)


def context(compiled: Compiled, lowered: Lowered) -> dict:
    p = compiled.pipeline
    source, sink = SOURCES[p.source.connector], SINKS[p.sink.connector]
    conf = {
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.ansi.enabled": "true",
        "spark.sql.mapKeyDedupPolicy": "LAST_WIN",
    }
    if (sink.writes_kafka and not p.streaming) or per_batch(p):
        # Kafka's batch write through the V2 path, where Spark's observed metrics (the job's counts) reach the
        # Observation; through the V1 path they never do and the counts would wait forever.
        conf["spark.sql.sources.useV1SourceList"] = "avro,csv,json,orc,parquet,text"
    conf = {**dict(p.spark_conf), **conf}
    spark = _spark_context(lowered, p.sink.real_time, table_formats_of(p.source, p.sink))
    return {
        # the docstring's first line; a blank description leaves no trailing space (black strips it)
        "title": f"{p.name}: {render.doc_text(p.description or f'compiled from {p.file}')}".rstrip(),
        "version": __version__,
        "file": render.doc_text(p.file),
        "sha256": p.sha256,
        "is_streaming": p.streaming,
        **spark,
        "job_path": f"generated/{p.name}.py",
        "jvm_options_text": JVM_OPTIONS,
        "imports_and_settings": _HEAD,
        "settings": _settings(p, lowered, spark, conf),
        "source_template": f"sources/{p.source.connector}.py.j2",
        "sink_template": f"sinks/{p.sink.connector}.py.j2",
        "source": (source.tolerant_reader if lowered.dead_letters and source.tolerant_reader else source.reader)(
            p.source
        ),
        "sink": sink.writer(p.sink, p.source),
        "table": {
            "columns": render.literal(_table_columns(p, compiled)),
            "part": f"table_{p.sink.config.apply}",  # the runtime part of its apply mode (TableApply)
        }
        if sink.writes_table
        else None,
        "per_batch": per_batch(p),
        "changelog_state": p.streaming and source.per_key_state,
        "dead_letters": lowered.dead_letters,
        # a sink that applies changes checks each row's key and sequence: its dead letters are counted after it
        "counted_after_encode": lowered.dead_letters and sink.applies_changes(p.sink),
        "in_from_progress": in_from_progress(p, lowered),
        "dlq": _dead_letter_context(p) if lowered.dead_letters else {},
        "decode": render.block_lines(lowered.decode),
        "state_check": render.block_lines(lowered.state_check) if lowered.state_check else [],
        "chain": [render.block_lines(b) for b in lowered.chain],
        "encode": render.block_lines(lowered.encode),
        "registry": bool(p.source.registries or p.sink.registries),
    }


def job_context(compiled: Compiled, lowered: Lowered | None = None) -> dict:
    """Everything job.py.j2 and the templates it includes substitute (`lowered`: the pipeline's lowering, when the
    caller has it)."""
    return context(compiled, lowered or lower(compiled))


def _alternatives(ctx: dict) -> tuple[str, ...]:
    """The runtime parts the job's features choose (runtime.ALTERNATIVES): how it starts, runs and is entered,
    whether it asks for connectors, and how a table sink applies rows."""
    streaming = ("handover" if ctx["per_batch"] else "no_handover",) if ctx["is_streaming"] else ()
    return (
        "micro_batches" if ctx["per_batch"] else "straight_through",
        "streaming" if ctx["is_streaming"] else "batch",
        "registry_main" if ctx["registry"] else "main",
        "spark_lines" if ctx["connectors"] or ctx["table_runtimes"] else "no_connectors",
        *streaming,
        *([ctx["table"]["part"]] if ctx["table"] else []),
    )


def job_text(compiled: Compiled, lowered: Lowered | None = None) -> str:
    """The job's source before formatting (the same code: the formatter changes only line breaks and spaces)."""
    ctx = job_context(compiled, lowered)
    pipeline = template_environment().get_template("job.py.j2").render(**ctx)
    head, runtime = runtime_text.assemble(pipeline, ctx["settings"], _alternatives(ctx), RUNTIME_MARKER)
    return pipeline.replace(_HEAD, head, 1).rstrip("\n") + "\n\n\n" + runtime + "\n"


def generate(compiled: Compiled, lowered: Lowered | None = None) -> Job:
    """The job, formatted."""
    name = compiled.pipeline.name
    return Job(name, f"{name}.py", formatter.format_source(job_text(compiled, lowered), f"{name}.py"))


def generate_many(compiled: list[Compiled]) -> list[Job]:
    """Every job, formatted in one formatter call."""
    texts = {f"{c.pipeline.name}.py": job_text(c) for c in compiled}
    formatted = formatter.format_sources(texts)
    return [Job(c.pipeline.name, f"{c.pipeline.name}.py", formatted[f"{c.pipeline.name}.py"]) for c in compiled]
