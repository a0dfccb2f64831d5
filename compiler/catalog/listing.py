"""The pipeline's YAML and its generated job as HTML listings: every line numbered and anchored (`#L12`), the job's
step comments anchored by step (`#step-2`, `#source`, `#sink`), its pipec runtime apart (`#runtime`)."""

from __future__ import annotations

import re

from markupsafe import Markup, escape

from ..model import Pipeline

RUNTIME_MARK = "# pipec runtime"  # the comment the job's runtime starts with (templates/runtime.py.j2)


def _line(n: int, text: str, anchors: tuple[str, ...] = ()) -> str:
    marks = "".join(f'<span class="anchor" id="{a}"></span>' for a in anchors)
    cls = "line c" if text.lstrip().startswith("#") else "line"
    return f'{marks}<span class="{cls}" id="L{n}"><a class="ln" href="#L{n}">{n}</a>{escape(text)}</span>\n'


def _pre(lines: list[str]) -> Markup:
    return Markup('<pre class="listing">' + "".join(lines) + "</pre>") if lines else Markup("")


def yaml_listing(text: str) -> Markup:
    return _pre([_line(n, t) for n, t in enumerate(text.splitlines(), 1)])


def _comment_anchors(p: Pipeline) -> re.Pattern[str]:
    return re.compile(rf"^\s*# {re.escape(p.file)}:(\d+) (step |source \(|sink \()")


def job_anchors(p: Pipeline, text: str) -> dict[int, tuple[str, ...]]:
    """Job line number -> the anchors of the step, source or sink its comment names (by the YAML line it cites)."""
    by_line = {s.loc.line: f"step-{i}" for i, s in enumerate(p.steps, 1)}
    pattern, found = _comment_anchors(p), {}
    for n, line in enumerate(text.splitlines(), 1):
        m = pattern.match(line)
        if m is None:
            continue
        yaml_line, what = int(m.group(1)), m.group(2)
        anchor = by_line.get(yaml_line) if what == "step " else what.split(" ")[0]
        if anchor:
            found.setdefault(n, (anchor,))
    return found


def job_listing(p: Pipeline, text: str) -> tuple[Markup, Markup]:
    """The pipeline's own part of the job, and its runtime (empty when the job has none)."""
    anchors = job_anchors(p, text)
    seen: set[str] = set()
    own, runtime, target = [], [], None
    for n, line in enumerate(text.splitlines(), 1):
        if target is None and line.startswith(RUNTIME_MARK):
            target = runtime
        fresh = tuple(a for a in anchors.get(n, ()) if a not in seen)
        seen.update(fresh)
        (own if target is None else runtime).append(_line(n, line, fresh))
    return _pre(own), _pre(runtime)
