"""Property: any YAML scalar, written plain, single-quoted, double-quoted or as a literal block, in any string
slot, reaches the generated job as exactly the text it spells (compiler/validate/scalars.py).

"Exactly" is Kafka Connect's reading of a string setting: transform configs are trimmed as ConfigDef trims
them (`java_trim`), `$${` is a literal `${` outside test data, and the description is one line of the docstring.
Number-, boolean- and null-looking words, unicode, quotes, backslashes and newlines are drawn on purpose. The
job is compiled in-process (no Spark) and searched with `ast` for the text among its literals.
"""

from __future__ import annotations

import ast
import json
import re

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from job_text import compile_pipeline, literals
from pipec.emit.render import comment_text
from pipec.envrefs import mentions_env
from pipec.transforms.base import java_trim

# Words YAML 1.1 reads as something other than text, and text that stresses quoting and escapes.
TRICKY = [
    "0123",
    "0x1F",
    "1.50",
    "1_000",
    "1e5",
    "1.0e+5",
    ".inf",
    "-.inf",
    ".nan",
    "+1",
    "-0",
    "0o17",
    "0b101",
    "12:30:00",
    "yes",
    "No",
    "ON",
    "off",
    "y",
    "n",
    "true",
    "False",
    "TRUE",
    "null",
    "~",
    "Null",
    "NULL",
    "=",
    "<<",
    "$${x}",
    "a$${b}c",
    "$${env:HOME}",
    "$$",
    "$${",
    "${topic}",
    "'quoted'",
    '"dq"',
    "back\\slash",
    "C:\\path\\",
    "\\n",
    "tab\there",
    "line1\nline2",
    "trailing\n",
    "ünïcode",
    "日本語",
    "😀",
    "#hash",
    "a #b",
    "key: value",
    "- dash",
    "[flow]",
    "{x}",
    "&anchor",
    "*alias",
    "!tag",
    "%pct",
    "@at",
    "`tick`",
    "|pipe",
    ">gt",
    "?q",
    ": colon",
    "  lead",
    "trail  ",
    "\u00a0nbsp",
    "a\u2028b",
    "x\ty",
    '"""',
    "'''",
]
# Characters YAML may hold in a document (its printable set), the byte order mark aside.
_PRINTABLE = st.characters(blacklist_categories=("Cs",), blacklist_characters="\ufeff").filter(
    lambda c: c in "\t\n" or " " <= c <= "~" or c == "\x85" or "\xa0" <= c <= "\ufffd" or c >= "\U00010000"
)
TEXT = st.one_of(
    st.sampled_from(TRICKY),
    st.text(_PRINTABLE, max_size=12),
    st.lists(st.sampled_from(TRICKY) | st.text(_PRINTABLE, max_size=4), min_size=2, max_size=4).map("".join),
).filter(lambda t: not mentions_env(t))  # `${env:` outside its slots is a compile error (tested elsewhere)
STYLES = st.sampled_from(["plain", "single", "double", "literal"])
_LINE_BREAKS = re.compile("[\r\x85\u2028\u2029]")


