"""The pipeline's YAML and its generated job as HTML listings: every line numbered and anchored (`#L12`), comments
marked, the job's step comments anchored by step (`#step-2`, `#source`, `#sink`) and its pipec runtime apart
(numbered, not anchored).

A listing is a gutter of numbers beside one block of code escaped as a whole: a job is hundreds of lines, and the
runtime's text, the same in every job using the same runtime parts, is escaped once per text."""

from __future__ import annotations

import re
from functools import lru_cache

from markupsafe import Markup, escape

from ..model import Pipeline

RUNTIME_MARK = "# pipec runtime"  # the comment the job's runtime starts with (compiler/emit/job.py RUNTIME_MARKER)


@lru_cache(maxsize=16)
def _code(text: str) -> str:
    """The lines escaped, comment lines marked."""
    return "\n".join(
        f'<span class="c">{line}</span>' if line.lstrip().startswith("#") else line
        for line in str(escape(text)).split("\n")
    )


def numbered(lines: list[str], start: int = 1, anchors: dict[int, str] | None = None, linked: bool = True) -> Markup:
    """`lines` numbered from `start`, each number a link to itself (unless not `linked`); `anchors` puts an id on a
    line (by number)."""
    if not lines:
        return Markup("")
    numbers = range(start, start + len(lines))
    if linked:
        anchors = anchors or {}
        gutter = "".join(
            (f'<span class="anchor" id="{anchors[n]}"></span>' if n in anchors else "")
            + f'<a id="L{n}" href="#L{n}">{n}</a>\n'
            for n in numbers
        )
    else:
        gutter = "\n".join(map(str, numbers))
    return Markup(
        f'<div class="numbered"><pre class="gutter">{gutter}</pre>'
        f'<pre class="code">{_code(chr(10).join(lines))}</pre></div>'
    )


def yaml_listing(text: str) -> Markup:
    return numbered(text.splitlines())


COMMENT = re.compile(r"^\s*# (.+?):(\d+) (step |source \(|sink \()")  # a block's comment: FILE:LINE step|source|sink


def job_anchors(p: Pipeline, lines: list[str]) -> dict[int, str]:
    """Job line number -> the anchor of the step, source or sink its comment names (by the YAML line it cites),
    each at its first comment."""
    by_line = {s.loc.line: f"step-{i}" for i, s in enumerate(p.steps, 1)}
    found: dict[int, str] = {}
    for n, line in enumerate(lines, 1):
        m = COMMENT.match(line) if "#" in line else None
        if m is None or m.group(1) != p.file:
            continue
        anchor = by_line.get(int(m.group(2))) if m.group(3) == "step " else m.group(3).split(" ")[0]
        if anchor and anchor not in found.values():
            found[n] = anchor
    return found


def job_listing(p: Pipeline, text: str) -> tuple[Markup, Markup]:
    """The pipeline's own part of the job, and its runtime (empty when the job has none)."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(RUNTIME_MARK)), len(lines))
    return numbered(lines[:start], 1, job_anchors(p, lines[:start])), numbered(lines[start:], start + 1, linked=False)
