"""`pipec docs` without a browser: the site's data for the examples against a golden file, escaping of hostile
YAML strings, determinism, `--check`, the folder rules, and the anchors the pages link to."""

from __future__ import annotations

import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from pipec.catalog.command import build, build_pages
from pipec.catalog.output import MANIFEST
from pipec.catalog.site import Site
from pipec.cli import main
from pipec.ir import field_names
from pipec.lower.record_path import lower
from pipec.lower.spark_line import job_needs

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden" / "examples.json"
UPDATE = os.environ.get("PIPEC_UPDATE_GOLDEN") == "1"


def plain(value):
    """Records, tuples and dicts as JSON values (the pipeline itself by name only)."""
    names = field_names(value)
    if names is not None:
        if "sha256" in names:  # the Pipeline: its name stands for it
            return value.name
        return {n: plain(getattr(value, n)) for n in names}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "sql"):
        return value.sql()
    return value


def site_data(site: Site) -> dict:
    from pipec.catalog.changes import what_ifs

    out = {"pipelines": {}, "datasets": {}}
    for name, e in site.entries.items():
        f = e.facts
        out["pipelines"][name] = {
            "index": {
                "source": e.source,
                "sink": e.sink,
                "spark": e.spark_line,
                "mode": f.pipeline.mode,
                "meta": plain(f.pipeline.meta),
                "terms": json.loads(e.terms),
            },
            "stages": plain(f.stages),
            "sink_columns": plain(f.sink_columns),
            "lineage": plain(f.lineage),
            "record_inputs": plain(f.record_inputs),
            "tests": plain(f.tests),
            "errors": plain(f.errors),
            "changes": [[w.change, w.verdict] for w in what_ifs(site.compiled[name])],
        }
    for d in site.datasets.values():
        out["datasets"][f"{d.kind} {d.label}"] = {
            "page": d.page,
            "writers": plain(d.writers),
            "readers": [u.pipeline for u in d.readers],
            "matches": [site.datasets[m].label for m in d.matches],
        }
    return out


@pytest.fixture(scope="module")
def examples(tmp_path_factory) -> tuple[Site, dict[str, str]]:
    os.chdir(ROOT)  # file names as the repository's jobs give them
    result, jobs, texts = build(["pipelines"], ROOT / "generated")
    assert not result.diags.errors
    site = Site(result.compiled, jobs, texts)
    return site, site.pages()


def test_examples_site_data_matches_golden(examples):
    site, _ = examples
    data = json.dumps(site_data(site), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    if UPDATE:
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(data, encoding="utf-8")
    assert data == GOLDEN.read_text(encoding="utf-8"), "PIPEC_UPDATE_GOLDEN=1 accepts the site's data; review the diff"


def test_every_page_of_the_examples_is_there_and_links_resolve(examples):
    site, pages = examples
    names = sorted(site.entries)
    for name in names:
        for folder in ("pipelines", "jobs", "yaml"):
            assert f"{folder}/{name}.html" in pages
    assert {"index.html", "graph.html", "datasets.html", "assets/site.css", "assets/site.js"} <= set(pages)
    for path, text in pages.items():
        if not path.endswith(".html"):
            continue
        for target in re.findall(r'(?:href|src)="([^"#?]+)', text):
            if target.startswith(("data:", "http://www.w3.org")):
                continue
            assert not re.match(r"[a-z]+:", target), f"{path} links outside the site: {target}"
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), target)).replace(os.sep, "/")
            assert resolved in pages, f"{path} links to {target}, which the site does not have"


def test_job_pages_anchor_the_source_every_step_and_the_sink(examples):
    site, pages = examples
    for name, entry in site.entries.items():
        page = pages[f"jobs/{name}.html"]
        for anchor in ["source", "sink"] + [f"step-{i}" for i in range(1, len(entry.facts.pipeline.steps) + 1)]:
            assert page.count(f'id="{anchor}"') == 1, f"{name}: #{anchor}"
        assert 'id="L1"' in pages[f"yaml/{name}.html"]


def test_spark_line_is_the_line_the_job_needs(examples):
    site, _ = examples
    for name, c in site.compiled.items():
        needed, _ = job_needs(lower(c), c.pipeline.sink.real_time)
        assert site.entries[name].spark_line.startswith(f"{needed}+"), name


HOSTILE = """\
version: 1
name: hostile
description: "<script>alert('d')</script> & \\"quotes\\" </title>"
mode: streaming
meta: {owner: "<img src=x onerror=alert('o')>", "on-call<b>": "x&y"}
source:
  connector: kafka
  topics: ["</script><script>alert('t')</script>", "a\\"><svg onload=alert(1)>"]
  properties: {bootstrap.servers: localhost:9092}
  value: {format: json}
  columns:
    - {name: "a<b>", type: STRING}
    - {name: n, type: "STRUCT<`x</td>` STRING>"}
transforms:
  - {name: "step\\"><script>alert('s')</script>", type: InsertField$Value, static.field: "f<i>", static.value: "<u>v</u>"}
sink:
  connector: kafka
  topic: "out'><iframe src=javascript:alert(2)>"
  properties: {bootstrap.servers: localhost:9092}
  value: {format: json}
  checkpoint: "/tmp/<b>cp</b>"
tests:
  - name: "<marquee>t</marquee>"
    given: [{value: {"a<b>": "<blink>"}}]
    expect: [{value: {"a<b>": "<blink>", "f<i>": "<u>v</u>"}}]
"""
ALLOWED_TAGS = {
    "html",
    "head",
    "meta",
    "title",
    "link",
    "body",
    "header",
    "a",
    "span",
    "nav",
    "form",
    "input",
    "main",
    "section",
    "h1",
    "h2",
    "h3",
    "h4",
    "p",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "div",
    "footer",
    "script",
    "dl",
    "dt",
    "dd",
    "code",
    "strong",
    "ol",
    "ul",
    "li",
    "pre",
    "em",
    "details",
    "summary",
    "svg",
    "defs",
    "marker",
    "path",
    "g",
    "rect",
    "text",
    "article",
}


class Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.handlers, self.scripts = set(), [], []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.handlers += [name for name, _ in attrs if name.startswith("on")]
        if tag == "script":
            self.scripts.append(dict(attrs).get("src"))


def test_hostile_strings_are_escaped_everywhere(tmp_path):
    (tmp_path / "hostile.yaml").write_text(HOSTILE, encoding="utf-8")
    pages = build_pages([str(tmp_path)], tmp_path / "generated")
    assert pages is not None
    for path, text in pages.items():
        if not path.endswith(".html"):
            continue
        parser = Tags()
        parser.feed(text)
        assert parser.tags <= ALLOWED_TAGS, f"{path}: {parser.tags - ALLOWED_TAGS}"
        assert not parser.handlers, f"{path}: event handler attributes {parser.handlers}"
        assert all(src and src.endswith("assets/site.js") for src in parser.scripts), path
    page = pages["pipelines/hostile.html"]
    assert "&lt;script&gt;alert(&#39;d&#39;)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(&#39;o&#39;)&gt;" in page
    assert "&lt;marquee&gt;t&lt;/marquee&gt;" in page
    index = pages["index.html"]
    terms = re.search(r'data-terms="([^"]*)"', index).group(1)  # the search data, as an attribute, whole
    assert "&lt;/script&gt;" in terms and "<" not in terms


def test_the_same_pipelines_give_the_same_bytes(tmp_path):
    os.chdir(ROOT)
    first = build_pages(["pipelines"], ROOT / "generated")
    second = build_pages(["pipelines"], ROOT / "generated")
    assert first == second


def test_docs_writes_checks_and_removes_what_is_gone(tmp_path, capsys):
    os.chdir(ROOT)
    site, work = tmp_path / "site", tmp_path / "pipelines"
    work.mkdir()
    for name in ("orders_enriched", "clicks_traced"):
        (work / f"{name}.yaml").write_text(
            (ROOT / "pipelines" / f"{name}.yaml").read_text(encoding="utf-8"), encoding="utf-8"
        )
    assert main(["docs", str(work), "--out", str(site)]) == 0
    assert (site / "pipelines" / "clicks_traced.html").is_file() and (site / MANIFEST).is_file()
    assert main(["docs", str(work), "--out", str(site), "--check"]) == 0

    yaml = work / "clicks_traced.yaml"
    yaml.write_text(
        yaml.read_text(encoding="utf-8").replace("Keep only traced clicks", "Keep traced clicks"), encoding="utf-8"
    )
    capsys.readouterr()
    assert main(["docs", str(work), "--out", str(site), "--check"]) == 1
    err = capsys.readouterr().err
    assert "pipelines/clicks_traced.html: differs" in err and "run: pipec docs" in err
    assert "orders_enriched.html" not in err

    (work / "clicks_traced.yaml").unlink()
    assert main(["docs", str(work), "--out", str(site), "--check"]) == 1
    assert "clicks_traced.html: no longer part of the site" in capsys.readouterr().err
    assert main(["docs", str(work), "--out", str(site)]) == 0
    assert not (site / "pipelines" / "clicks_traced.html").exists()
    assert main(["docs", str(work), "--out", str(site), "--check"]) == 0


def test_docs_never_writes_into_a_folder_it_did_not_write(tmp_path, capsys):
    os.chdir(ROOT)
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me", encoding="utf-8")
    assert main(["docs", "pipelines/orders_enriched.yaml", "--out", str(folder)]) == 2
    assert "did not write" in capsys.readouterr().err
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]


def test_invalid_pipelines_write_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\nname: bad\nsource: {connector: nope}\n", encoding="utf-8")
    assert main(["docs", str(bad), "--out", str(tmp_path / "site")]) == 2
    assert "bad.yaml:" in capsys.readouterr().err
    assert not (tmp_path / "site").exists()


def test_meta_takes_only_scalar_values(tmp_path, capsys):
    text = (ROOT / "pipelines" / "orders_enriched.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "p.yaml"
    bad.write_text(text.replace("  owner: checkout\n", "  owner: {team: checkout}\n"), encoding="utf-8")
    assert main(["validate", str(bad)]) == 2
    assert "meta" in capsys.readouterr().err


def test_checks_after_the_model_still_stop_the_site(tmp_path, capsys):
    """A job's Spark line is checked when docs compiles it (no job cache here): E900 stops the site as it stops
    `pipec compile`."""
    fixture = ROOT / "tests" / "cli" / "fixtures" / "errors" / "spark_version_too_old.yaml"
    assert main(["docs", str(fixture), "--out", str(tmp_path / "site")]) == 2
    assert "E900" in capsys.readouterr().err
    assert not (tmp_path / "site").exists()