def _plain(text: str) -> str | None:
    """`text` as a plain scalar, where YAML reads that back as a plain scalar spelling exactly `text`."""
    try:
        node = yaml.compose(f"k: {text}\n", Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    ok = isinstance(node, yaml.MappingNode) and len(node.value) == 1 and isinstance(node.value[0][1], yaml.ScalarNode)
    value = node.value[0][1] if ok else None
    return text if value is not None and not value.style and value.value == text and "\n" not in text else None


def _single(text: str) -> str | None:
    return None if "\n" in text or _LINE_BREAKS.search(text) or "\t" in text else "'" + text.replace("'", "''") + "'"


def _double(text: str) -> str:
    """JSON's escapes are YAML's; line breaks and YAML's non-printables escaped too."""
    body = json.dumps(text, ensure_ascii=False)[1:-1]
    return '"' + _LINE_BREAKS.sub(lambda m: f"\\u{ord(m.group()):04x}", body).replace("\x7f", "\\u007f") + '"'


def _literal(text: str, indent: str) -> str | None:
    """A literal block scalar (explicit indentation, chomping by the trailing newlines), or None."""
    if _LINE_BREAKS.search(text):
        return None
    body = text.rstrip("\n")
    trailing = len(text) - len(body)
    chomp = "-" if trailing == 0 else ("" if trailing == 1 else "+")
    if not body and trailing:
        return None
    lines = "".join(f"\n{indent}  {line}" if line else "\n" for line in body.split("\n"))
    return f"|2{chomp}{lines}" + "\n" * (trailing - 1 if trailing > 1 else 0)


def scalar(text: str, style: str, indent: str) -> str:
    """YAML source for `text` as the value of a block mapping key at `indent`; double-quoted if `style` cannot."""
    written = {"plain": _plain, "single": _single, "literal": lambda t: _literal(t, indent)}.get(style, _double)(text)
    return written if written is not None else _double(text)


PIPELINE = """\
version: 1
name: roundtrip
description: {description}
mode: batch
source:
  connector: kafka
  topics: [orders]
  properties:
    bootstrap.servers: localhost:9092
    client.id: {property}
  value: {{format: json}}
  columns:
    - name: id
      type: BIGINT
    - name: {column}
      type: STRING
    - name: note
      type: STRING
    - name: hdr
      header: {header}
predicates:
  traced:
    type: HasHeaderKey
    name: {predicate}
transforms:
  - name: add
    type: InsertField$Value
    static.field: added
    static.value: {static_value}
  - name: mask
    type: MaskField$Value
    fields: [note]
    replacement: {replacement}
    predicate: traced
sink:
  connector: kafka
  topic: {topic}
  properties: {{bootstrap.servers: localhost:9092}}
  value: {{format: json}}
tests:
  - name: {test}
    given: [{{value: {{id: 1}}}}]
    expect: []
"""
# slot -> (its indentation in PIPELINE, what the job holds for the text written there)
unescape = lambda t: t.replace("$${", "${")  # noqa: E731
SLOTS = {
    "description": ("", lambda t: comment_text(unescape(t))),
    "property": ("    ", unescape),
    "column": ("      ", unescape),
    "header": ("      ", unescape),
    "predicate": ("    ", lambda t: java_trim(unescape(t))),
    "static_value": ("    ", lambda t: java_trim(unescape(t))),
    "replacement": ("    ", lambda t: java_trim(unescape(t))),
    "topic": ("  ", unescape),
    "test": ("    ", lambda t: t),  # the test's name: in the model, not the job
}
# What a slot refuses by its own rules (Kafka's or Spark's), not by how YAML spelled it.
ACCEPTS = {
    "column": lambda t: t != "" and unescape(t).lower() not in ("id", "hdr", "note", "added"),
    "header": lambda t: t != "",
    "predicate": lambda t: java_trim(unescape(t)) != "",
    "replacement": lambda t: java_trim(unescape(t)) != "",  # Kafka: a replacement is non-empty
    "topic": lambda t: t != "",
    "test": lambda t: t != "",
}


def _slot_text(slot: str):
    return TEXT.filter(ACCEPTS.get(slot, lambda t: True))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(
    texts=st.fixed_dictionaries({slot: _slot_text(slot) for slot in SLOTS}),
    styles=st.fixed_dictionaries({slot: STYLES for slot in SLOTS}),
)
def test_every_string_slot_reaches_the_job_as_the_text_written(texts, styles):
    fragments = {slot: scalar(texts[slot], styles[slot], SLOTS[slot][0]) for slot in SLOTS}
    document = PIPELINE.format(**fragments)
    source, diagnostics, pipeline = compile_pipeline(document)
    assert source is not None, (document, diagnostics)
    found = literals(source)
    expected = {slot: SLOTS[slot][1](texts[slot]) for slot in SLOTS}
    docstring = ast.get_docstring(ast.parse(source), clean=False).split("\n")[0]
    # an empty description gives the job's file instead; a blank one leaves the name and its colon
    description = expected.pop("description")
    title = description if texts["description"] else f"compiled from {comment_text(pipeline.file)}"
    assert docstring == f"roundtrip: {title}".rstrip()
    assert pipeline.tests[0].name == expected.pop("test")  # test data keeps its text as written (no $${ rule)
    missing = {slot: text for slot, text in expected.items() if text not in found and text.encode() not in found}
    assert not missing, (document, missing)
