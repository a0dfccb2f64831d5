"""`pipec graph`'s graph (tools/graph.py) drawn as SVG at build time, with no Graphviz: data flows left to right.

A small layered drawing: cycles are broken by reversing the edges a depth-first search finds going back (a pipeline
writing the topic it reads); each node goes in the layer after its longest path of predecessors; a few sweeps of the
barycenter rule order each layer to cross fewer edges, pipelines of one folder kept together; edges are curves.
Every label is escaped; each node links to its page. The same graph gives the same bytes.
"""

from __future__ import annotations

from collections import defaultdict

from markupsafe import Markup, escape

from ..tools.graph import MERMAID_LABELS, Graph

CHAR_W, NODE_H, ROW_GAP, LAYER_GAP, PAD, GROUP_GAP = 7.0, 28, 14, 90, 20, 24
MAX_CHARS = 42  # longer labels are cut (the full label is the node's tooltip)
SWEEPS = 4


def _label(kind: str, text: str) -> str:
    return MERMAID_LABELS.get(kind, "{}").format(text)


def _short(text: str) -> str:
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


def _acyclic(ids: list[str], edges: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The edges with each one a depth-first search finds closing a cycle reversed."""
    out = defaultdict(list)
    for a, b in edges:
        out[a].append(b)
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    back: set[tuple[str, str]] = set()
    for start in ids:
        if start in state:
            continue
        stack = [(start, iter(out[start]))]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                back.add((node, child))
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(out[child])))
    return [(b, a) if (a, b) in back else (a, b) for a, b in edges if a != b]


def _layers(ids: list[str], edges: list[tuple[str, str]]) -> dict[str, int]:
    """Each node's layer: one more than its deepest predecessor's (edges must be acyclic)."""
    preds, succs = defaultdict(list), defaultdict(list)
    for a, b in edges:
        preds[b].append(a)
        succs[a].append(b)
    waiting = {n: len(preds[n]) for n in ids}
    ready = [n for n in ids if not waiting[n]]
    layer = {n: 0 for n in ids}
    while ready:
        node = ready.pop()
        for nxt in succs[node]:
            layer[nxt] = max(layer[nxt], layer[node] + 1)
            waiting[nxt] -= 1
            if not waiting[nxt]:
                ready.append(nxt)
    return layer


def _order(layers: list[list[str]], edges: list[tuple[str, str]], group: dict[str, str]) -> None:
    """Barycenter sweeps down and up, in place; ties keep the earlier order; a folder's pipelines stay together."""
    neighbours = defaultdict(list)
    for a, b in edges:
        neighbours[a].append(b)
        neighbours[b].append(a)
    for sweep in range(SWEEPS):
        position = {n: i for layer in layers for i, n in enumerate(layer)}
        sequence = layers[1:] if sweep % 2 == 0 else layers[-2::-1]
        for layer in sequence:

            def center(n: str, position: dict[str, int] = position) -> float:
                near = [position[m] for m in neighbours[n]]
                return sum(near) / len(near) if near else position[n]

            layer.sort(key=center)
            position.update({n: i for i, n in enumerate(layer)})
    for layer in layers:
        first = {}
        for i, n in enumerate(layer):
            first.setdefault(group.get(n, ""), i)
        layer.sort(key=lambda n: first[group.get(n, "")])


def draw(graph: Graph, hrefs: dict[str, str], highlight: str | None = None) -> Markup:
    """The graph as an <svg> element; `hrefs` maps node ids to links, `highlight` marks one node."""
    ids = list(graph.nodes)
    if not ids:
        return Markup('<p class="empty">No pipelines.</p>')
    group = {n: folder for folder, members in graph.groups.items() for n in members}
    plain = [(a, b) for a, b, _ in graph.edges if a in graph.nodes and b in graph.nodes]
    layer_of = _layers(ids, _acyclic(ids, plain))
    layers: list[list[str]] = [[] for _ in range(max(layer_of.values()) + 1)]
    for n in sorted(ids, key=lambda n: (group.get(n, ""), graph.nodes[n].kind != "pipeline", graph.nodes[n].label, n)):
        layers[layer_of[n]].append(n)
    _order(layers, plain, group)

    labels = {n: _label(graph.nodes[n].kind, graph.nodes[n].label) for n in ids}
    width = {n: max(80.0, CHAR_W * len(_short(labels[n])) + 28) for n in ids}
    xy: dict[str, tuple[float, float]] = {}
    boxes: list[tuple[str, float, float, float, float]] = []  # folder groups: (folder, x, y, w, h)
    x = PAD
    heights = []
    for layer in layers:
        y, col_w, previous = PAD, max(width[n] for n in layer), None
        for n in layer:
            g = group.get(n)
            if g is not None and g != previous:
                y += GROUP_GAP
            xy[n] = (x, y)
            y += NODE_H + ROW_GAP
            previous = g
        heights.append(y)
        for g in dict.fromkeys(group[n] for n in layer if n in group):
            members = [xy[n][1] for n in layer if group.get(n) == g]
            boxes.append(
                (g, x - 8, min(members) - GROUP_GAP + 4, col_w + 16, max(members) - min(members) + NODE_H + GROUP_GAP)
            )
        for n in layer:
            xy[n] = (x + (col_w - width[n]) / 2, xy[n][1])
        x += col_w + LAYER_GAP
    total_w, total_h = x - LAYER_GAP + PAD, max(heights) + PAD

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="{total_w:.0f}" height="{total_h:.0f}" '
        f'viewBox="0 0 {total_w:.0f} {total_h:.0f}" role="img" aria-label="pipelines and the data they read and write">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrowhead"/></marker></defs>',
    ]
    for folder, bx, by, bw, bh in boxes:
        parts.append(
            f'<g class="folder-group"><rect x="{bx:.1f}" y="{by:.1f}" width="{bw:.1f}" height="{bh:.1f}" rx="6"/>'
            f'<text x="{bx + 6:.1f}" y="{by + 13:.1f}">{escape(_short(folder + "/"))}</text></g>'
        )
    for a, b, label in graph.edges:
        if a not in xy or b not in xy or a == b:
            continue
        (ax, ay), (bx, by) = xy[a], xy[b]
        x1, y1, x2, y2 = ax + width[a], ay + NODE_H / 2, bx, by + NODE_H / 2
        if x2 > x1:
            bend = (x2 - x1) / 2
            d = f"M{x1:.1f},{y1:.1f} C{x1 + bend:.1f},{y1:.1f} {x2 - bend:.1f},{y2:.1f} {x2:.1f},{y2:.1f}"
        else:  # an edge going back (a cycle): round below both nodes
            low = max(y1, y2) + NODE_H + ROW_GAP
            d = f"M{x1:.1f},{y1:.1f} C{x1 + 60:.1f},{low:.1f} {x2 - 60:.1f},{low:.1f} {x2:.1f},{y2:.1f}"
        cls = "edge dashed" if label in ("dead letters", "matches") else "edge"
        title = f"<title>{escape(label)}</title>" if label else ""
        parts.append(f'<path class="{cls}" d="{d}" marker-end="url(#arrow)">{title}</path>')
        if label:
            parts.append(
                f'<text class="edge-label" x="{(x1 + x2) / 2:.1f}" y="{(y1 + y2) / 2 - 4:.1f}">{escape(label)}</text>'
            )
    for n in ids:
        node, (nx, ny), w = graph.nodes[n], xy[n], width[n]
        cls = f"node kind-{node.kind}" + (" current" if n == highlight else "")
        rx = NODE_H / 2 if node.kind in ("topic", "env-topic", "pattern") else 4
        shape = f'<rect x="{nx:.1f}" y="{ny:.1f}" width="{w:.1f}" height="{NODE_H}" rx="{rx:.0f}"/>'
        text = f'<text x="{nx + w / 2:.1f}" y="{ny + NODE_H / 2 + 4:.1f}">{escape(_short(labels[n]))}</text>'
        body = f"<title>{escape(labels[n])}</title>{shape}{text}"
        href = hrefs.get(n)
        parts.append(f'<a class="{cls}" href="{escape(href)}">{body}</a>' if href else f'<g class="{cls}">{body}</g>')
    parts.append("</svg>")
    return Markup("".join(parts))


