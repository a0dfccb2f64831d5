"""`pipec graph PATH...`: which pipeline reads and writes which topic or folder, grouped by the pipelines' folders,
as Mermaid, DOT or SVG (through Graphviz's `dot` when it is on PATH); or column lineage as OpenLineage events."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..connectors import SINKS, SOURCES
from ..diagnostics import render_all
from ..project.driver import build_all
from ..resolve.builder import Compiled
from .contract import routes, writes_kafka


@dataclass(frozen=True, slots=True)
class Node:
    id: str
    label: str
    kind: str  # pipeline | topic | env-topic | pattern | routed | folder


@dataclass(slots=True)
class Graph:
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[tuple[str, str, str]] = field(
        default_factory=list
    )  # (from, to, label: "" | "dead letters" | "matches")
    groups: dict[str, list[str]] = field(default_factory=dict)  # folder -> pipeline node ids

    def node(self, kind: str, label: str) -> str:
        """The id of the node for (kind, label), made on first use: p1, p2... for pipelines, d1, d2... for data."""
        for n in self.nodes.values():
            if (n.kind, n.label) == (kind, label):
                return n.id
        prefix = "p" if kind == "pipeline" else "d"
        node_id = f"{prefix}{sum(1 for n in self.nodes.values() if n.id[0] == prefix) + 1}"
        self.nodes[node_id] = Node(node_id, label, kind)
        return node_id

    def edge(self, a: str, b: str, label: str = "") -> None:
        if (a, b, label) not in self.edges:
            self.edges.append((a, b, label))


def _topic(graph: Graph, text) -> str:
    return graph.node("env-topic" if text.has_env else "topic", text.raw)


def build_graph(compiled: list[Compiled]) -> Graph:
    graph = Graph()
    for c in sorted(compiled, key=lambda c: (c.pipeline.file, c.pipeline.name)):
        p = c.pipeline
        me = graph.node("pipeline", p.name)
        graph.groups.setdefault(str(PurePosixPath(p.file).parent), []).append(me)
        src, sink = p.source, p.sink
        if SOURCES[src.connector].reads_files:
            graph.edge(graph.node("folder", src.config.path.raw), me)
        elif SOURCES[src.connector].reads_table:  # the node a sink writing the same table names: a chain of tables
            where = src.config.path.raw if src.config.path else src.config.table
            graph.edge(graph.node("table", f"{src.connector} table {where}"), me)
        elif src.config.topic_pattern is not None:
            graph.edge(graph.node("pattern", src.config.topic_pattern.raw), me)
        for t in src.config.topics:
            graph.edge(_topic(graph, t), me)
        routers = [s for s in p.steps if routes(s)]
        if writes_kafka(sink):
            if sink.config.topic is not None and not routers:
                graph.edge(me, _topic(graph, sink.config.topic))
            for s in routers:
                graph.edge(me, graph.node("routed", f"{s.alias}: {s.type_name}"))
            if sink.config.topic is None and not routers:
                for t in src.config.topics or ():
                    graph.edge(me, _topic(graph, t), "same topic")
        elif SINKS[sink.connector].writes_table:
            graph.edge(
                me,
                graph.node(
                    "table", f"{sink.connector} table {sink.config.path.raw if sink.config.path else sink.config.table}"
                ),
            )
        elif sink.config.path is not None:
            graph.edge(me, graph.node("folder", sink.config.path.raw))
        if p.errors.dlq_topic is not None:
            graph.edge(me, _topic(graph, p.errors.dlq_topic), "dead letters")
        elif p.errors.dlq_path is not None:
            graph.edge(me, graph.node("folder", p.errors.dlq_path.raw), "dead letters")
    for pattern in [n for n in graph.nodes.values() if n.kind == "pattern"]:
        for topic in [n for n in graph.nodes.values() if n.kind == "topic"]:
            try:
                if re.fullmatch(pattern.label, topic.label):
                    graph.edge(topic.id, pattern.id, "matches")
            except re.error:
                pass
    return graph


# ------------------------------------------------------------------ Mermaid

MERMAID_SHAPES = {
    "pipeline": '["{}"]',
    "topic": '(["{}"])',
    "env-topic": '(["{}"])',
    "pattern": '{{"{}"}}',
    "routed": '[/"{}"/]',
    "folder": '[("{}")]',
    "table": '[("{}")]',
}
MERMAID_LABELS = {"env-topic": "{} (from the environment)", "pattern": "topics matching {}", "routed": "routed by {}"}


def _mermaid_text(text: str) -> str:
    return text.replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")


def mermaid(graph: Graph) -> str:
    lines = ["flowchart LR"]
    in_groups = {n for ids in graph.groups.values() for n in ids}
    for i, (folder, ids) in enumerate(sorted(graph.groups.items())):
        lines.append(f'  subgraph folder{i}["{_mermaid_text(folder + "/")}"]')
        lines += [f"    {n}{MERMAID_SHAPES['pipeline'].format(_mermaid_text(graph.nodes[n].label))}" for n in ids]
        lines.append("  end")
    for n in graph.nodes.values():
        if n.id not in in_groups:
            label = MERMAID_LABELS.get(n.kind, "{}").format(n.label)
            lines.append(f"  {n.id}{MERMAID_SHAPES[n.kind].format(_mermaid_text(label))}")
    for a, b, label in graph.edges:
        arrow = "-.->" if label in ("dead letters", "matches") else "-->"
        lines.append(f"  {a} {arrow}" + (f"|{_mermaid_text(label)}|" if label else "") + f" {b}")
    env = [n.id for n in graph.nodes.values() if n.kind == "env-topic"]
    if env:
        lines += ["  classDef env stroke-dasharray: 4 3", f"  class {','.join(env)} env"]
    return "\n".join(lines)


# ------------------------------------------------------------------ DOT

DOT_SHAPES = {
    "pipeline": "box",
    "topic": "ellipse",
    "env-topic": "ellipse",
    "pattern": "hexagon",
    "routed": "parallelogram",
    "folder": "folder",
    "table": "cylinder",
}


def _dot_text(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dot(graph: Graph) -> str:
    lines = ["digraph pipec {", "  rankdir=LR;", "  node [fontname=Helvetica];"]
    in_groups = {n for ids in graph.groups.values() for n in ids}
    for i, (folder, ids) in enumerate(sorted(graph.groups.items())):
        lines.append(f"  subgraph cluster_{i} {{")
        lines.append(f"    label={_dot_text(folder + '/')};")
        lines += [f"    {n} [shape=box, style=rounded, label={_dot_text(graph.nodes[n].label)}];" for n in ids]
        lines.append("  }")
    for n in graph.nodes.values():
        if n.id not in in_groups:
            style = ", style=dashed" if n.kind == "env-topic" else ""
            label = MERMAID_LABELS.get(n.kind, "{}").format(n.label)
            lines.append(f"  {n.id} [shape={DOT_SHAPES[n.kind]}{style}, label={_dot_text(label)}];")
    for a, b, label in graph.edges:
        attrs = [f"label={_dot_text(label)}"] if label else []
        if label in ("dead letters", "matches"):
            attrs.append("style=dashed")
        lines.append(f"  {a} -> {b}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    lines.append("}")
    return "\n".join(lines)


def svg(graph: Graph) -> str:
    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError(
            "--format svg needs Graphviz's `dot` on PATH (Debian: apt-get install graphviz); "
            "--format dot writes the graph's source instead"
        )
    proc = subprocess.run([exe, "-Tsvg"], input=dot(graph), capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise RuntimeError(f"dot failed: {proc.stderr.strip()}")
    return proc.stdout


def render_graph(args) -> int:
    result = build_all(args.paths)
    if result.diags.errors:
        print(render_all(result.diags.errors), file=sys.stderr)
        return 2
    if args.format == "openlineage":
        import json

        from .openlineage import run_event, write_events

        if args.out:
            for path in write_events(args.paths, Path(args.out)):
                print(f"wrote {path}", file=sys.stderr)
        else:
            print(json.dumps([run_event(c) for c in result.compiled], indent=2))
        return 0
    graph = build_graph(result.compiled)
    try:
        text = {"mermaid": mermaid, "dot": dot, "svg": svg}[args.format](graph)
    except RuntimeError as exc:
        print(f"pipec graph: {exc}", file=sys.stderr)
        return 2
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        print(text)
    return 0
