"""The job templates as Python: `python -m pipec.emit.template_translator --write` translates templates/*.j2 into the
functions of compiler/emit/job_templates.py, so a cold `pipec compile` neither imports jinja2 nor compiles the
templates (about 60 ms of a one-pipeline compile); `--check` fails when that module is stale (a test runs it).

jinja2 parses each template here, as when it renders (its lexer applies trim_blocks, lstrip_blocks and
keep_trailing_newline), and each parsed node becomes the Python jinja's own code generator would run, for the
part of jinja the templates use: text; `{{ expression }}`, written as `str(finalize(value))`; if/elif/else;
for; with; include (with the context); names (StrictUndefined: a missing one raises); constants; attributes
(jinja's: the attribute, else the item); not, and, or, comparisons and `a if b else c`. Any other node is
refused, naming the template and line, so the module never renders otherwise than jinja would.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..package_data import TEMPLATES, templates_digest

TARGET = Path(__file__).resolve().parent / "job_templates.py"

_COMPARISONS = {"eq": "==", "ne": "!=", "lt": "<", "lteq": "<=", "gt": ">", "gteq": ">=", "in": "in", "notin": "not in"}

_PRELUDE = '''\
"""The job templates (templates/*.j2) as Python, one function per template: written by
`python -m pipec.emit.template_translator --write` (compiler/emit/template_translator.py) from the templates whose digest is
TEMPLATES_SHA256. Do not edit; compiler/emit/job.py renders with jinja2 instead while this module is stale."""

TEMPLATES_SHA256 = {digest!r}


def _attribute(value, name):
    """jinja2's `value.name`: the attribute, else the item."""
    try:
        return getattr(value, name)
    except AttributeError:
        pass
    try:
        return value[name]
    except (TypeError, LookupError, AttributeError):
        raise LookupError(f"template: {{value!r}} has no attribute or item {{name!r}}") from None


def _include(name, context, out, finalize):
    try:
        template = TEMPLATES[name]
    except KeyError:
        raise LookupError(f"template: no template {{name!r}}") from None
    template(context, out, finalize)


def render(name, context, finalize):
    """The text of template `name` (its path under templates/), rendered with `context`; `finalize` is applied
    to each substituted value, as jinja2's Environment(finalize=...)."""
    out = []
    TEMPLATES[name](context, out, finalize)
    return "".join(out)
'''


class UnsupportedTemplate(Exception):
    """A template uses jinja beyond what this module translates."""


class _Writer:
    """The Python of one template function: lines at an indentation, and the names bound by for and with."""

    def __init__(self, template: str):
        self.template = template
        self.lines: list[str] = []
        self.depth = 1
        self.scopes: list[dict[str, str]] = [{}]
        self.count = 0

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def refuse(self, node, what: str) -> UnsupportedTemplate:
        return UnsupportedTemplate(f"templates/{self.template}:{node.lineno}: {what} is not translated by "
                                   f"compiler/emit/template_translator.py (add it there, or keep the template to what it supports)")

    def bind(self, name: str) -> str:
        self.count += 1
        local = f"l_{self.count}_{name}"
        self.scopes[-1][name] = local
        return local

    def lookup(self, name: str) -> str:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return f"context[{name!r}]"

    def context(self) -> str:
        """The context an include gets: this one with the names bound by the enclosing for and with."""
        bound = {name: local for scope in self.scopes for name, local in scope.items()}
        if not bound:
            return "context"
        return "{**context, " + ", ".join(f"{name!r}: {local}" for name, local in bound.items()) + "}"


def _expression(w: _Writer, node) -> str:
    from jinja2 import nodes

    if isinstance(node, nodes.Name):
        return w.lookup(node.name)
    if isinstance(node, nodes.Const):
        return repr(node.value)
    if isinstance(node, nodes.Getattr):
        return f"_attribute({_expression(w, node.node)}, {node.attr!r})"
    if isinstance(node, nodes.Not):
        return f"(not {_expression(w, node.node)})"
    if isinstance(node, (nodes.And, nodes.Or)):
        word = "and" if isinstance(node, nodes.And) else "or"
        return f"({_expression(w, node.left)} {word} {_expression(w, node.right)})"
    if isinstance(node, nodes.CondExpr) and node.expr2 is not None:
        return f"({_expression(w, node.expr1)} if {_expression(w, node.test)} else {_expression(w, node.expr2)})"
    if isinstance(node, nodes.Compare) and all(op.op in _COMPARISONS for op in node.ops):
        rest = " ".join(f"{_COMPARISONS[op.op]} {_expression(w, op.expr)}" for op in node.ops)
        return f"({_expression(w, node.expr)} {rest})"
    raise w.refuse(node, f"the expression {type(node).__name__}")


def _text(w: _Writer, data: str) -> None:
    """Template text: one literal per line of it, joined by Python (one constant)."""
    pieces = data.splitlines(keepends=True)
    if len(pieces) == 1:
        w.emit(f"out.append({pieces[0]!r})")
        return
    w.emit("out.append(")
    w.depth += 1
    for piece in pieces:
        w.emit(repr(piece))
    w.depth -= 1
    w.emit(")")


def _body(w: _Writer, body: list) -> None:
    if not body:
        w.emit("pass")
    for node in body:
        _statement(w, node)


def _scoped(w: _Writer, body: list) -> None:
    w.depth += 1
    _body(w, body)
    w.depth -= 1


def _statement(w: _Writer, node) -> None:
    from jinja2 import nodes

    if isinstance(node, nodes.Output):
        for child in node.nodes:
            if isinstance(child, nodes.TemplateData):
                _text(w, child.data)
            else:
                w.emit(f"out.append(str(finalize({_expression(w, child)})))")
    elif isinstance(node, nodes.If):
        w.emit(f"if {_expression(w, node.test)}:")
        _scoped(w, node.body)
        for other in node.elif_:
            w.emit(f"elif {_expression(w, other.test)}:")
            _scoped(w, other.body)
        if node.else_:
            w.emit("else:")
            _scoped(w, node.else_)
    elif isinstance(node, nodes.For) and not (node.else_ or node.test or node.recursive) and isinstance(node.target, nodes.Name):
        iterable = _expression(w, node.iter)
        w.scopes.append({})
        w.emit(f"for {w.bind(node.target.name)} in {iterable}:")
        _scoped(w, node.body)
        w.scopes.pop()
    elif isinstance(node, nodes.With) and all(isinstance(t, nodes.Name) for t in node.targets):
        values = [_expression(w, v) for v in node.values]  # in the enclosing scope, before any is bound
        w.scopes.append({})
        for target, value in zip(node.targets, values):
            w.emit(f"{w.bind(target.name)} = {value}")
        _body(w, node.body)
        w.scopes.pop()
    elif isinstance(node, nodes.Include) and node.with_context and not node.ignore_missing:
        w.emit(f"_include({_expression(w, node.template)}, {w.context()}, out, finalize)")
    else:
        raise w.refuse(node, f"the statement {type(node).__name__}")


def function_name(template: str) -> str:
    return "_" + "".join(c if c.isalnum() else "_" for c in template.removesuffix(".j2"))


def translate(environment, template: str, source: str | None = None) -> str:
    """The Python function of one template (its path under templates/; `source`: its text, else read)."""
    if source is None:
        source = environment.loader.get_source(environment, template)[0]
    w = _Writer(template)
    _body(w, environment.parse(source, template).body)
    return f"def {function_name(template)}(context, out, finalize):\n" + "\n".join(w.lines) + "\n"


def module_source() -> str:
    """compiler/emit/job_templates.py as the templates make it now."""
    import black  # the formatter of record, for this module too

    from .job import template_environment

    environment = template_environment()
    names = sorted(p.relative_to(TEMPLATES).as_posix() for p in TEMPLATES.rglob("*.j2"))
    functions = [translate(environment, name) for name in names]
    table = "TEMPLATES = {\n" + "".join(f"    {name!r}: {function_name(name)},\n" for name in names) + "}\n"
    text = _PRELUDE.format(digest=templates_digest()) + "\n\n" + "\n\n".join(functions) + "\n\n" + table
    return black.format_str(text, mode=black.Mode(line_length=120))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipec.emit.template_translator", description=__doc__.split("\n")[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help=f"rewrite {TARGET.name}")
    action.add_argument("--check", action="store_true", help=f"exit 1 when {TARGET.name} is stale")
    args = parser.parse_args(argv)
    wanted = module_source()
    current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
    if args.write:
        if current != wanted:
            TARGET.write_text(wanted, encoding="utf-8")
        print(f"wrote {TARGET}")
        return 0
    if current != wanted:
        print(f"{TARGET} is stale: run python -m pipec.emit.template_translator --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