NEAR_AT_MOST = 24  # nodes a page's own graph shows besides its centre (a topic may have hundreds of readers)

Edge = tuple[str, str, str]


class Around:
    """Each node's edges in and out, indexed once (pages ask around every node of a graph of thousands)."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.order = {n: i for i, n in enumerate(graph.nodes)}
        self.edge_at = {e: i for i, e in enumerate(graph.edges)}
        self.between: dict[tuple[str, str], list[Edge]] = defaultdict(list)
        self.group_of = {n: g for g, members in graph.groups.items() for n in members}
        self.ins: dict[str, list[Edge]] = defaultdict(list)
        self.outs: dict[str, list[Edge]] = defaultdict(list)
        for e in graph.edges:
            self.outs[e[0]].append(e)
            self.ins[e[1]].append(e)
            self.between[e[:2]].append(e)

    def inputs(self, node: str) -> list[str]:
        return [a for a, _, _ in self.ins.get(node, ())]

    def outputs(self, node: str) -> list[str]:
        return [b for _, b, _ in self.outs.get(node, ())]

    def neighbourhood(self, centre: str, at_most: int = NEAR_AT_MOST) -> tuple[Graph, int]:
        """The part of the graph around one node: what it reads and writes (or who reads and writes it), then the
        pipelines that write what it reads and read what it writes; at most `at_most` nodes besides the centre, in
        that order. Also how many were left out."""
        inputs, outputs = self.inputs(centre), self.outputs(centre)
        second = [a for n in inputs for a in self.inputs(n)] + [b for n in outputs for b in self.outputs(n)]
        ordered = [n for n in dict.fromkeys(inputs + outputs + second) if n != centre]
        near = sorted({centre, *ordered[:at_most]}, key=self.order.__getitem__)
        sub = Graph()
        sub.nodes = {n: self.graph.nodes[n] for n in near}
        sub.edges = sorted(
            (e for a in near for b in near for e in self.between.get((a, b), ())), key=self.edge_at.__getitem__
        )
        for n in near:
            if n in self.group_of:
                sub.groups.setdefault(self.group_of[n], []).append(n)
        return sub, max(0, len(ordered) - at_most)
