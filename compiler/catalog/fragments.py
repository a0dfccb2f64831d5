"""HTML pieces the templates repeat most, built in Python (a jinja2 macro per field table cost most of a page's
time): every text escaped. A site's build remembers the texts and tables it made (`clear` forgets them)."""

from __future__ import annotations

from markupsafe import Markup, escape

from .facts import FieldRow, Stage

_TEXT: dict[str, str] = {}  # field names and types, escaped: the same few come in every table
_MADE: dict[int, tuple[tuple[FieldRow, ...], Markup]] = {}  # id of rows -> (rows, table): a side no step changed


def clear() -> None:
    _TEXT.clear()
    _MADE.clear()


def _text(s: str) -> str:
    found = _TEXT.get(s)
    if found is None:
        found = _TEXT[s] = str(escape(s))
    return found


def fields_table(rows: tuple[FieldRow, ...], removed: tuple[str, ...] = ()) -> Markup:
    """A key's or value's fields, nested fields indented, a step's additions, changes and removals marked. Rows
    that come again unchanged (the same tuple, the next step left that side alone) reuse their table."""
    made = _MADE.get(id(rows)) if not removed else None
    if made is not None and made[0] is rows:
        return made[1]
    out = ['<table class="fields">']
    for r in rows:
        out.append(
            f'<tr class="{r.mark}"><td class="path" style="--depth: {r.depth}">{_text(r.name)}</td>'
            f'<td class="type">{_text(r.type)}</td><td class="mark">{r.mark}</td></tr>'
        )
    for path in removed:
        out.append(
            f'<tr class="removed"><td class="path">{escape(path)}</td><td class="type"></td><td class="mark">removed</td></tr>'
        )
    out.append("</table>")
    table = Markup("".join(out))
    if not removed:
        _MADE[id(rows)] = (rows, table)
    return table


def stage(s: Stage, name: str) -> Markup:
    """One card of the pipeline page's steps: the step, what it does, the key and value after it, the notes."""
    if s.index == 0:
        head, job_anchor = f"<strong>{escape(s.title)}</strong>", "source"
    else:
        cond = f' <span class="cond">{escape(s.condition)}</span>' if s.condition else ""
        head = f'<span class="n">{s.index}</span> <strong>{escape(s.title)}</strong> <code>{escape(s.type_name)}</code>{cond}'
        job_anchor = f"step-{s.index}"
    words = f'<p class="words">{escape(s.words)}</p>' if s.words else ""
    notes = ('<ul class="notes">' + "".join(f"<li>{escape(n)}</li>" for n in s.notes) + "</ul>") if s.notes else ""
    return Markup(
        f'<li class="stage" id="stage-{s.index}"><div class="stage-head">{head}<span class="links">'
        f'<a href="../yaml/{name}.html#L{s.line}">YAML line {s.line}</a> · <a href="../jobs/{name}.html#{job_anchor}">in the job</a>'
        f'</span></div>{words}<div class="two"><div><h4>key</h4>{fields_table(s.key, s.removed_key)}</div>'
        f"<div><h4>value</h4>{fields_table(s.value, s.removed)}</div></div>{notes}</li>"
    )
