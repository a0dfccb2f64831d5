"""Lay out the job file: IR rendered to statements, jinja2 templates for the layout, black's format written by
the printer (`layout.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from . import __version__, layout, render, spark_versions
from .build import Compiled
from .envrefs import Text
from .lower import Lowered, lower
from .connectors.payload import CSV_OPTIONS, JSON_OPTIONS
from .connectors.files import reader_schema
from .connectors.upsert_kafka import UPSERT_KAFKA
from .model import Pipeline, Sink, Source
from .package_data import TEMPLATES
from .targets import job_needs
from .types import StructType


@dataclass(frozen=True)
class Job:
    """A generated job: its file name and its black-formatted source."""

    name: str
    filename: str
    source: str


@lru_cache(maxsize=1)
def _environment():
    import jinja2  # lazily: `validate` never renders

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=layout.mark,
    )


def _files_context(source: Source) -> dict:
    return {
        "schema": render.py_literal(table_ddl(reader_schema(source))),
        "format": render.py_literal(source.format),
        "options": render.py_literal(dict(source.options)),
        "path": render.path_expr(source.path),
        "summary": render.doc_text(f"{source.format} files at {source.path.raw if source.path else '?'}; each row is one record value."),
    }


# JVM options for a job that starts Spark's JVM itself (`python job.py`): HotSpot otherwise leaves generated
# methods over 8,000 bytes of bytecode to the interpreter, and a long chain's whole-stage code passes that.
JVM_OPTIONS = "-XX:-DontCompileHugeMethods"

STARTING_OFFSETS = {"earliest-offset": "earliest", "latest-offset": "latest"}


def _kafka_context(source: Source) -> dict:
    """Spark Kafka reader options; values that may hold ${env:...} stay env() calls resolved at run time."""
    props = dict(source.properties)
    items = [("kafka.bootstrap.servers", f"args.bootstrap_servers or {render.text_expr(props.pop('bootstrap.servers', None))}")]
    if source.topics:
        joined = ",".join(t.raw for t in source.topics)
        items.append(("subscribe", render.text_expr(Text(joined))))
    else:
        items.append(("subscribePattern", render.text_expr(source.topic_pattern)))
    mode = source.startup.get("mode", "earliest-offset")
    if mode in STARTING_OFFSETS:
        items.append(("startingOffsets", render.py_literal(STARTING_OFFSETS[mode])))
    elif mode == "timestamp":
        items.append(("startingTimestamp", render.text_expr(Text(str(source.startup["timestamp-millis"])))))
        items.append(("startingOffsetsByTimestampStrategy", render.py_literal("latest")))
    else:
        spec = render.text_expr(Text(str(source.startup["specific-offsets"])))
        items.append(("startingOffsets", f"specific_offsets({render.text_expr(source.topics[0])}, {spec})"))
    items.append(("includeHeaders", render.py_literal("true")))
    items += [(f"kafka.{k}", render.text_expr(v)) for k, v in props.items()]
    items += [(k, render.py_literal(v)) for k, v in source.options]
    topics = ", ".join(t.raw for t in source.topics) or (source.topic_pattern.raw if source.topic_pattern else "")
    return {
        "options": render.dict_expr(items),
        "specific_offsets": mode == "specific-offsets",
        "summary": render.doc_text(f"Kafka {topics} ({source.format} values, {source.key_format} keys) via Spark's Kafka source."),
    }


SOURCE_CONTEXT = {"files": _files_context, "kafka": _kafka_context, "upsert-kafka": _kafka_context}


def table_ddl(t: StructType) -> str:
    """A reader schema in Spark DDL: every column name backtick-quoted."""
    return ", ".join("`" + f.name.replace("`", "``") + "` " + f.type.ddl() for f in t.fields)


def _kafka_sink_context(sink: Sink, source: Source) -> dict:
    """Spark Kafka writer options: bootstrap servers (CLI, sink, else the source's), producer properties."""
    props = dict(sink.properties)
    servers = props.pop("bootstrap.servers", None) or dict(source.properties).get("bootstrap.servers")
    items = [("kafka.bootstrap.servers", f"args.bootstrap_servers or {render.text_expr(servers)}")]
    items += [(f"kafka.{k}", render.text_expr(v)) for k, v in props.items()]
    items += [(k, render.py_literal(v)) for k, v in sink.options]
    where = f"topic {sink.topic.raw}" if sink.topic else "each record's own topic"
    kind = "Upsert-kafka sink (key: primary key; -D a tombstone)" if sink.primary_key else "Kafka sink"
    return {
        "options": render.dict_expr(items),
        "checkpoint": render.path_expr(sink.checkpoint),
        "summary": render.doc_text(f"{kind}: {sink.format} values to {where} (at least once)."),
    }


def _sink_context(sink: Sink, source: Source) -> dict:
    if sink.connector in KAFKA_SINKS:
        return _kafka_sink_context(sink, source)
    options = dict(sink.options)
    defaults = {"json": JSON_OPTIONS, "csv": CSV_OPTIONS}.get(sink.format, {})
    options = {**defaults, **options}  # json writes null fields and csv quotes as RFC 4180, as Flink does
    return {
        "format": render.py_literal(sink.format),
        "options": render.py_literal(options),
        "partition_by": render.py_literal(list(sink.partition_by)),
        "path": render.path_expr(sink.path),
        "checkpoint": render.path_expr(sink.checkpoint),
        "summary": render.doc_text(f"{sink.connector} sink" + (f": {sink.format} files at {sink.path.raw}" if sink.path else "") + "."),
    }


KAFKA_SINKS = ("kafka", UPSERT_KAFKA)


def per_batch(p: Pipeline) -> bool:
    """Streaming through foreachBatch: per-key work (the changelog state, the upsert reduction) needs whole micro-batches."""
    return p.streaming and UPSERT_KAFKA in (p.source.connector, p.sink.connector)


def _dead_letter_context(p: Pipeline) -> dict:
    """Where dead letters go (errors.tolerance: all): a Kafka topic through the source's cluster, or JSON files."""
    policy = p.errors
    props = dict(p.source.properties)
    own = dict(policy.dlq_properties)
    servers = props.pop("bootstrap.servers", None)
    if "bootstrap.servers" in own:  # another cluster: --bootstrap-servers is the source's
        options = [("kafka.bootstrap.servers", render.text_expr(own.pop("bootstrap.servers")))]
    else:
        options = [("kafka.bootstrap.servers", f"args.bootstrap_servers or {render.text_expr(servers)}")]
    options += [(f"kafka.{k}", render.text_expr(v)) for k, v in {**props, **own}.items()]
    target = f"Kafka topic {policy.dlq_topic.raw}" if policy.dlq_topic else f"JSON lines at {policy.dlq_path.raw if policy.dlq_path else '?'}"
    return {
        "topic": render.text_expr(policy.dlq_topic) if policy.dlq_topic else None,
        "path": render.path_expr(policy.dlq_path),
        "options": render.dict_expr(options),
        "context_headers": policy.context_headers,
        "log": policy.log,
        "log_messages": policy.log_messages,
        "summary": render.doc_text(f"Dead letters, untouched, to the {target}."),
    }


def _lines(block) -> list[str]:
    return layout.block_lines(block)


def _spark_context(lowered: Lowered) -> dict:
    """The connectors (their coordinates chosen by the job from its Spark) and the oldest Spark line it needs."""
    line = spark_versions.DEFAULT_LINE
    shown = spark_versions.coordinates(spark_versions.LINES[line].connectors, lowered.packages)
    needed, names = job_needs(lowered)
    return {
        "connectors_literal": render.py_literal(list(lowered.packages)),
        "spark_lines": render.py_literal(spark_versions.job_tables()),
        "spark_needed": render.py_literal(needed),
        "spark_needed_by": f" ({', '.join(names)})" if names else "",
        "packages_text": f"{', '.join(shown)} on Spark {line} (each Spark line its own: see --help)" if shown else "none (no connector jars needed)",
        "packages_flag": f"--packages {','.join(shown)} " if shown else "",
    }


def context(compiled: Compiled, lowered: Lowered) -> dict:
    p = compiled.pipeline
    conf = {"spark.sql.session.timeZone": "UTC", "spark.sql.ansi.enabled": "true", "spark.sql.mapKeyDedupPolicy": "LAST_WIN"}
    if p.sink.connector in KAFKA_SINKS and not p.streaming or per_batch(p):
        # Kafka's batch write through the V2 path, where Spark's observed metrics (the job's counts) reach the
        # Observation; through the V1 path they never do and the counts would wait forever.
        conf["spark.sql.sources.useV1SourceList"] = "avro,csv,json,orc,parquet,text"
    conf = {**dict(p.spark_conf), **conf}
    job_path = f"generated/{p.name}.py"
    return {
        "name": p.name,
        "name_literal": render.py_literal(p.name),
        "description_line": render.doc_text(p.description or f"compiled from {p.file}"),
        "version": __version__,
        "file": render.doc_text(p.file),
        "sha256": p.sha256,
        "streaming": "True" if p.streaming else "False",
        "is_streaming": p.streaming,
        **_spark_context(lowered),
        "job_path": job_path,
        "session_conf": render.py_literal(conf),
        "jvm_options": render.py_literal(JVM_OPTIONS),
        "jvm_options_text": JVM_OPTIONS,
        "trigger": render.py_literal(p.sink.trigger),
        "source_template": f"sources/{p.source.connector}.py.j2",
        "sink_template": f"sinks/{p.sink.connector}.py.j2",
        "source": SOURCE_CONTEXT[p.source.connector](p.source),
        "sink": _sink_context(p.sink, p.source),
        "per_batch": per_batch(p),
        "changelog_state": p.streaming and p.source.connector == UPSERT_KAFKA,
        "uses_window": UPSERT_KAFKA in (p.source.connector, p.sink.connector),
        "dead_letters": lowered.dead_letters,
        "dlq": _dead_letter_context(p) if lowered.dead_letters else {},
        "decode": _lines(lowered.decode),
        "chain": [_lines(b) for b in lowered.chain],
        "encode": _lines(lowered.encode),
    }


def _rendered(compiled: Compiled) -> str:
    ctx = context(compiled, lower(compiled))
    body = "\n".join(ctx["decode"] + [line for b in ctx["chain"] for line in b] + ctx["encode"])
    ctx["uses_avro"] = any(f"A.{name}(" in body for name in render.AVRO_FUNCTIONS)
    return _environment().get_template("job.py.j2").render(**ctx)


def job_text(compiled: Compiled) -> str:
    """The job's source as rendered, before its template lines with substituted values are laid out (the same
    code: the layout changes only line breaks and spaces)."""
    return _rendered(compiled).replace(layout.MARK, "")


def generate(compiled: Compiled) -> Job:
    """Render, and lay out what was substituted as black would."""
    name = compiled.pipeline.name
    return Job(name, f"{name}.py", layout.finish(_rendered(compiled)))
