"""Lay out the job file: IR rendered to statements, jinja2 templates for the layout, black's format written by
the printer (`format/layout.py`)."""

from __future__ import annotations

from functools import lru_cache

from .. import __version__, spark_versions
from ..connectors import SINKS, SOURCES, schema_registry, table_formats, table_formats_of, tables
from ..dataclass_lite import record
from ..lower.record_path import Lowered, lower
from ..lower.spark_line import job_needs
from ..model import Pipeline
from ..package_data import TEMPLATES, templates_digest
from ..resolve import errors_policy
from ..resolve.builder import Compiled
from . import render
from .format import layout


@record
class Job:
    """A generated job: its file name and its black-formatted source."""

    name: str
    filename: str
    source: str


@lru_cache(maxsize=1)
def template_environment():
    """jinja2's environment of the job templates. compile renders through compiler/emit/job_templates.py (the same
    templates as Python, written by compiler/emit/template_translator.py with this environment's parser); jinja2 itself
    renders only while that module is stale."""
    import jinja2  # lazily: rarely needed (above)

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=layout.mark,
    )


# JVM options for a job that starts Spark's JVM itself (`python job.py`): HotSpot otherwise leaves generated
# methods over 8,000 bytes of bytecode to the interpreter, and a long chain's whole-stage code passes that.
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


def _dead_letter_context(p: Pipeline) -> dict:
    """Where dead letters go (errors.tolerance: all): a Kafka topic through the source's cluster, or JSON files."""
    policy = p.errors
    target = f"Kafka topic {policy.dlq_topic.raw}" if policy.dlq_topic else f"JSON lines at {policy.dlq_path.raw if policy.dlq_path else '?'}"
    return {
        "topic": render.text_expr(policy.dlq_topic) if policy.dlq_topic else None,
        "path": render.path_expr(policy.dlq_path),
        "options": errors_policy.dead_letter_options(p.source, policy),
        "one_write": dead_letters_in_one_write(p),
        "context_headers": policy.context_headers,
        "file_lines": reads_lines(p),
        "log": policy.log,
        "log_messages": policy.log_messages,
        "summary": render.doc_text(f"Dead letters, untouched, to the {target}."),
    }


def _lines(block) -> list[str]:
    return layout.block_lines(block)


def _spark_context(lowered: Lowered, real_time: bool, formats: tuple[str, ...]) -> dict:
    """The connectors (their coordinates chosen by the job from its Spark), the table format's runtime per line,
    and the oldest Spark line it needs."""
    line = spark_versions.DEFAULT_LINE
    shown = spark_versions.coordinates(spark_versions.LINES[line].connectors, lowered.packages)
    runtimes = table_formats.job_runtimes(formats)
    if runtimes.get(line):
        shown.extend(runtimes[line].split(","))
    needed, names = job_needs(lowered, real_time)
    return {
        "connectors_literal": render.py_literal(list(lowered.packages)),
        "spark_lines": render.py_literal(spark_versions.job_tables()),
        "table_runtimes": render.py_literal(runtimes),
        "table_session": render.py_literal(table_formats.session_settings(formats)),
        "spark_needed": render.py_literal(needed),
        "spark_needed_by": f" ({', '.join(names)})" if names else "",
        "packages_text": f"{', '.join(shown)} on Spark {line} (each Spark line its own: see --help)" if shown else "none (no connector jars needed)",
        "packages_flag": f"--packages {','.join(shown)} " if shown else "",
    }


