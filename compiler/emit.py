"""Lay out the job file: IR rendered to statements, jinja2 templates for the layout, black for the format."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from . import __version__, render
from .build import Compiled
from .envrefs import Text
from .lower import Lowered, lower
from .model import Pipeline, Sink, Source
from .types import StructField, StructType

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
SPARK_VERSION_PLACEHOLDER = "{spark}"


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
    )


def text_expr(text: Text | None) -> str:
    """Python source for a configured string: `env("...")` when it holds references, else a literal."""
    if text is None:
        return "None"
    return f"env({render.py_literal(text.raw)})" if text.has_env else render.py_literal(text.literal)


def spark_version() -> str:
    """The pyspark version jobs are generated for (the installed one), read without importing pyspark."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pyspark")
    except PackageNotFoundError:
        return "4.0.0"


def _source_context(source: Source, pipeline: Pipeline) -> dict:
    physical = StructType(tuple(StructField(c.name, c.type) for c in source.columns if c.physical))
    return {
        "schema": render.py_literal(table_ddl(physical)),
        "format": render.py_literal(source.format),
        "options": render.py_literal(dict(source.options)),
        "path": text_expr(source.path),
        "summary": f"{source.format} files at {source.path.raw if source.path else '?'}; each row is one record value.",
    }


def table_ddl(t: StructType) -> str:
    """A reader schema in Spark DDL: every column name backtick-quoted."""
    return ", ".join("`" + f.name.replace("`", "``") + "` " + f.type.ddl() for f in t.fields)


def _sink_context(sink: Sink) -> dict:
    options = dict(sink.options)
    if sink.format == "json":
        options.setdefault("ignoreNullFields", "false")  # json writes null fields, as Kafka Connect and Flink do
    return {
        "format": render.py_literal(sink.format),
        "options": render.py_literal(options),
        "partition_by": render.py_literal(list(sink.partition_by)),
        "path": text_expr(sink.path),
        "checkpoint": text_expr(sink.checkpoint),
        "summary": f"{sink.connector} sink" + (f": {sink.format} files at {sink.path.raw}" if sink.path else "") + ".",
    }


def _lines(block) -> list[str]:
    return render.block(block)


def context(compiled: Compiled, lowered: Lowered) -> dict:
    p = compiled.pipeline
    packages = [pkg.replace(SPARK_VERSION_PLACEHOLDER, spark_version()) for pkg in lowered.packages]
    conf = {"spark.sql.session.timeZone": "UTC", "spark.sql.ansi.enabled": "true", "spark.sql.mapKeyDedupPolicy": "LAST_WIN"}
    conf = {**dict(p.spark_conf), **conf}
    job_path = f"generated/{p.name}.py"
    return {
        "name": p.name,
        "name_literal": render.py_literal(p.name),
        "description_line": render.comment_text(p.description or f"compiled from {p.file}").replace('"""', "'''").replace("\\", "/"),
        "version": __version__,
        "file": render.comment_text(p.file).replace('"""', "'''").replace("\\", "/"),
        "sha256": p.sha256,
        "streaming": "True" if p.streaming else "False",
        "is_streaming": p.streaming,
        "packages_literal": render.py_literal(packages),
        "packages_text": ", ".join(packages) or "none (no connector jars needed)",
        "packages_flag": f"--packages {','.join(packages)} " if packages else "",
        "job_path": job_path,
        "session_conf": render.py_literal(conf),
        "trigger": render.py_literal(p.sink.trigger),
        "source_template": f"sources/{p.source.connector}.py.j2",
        "sink_template": f"sinks/{p.sink.connector}.py.j2",
        "source": _source_context(p.source, p),
        "sink": _sink_context(p.sink),
        "decode": _lines(lowered.decode),
        "chain": [_lines(b) for b in lowered.chain],
        "encode": _lines(lowered.encode),
    }


def generate(compiled: Compiled) -> Job:
    """Render, check that it compiles, format with black, and check the format is stable."""
    from .format import format_python

    text = _environment().get_template("job.py.j2").render(**context(compiled, lower(compiled)))
    name = compiled.pipeline.name
    return Job(name, f"{name}.py", format_python(text, f"generated/{name}.py"))
