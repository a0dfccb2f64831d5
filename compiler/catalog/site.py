"""Every page of the site, rendered through jinja2 with autoescaping from the compiled pipelines (`command.build`):
file path under the site -> text. Nothing here reads the YAML but through the compiler; the same pipelines, jobs
and pipec give the same bytes."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .. import __version__
from ..resolve.builder import Compiled
from ..tools.graph import build_graph
from . import fragments
from .changes import what_ifs
from .datasets import Dataset, datasets, kind_words
from .facts import PipelineFacts, pipeline_facts, search_terms, sink_words, source_words
from .fragments import fields_table, stage
from .listing import job_listing, yaml_listing
from .svg import Around, draw

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
ASSETS = ("site.css", "site.js")  # copied from templates/ to assets/
SPARK_NEEDED = re.compile(r'^SPARK_NEEDED = "([^"]+)"', re.M)  # the job's constant (templates/job.py.j2)


@lru_cache(maxsize=1)
def environment():
    """jinja2's environment of the site's templates, autoescaped; their compiled code is kept in the job cache's
    folder (jinja2 checks each template's source against it), where a cache is on."""
    import jinja2

    from ..project.job_cache import default_dir

    folder = default_dir()
    cache = None
    if folder is not None:
        try:
            (folder / "docs-templates").mkdir(parents=True, exist_ok=True)
            cache = jinja2.FileSystemBytecodeCache(str(folder / "docs-templates"))
        except OSError:
            pass  # a cache that cannot be written only costs time
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        bytecode_cache=cache,
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals.update(fields=fields_table, stage=stage)
    return env


@dataclass(frozen=True, slots=True)
class Entry:
    """A pipeline's row in the index, and its page's facts."""

    facts: PipelineFacts
    source: str
    sink: str
    spark_line: str
    terms: str  # the search terms, as JSON
    job_name: str
    job_text: str
    yaml_text: str


def spark_line(compiled: Compiled, job_text: str) -> str:
    """The oldest Spark line the job runs on (the job's SPARK_NEEDED) and the line the YAML declares, if any."""
    found = SPARK_NEEDED.search(job_text)
    needed = f"{found.group(1)}+" if found else "?"
    declared = compiled.pipeline.spark_version
    return f"{needed} (declares {declared})" if declared else needed


def _render(name: str, root: str, **context) -> str:
    return environment().get_template(name).render(root=root, version=__version__, **context)


class Site:
    """The pages of one site: built from the compiled pipelines and each one's job (file name, text) and YAML."""

    def __init__(self, compiled: list[Compiled], jobs: dict[str, tuple[str, str]], yaml_texts: dict[str, str]):
        self.compiled = {c.pipeline.name: c for c in compiled}
        self.graph = build_graph(compiled)
        self.around = Around(self.graph)
        self.facts = {name: pipeline_facts(c) for name, c in self.compiled.items()}
        self.datasets = datasets(self.graph, self.facts)
        self.node_of = {n.label: n.id for n in self.graph.nodes.values() if n.kind == "pipeline"}
        self.entries = {}
        for name, c in sorted(self.compiled.items()):
            job_name, job_text = jobs[name]
            self.entries[name] = Entry(
                self.facts[name],
                source_words(c.pipeline),
                sink_words(self.facts[name]),
                spark_line(c, job_text),
                json.dumps(search_terms(self.facts[name], self._dataset_terms(name)), ensure_ascii=False),
                job_name,
                job_text,
                yaml_texts[name],
            )

    def _dataset_terms(self, name: str) -> list[tuple[str, str]]:
        me = self.node_of[name]
        near = self.around.outputs(me) + self.around.inputs(me)
        return [
            (kind_words(self.datasets[d].kind).split(" ")[0], self.datasets[d].label)
            for d in near
            if d in self.datasets
        ]

    def hrefs(self, root: str) -> dict[str, str]:
        out = {self.node_of[name]: f"{root}pipelines/{name}.html" for name in self.compiled}
        out.update({d.id: f"{root}datasets/{d.page}" for d in self.datasets.values()})
        return out

    def uses(self, name: str) -> tuple[list[tuple[str, Dataset]], list[tuple[str, Dataset]]]:
        """(how, dataset) the pipeline reads, and writes."""
        me = self.node_of[name]
        reads = [(how, self.datasets[a]) for a, _, how in self.around.ins.get(me, ()) if a in self.datasets]
        writes = [(how, self.datasets[b]) for _, b, how in self.around.outs.get(me, ()) if b in self.datasets]
        return reads, writes

    def pages(self) -> dict[str, str]:
        try:
            return self._pages()
        finally:
            fragments.clear()

    def _pages(self) -> dict[str, str]:
        pages = {f"assets/{name}": (TEMPLATES / name).read_text(encoding="utf-8") for name in ASSETS}
        entries = list(self.entries.values())
        counts = {"pipelines": len(entries), "datasets": len(self.datasets)}
        pages["index.html"] = _render("index.html.j2", "", entries=entries, counts=counts, title="Pipelines")
        pages["graph.html"] = _render("graph.html.j2", "", graph=draw(self.graph, self.hrefs("")), title="Graph")
        pages["datasets.html"] = _render(
            "datasets.html.j2",
            "",
            datasets=sorted(self.datasets.values(), key=lambda d: (d.kind, d.label)),
            title="Datasets",
        )
        hrefs = self.hrefs("../")
        for name, entry in self.entries.items():
            pages[f"pipelines/{name}.html"] = self.pipeline_page(name, entry, hrefs)
            own, runtime = job_listing(entry.facts.pipeline, entry.job_text)
            pages[f"jobs/{name}.html"] = _render(
                "listing.html.j2", "../", entry=entry, title=entry.job_name, kind="job", listing=own, runtime=runtime
            )
            pages[f"yaml/{name}.html"] = _render(
                "listing.html.j2",
                "../",
                entry=entry,
                title=entry.facts.pipeline.file,
                kind="yaml",
                listing=yaml_listing(entry.yaml_text),
                runtime="",
            )
        for d in self.datasets.values():
            near, left_out = self.around.neighbourhood(d.id)
            pages[f"datasets/{d.page}"] = _render(
                "dataset.html.j2",
                "../",
                dataset=d,
                title=d.label,
                related=[self.datasets[m] for m in d.matches],
                graph=draw(near, hrefs, d.id),
                left_out=left_out,
            )
        return pages

    def pipeline_page(self, name: str, entry: Entry, hrefs: dict[str, str]) -> str:
        me = self.node_of[name]
        changes = what_ifs(self.compiled[name])
        common = set.intersection(*(set(w.reasons) for w in changes)) if changes else set()
        reads, writes = self.uses(name)
        near, left_out = self.around.neighbourhood(me)
        return _render(
            "pipeline.html.j2",
            "../",
            entry=entry,
            facts=entry.facts,
            p=entry.facts.pipeline,
            title=name,
            graph=draw(near, hrefs, me),
            left_out=left_out,
            reads=reads,
            writes=writes,
            changes=changes,
            common=sorted(common),
            common_set=common,
        )