def context(compiled: Compiled, lowered: Lowered) -> dict:
    p = compiled.pipeline
    source, sink = SOURCES[p.source.connector], SINKS[p.sink.connector]
    conf = {"spark.sql.session.timeZone": "UTC", "spark.sql.ansi.enabled": "true", "spark.sql.mapKeyDedupPolicy": "LAST_WIN"}
    if sink.writes_kafka and not p.streaming or per_batch(p):
        # Kafka's batch write through the V2 path, where Spark's observed metrics (the job's counts) reach the
        # Observation; through the V1 path they never do and the counts would wait forever.
        conf["spark.sql.sources.useV1SourceList"] = "avro,csv,json,orc,parquet,text"
    conf = {**dict(p.spark_conf), **conf}
    job_path = f"generated/{p.name}.py"
    return {
        "name": p.name,
        "name_literal": render.py_literal(p.name),
        # the docstring's first line; a blank description leaves no trailing space (black strips it)
        "title": f"{p.name}: {render.doc_text(p.description or f'compiled from {p.file}')}".rstrip(),
        "version": __version__,
        "file": render.doc_text(p.file),
        "sha256": p.sha256,
        "streaming": "True" if p.streaming else "False",
        "is_streaming": p.streaming,
        **_spark_context(lowered, p.sink.real_time, table_formats_of(p.source, p.sink)),
        "job_path": job_path,
        "session_conf": render.py_literal(conf),
        "schema_registry": render.py_literal(schema_registry.settings(p.source.registries + p.sink.registries)),
        "jvm_options": render.py_literal(JVM_OPTIONS),
        "jvm_options_text": JVM_OPTIONS,
        "trigger": render.py_literal(p.sink.trigger),
        "source_template": f"sources/{p.source.connector}.py.j2",
        "sink_template": f"sinks/{p.sink.connector}.py.j2",
        "source": (source.tolerant_reader if lowered.dead_letters and source.tolerant_reader else source.reader)(p.source),
        "sink": sink.writer(p.sink, p.source),
        "table": {"columns": render.py_literal(tables.columns_ddl(p.sink, compiled.final))} if sink.writes_table else None,
        "per_batch": per_batch(p),
        "changelog_state": p.streaming and source.per_key_state,
        "uses_window": per_key_state(p) or reads_lines(p) or bool(table_formats_of(p.source, p.sink)),
        "table_formats": table_formats_of(p.source, p.sink),
        "dead_letters": lowered.dead_letters,
        "dlq": _dead_letter_context(p) if lowered.dead_letters else {},
        "decode": _lines(lowered.decode),
        "state_check": _lines(lowered.state_check) if lowered.state_check else [],
        "chain": [_lines(b) for b in lowered.chain],
        "encode": _lines(lowered.encode),
    }


@lru_cache(maxsize=1)
def _translated_templates():
    """compiler/emit/job_templates.py, or None while it is stale (a template changed since it was translated)."""
    from . import job_templates

    return job_templates if job_templates.TEMPLATES_SHA256 == templates_digest() else None


def render_template(name: str, ctx: dict) -> str:
    """Template `name` (its path under templates/) rendered with `ctx`, each substituted value marked."""
    translated = _translated_templates()
    if translated is not None:
        return translated.render(name, ctx, layout.mark)
    return template_environment().get_template(name).render(**ctx)


def job_context(compiled: Compiled, lowered: Lowered | None = None) -> dict:
    """Everything job.py.j2 and the templates it includes substitute (`lowered`: the pipeline's lowering, when
    the caller has it)."""
    ctx = context(compiled, lowered or lower(compiled))
    body = "\n".join(ctx["decode"] + [line for b in ctx["chain"] for line in b] + ctx["encode"])
    ctx["uses_avro"] = any(f"A.{name}(" in body for name in render.AVRO_FUNCTIONS)
    return ctx


def _rendered(compiled: Compiled, lowered: Lowered | None = None) -> str:
    return render_template("job.py.j2", job_context(compiled, lowered))


def job_text(compiled: Compiled) -> str:
    """The job's source as rendered, before its template lines with substituted values are laid out (the same
    code: the layout changes only line breaks and spaces)."""
    return _rendered(compiled).replace(layout.MARK, "")


def generate(compiled: Compiled, lowered: Lowered | None = None) -> Job:
    """Render, and lay out what was substituted as black would."""
    name = compiled.pipeline.name
    return Job(name, f"{name}.py", layout.finish(_rendered(compiled, lowered)))
