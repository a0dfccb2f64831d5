"""Any string a user can write reaches generated code as exactly that string (SPEC sections 1, 3, 5, 6).

A property test puts adversarial strings into every string slot that reaches a generated job (the description,
the files source's topic, a column name, InsertField's field names and static value, a ReplaceField rename target
and a TopicNameMatches pattern), compiles the pipeline, runs the job's own `transform` on a one-row files source,
and checks the output row holds exactly those strings. Pipelines are built with `yaml.safe_dump`, so every string
is representable.

Rules the strategy respects (deliberate semantics, not escaping problems):
- config values (`static.value`, field names, `pattern`, `renames` items) are trimmed, as Kafka's ConfigDef trims
  them, so config strings here have no whitespace (Python's or Java's notion) at either end;
- a field name may end in `!` or `?` (Kafka's InsertionSpec), which is dropped;
- `renames` items are `old:new`, so neither the column name nor the rename target holds a `:`;
- `${env:` outside the places that allow it is a compile error, so no drawn string contains one, and `$${` is a
  literal `${` in every setting (the given record's data is taken as it is);
- field names of one struct differ ignoring case (Spark resolves struct fields case-insensitively);
- a `pattern` is `re.escape` of a string, with whitespace and control characters written as `\\uXXXX` (still a
  valid Java and Python regex) so that trimming cannot cut an escape in half.
"""

from __future__ import annotations

import contextlib
import io
import re
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from pipec.diagnostics import CompileError
from pipec.emit.render import comment_text
from pipec.project.driver import build_all, generate_all
from pipec.testing.runner import load_job, write_given_files

pytestmark = pytest.mark.spark

NAME = "adversarial"

SPECIALS = [
    "'",
    '"',
    "\\",
    "\\\\",
    "\n",
    "\r",
    "\r\n",
    "\t",
    '"""',
    "'''",
    "\\'",
    '\\"',
    "\"\"\"'''",
    "{{ }}",
    "{{",
    "}}",
    "{% %}",
    "{%",
    "{#",
    "#}",
    "${",
    "$${",
    "$${env:HOME}",
    "${x}",
    "$",
    "#",
    "# comment",
    "\x00",
    "\x7f",
    "\x0b",
    "\x0c",
    "\x1b",
    "\x85",
    "\u2028",
    "\u2029",
    "\ufeff",
    "\u200b",
    "`",
    "``",
    ".",
    "..",
    ":",
    ",",
    ";",
    "(",
    ")",
    "[",
    "]",
    "*",
    "?",
    "!",
    "%",
    "%s",
    "%(prog)s",
    "{0}",
    "{}",
    "\\x00",
    "\\n",
    "\\u0000",
    "\\N{BULLET}",
    "é",
    "ß",
    "日本語",
    "😀",
    "👩\u200d💻",
    "\U0001f600\U0001f64f",
    "null",
    "true",
    "~",
    "- ",
    ": ",
    "& *a !!str",
    "'; DROP TABLE x; --",
    "); import os; (",
]

adversarial = st.lists(st.one_of(st.text(), st.sampled_from(SPECIALS)), max_size=6).map("".join)


# ---------------------------------------------------------------- string rules


def _trimmable(ch: str) -> bool:
    """Trimmed by Python's str.strip() or by Java's String.trim() (code points up to U+0020)."""
    return ch.isspace() or ord(ch) <= 0x20


def untrimmed(text: str) -> str:
    """`text` without anything either trim would remove at its ends."""
    start, end = 0, len(text)
    while start < end and _trimmable(text[start]):
        start += 1
    while end > start and _trimmable(text[end - 1]):
        end -= 1
    return text[start:end]


def mentions_env(text: str) -> bool:
    return "${env:" in text.replace("$${", "")


def literal(text: str) -> str:
    """What a setting's text stands for: `$${` is a literal `${` in every string slot (test data aside)."""
    return text.replace("$${", "${")


def inserted_name(configured: str) -> str:
    """InsertField's field name: Kafka's InsertionSpec drops one trailing `!` or `?`."""
    return configured[:-1] if configured[-1:] in ("!", "?") else configured


def _same_ignoring_case(a: str, b: str) -> bool:
    """Conservative: equal under casefold, lower, upper, or char-wise simple case mapping (Java's equalsIgnoreCase)."""
    if a.casefold() == b.casefold() or a.lower() == b.lower() or a.upper() == b.upper():
        return True

    def up(ch: str) -> str:
        u = ch.upper()
        return u if len(u) == 1 else ch

    def low(ch: str) -> str:
        lo = ch.lower()
        return lo if len(lo) == 1 else ch

    return len(a) == len(b) and all(x == y or up(x) == up(y) or low(up(x)) == low(up(y)) for x, y in zip(a, b))


def regex_literal(text: str) -> str:
    """A regex matching exactly `text`: re.escape, with trim-able characters as \\uXXXX (Java and Python alike)."""
    return "".join(
        f"\\u{ord(ch):04x}" if _trimmable(ch) or ord(ch) < 0x20 or ch == "\x7f" else re.escape(ch) for ch in text
    )


config_text = adversarial.map(untrimmed).filter(lambda s: not mentions_env(s))
field_name = config_text.filter(lambda s: inserted_name(s) != "")
column_name = config_text.filter(lambda s: s != "" and ":" not in s)
rename_target = column_name


# ---------------------------------------------------------------- pipeline


def pipeline_doc(c: dict) -> dict:
    """A batch files->files pipeline with each adversarial string in its slot."""
    return {
        "version": 1,
        "name": NAME,
        "description": c["description"],
        "mode": "batch",
        "source": {
            "connector": "files",
            "path": "unused/by/the/test",
            "format": "json",
            "topic": c["topic"],
            "columns": [{"name": c["column"], "type": "STRING"}],
        },
        "predicates": {
            "is_topic": {"type": "TopicNameMatches", "pattern": regex_literal(c["topic"])},
            "is_other": {"type": "TopicNameMatches", "pattern": regex_literal(c["other_topic"])},
        },
        "transforms": [
            # keeps the record: its topic matches `is_topic` exactly (whole-string match)
            {"name": "keep_topic", "type": "Filter", "predicate": "is_topic", "negate": True},
            # drops the record only if the other string equals the topic
            {"name": "drop_other", "type": "Filter", "predicate": "is_other"},
            {
                "name": "tag",
                "type": "InsertField$Value",
                "field.syntax.version": "V1",
                "topic.field": c["topic_field"],
                "static.field": c["static_field"],
                "static.value": c["static_value"],
            },
            {
                "name": "rename",
                "type": "ReplaceField$Value",
                "field.syntax.version": "V1",
                "renames": [f"{c['column']}:{c['renamed']}"],
            },
        ],
        "sink": {"connector": "files", "path": "unused/out", "format": "json"},
    }


def dump(doc: dict) -> str:
    text = yaml.safe_dump(doc, sort_keys=False, width=1_000_000)
    assert yaml.safe_load(text) == doc, "PyYAML does not round-trip this document"
    return text


def compile_and_load(text: str, folder: Path):
    """(compiled, job module, job source) for one pipeline text; CompileError for an invalid pipeline."""
    path = folder / f"{NAME}.yaml"
    path.write_text(text, encoding="utf-8")
    result = build_all([str(path)])
    files = generate_all(result)
    (compiled,) = result.compiled
    source = files[f"{NAME}.py"]
    compile(source, f"{NAME}.py", "exec")
    job_file = folder / f"{NAME}.py"
    job_file.write_text(source, encoding="utf-8")
    return compiled, load_job(job_file), source


def run_one_row(spark, compiled, job, row: dict, folder: Path) -> list[list[tuple]]:
    """The job's own transform over a files source holding one JSON row: the sink's rows as (name, value) lists."""
    for key, value in job.SESSION_CONF.items():
        spark.conf.set(key, value)
    source = folder / "source"
    source.mkdir()
    write_given_files(spark, job, compiled, [row], source, 0)
    args = job.parse_args(["--source-path", str(source)])
    rows = job.transform(job.read_source(spark, args)).collect()
    return [list(zip(r.__fields__, r)) for r in rows]


def help_text(job) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exit_info:
        job.parse_args(["--help"])
    assert exit_info.value.code == 0
    return out.getvalue()


# ---------------------------------------------------------------- the property


@st.composite
def cases(draw) -> dict:
    """Adversarial strings for every slot. `$${` stays out of the topic (the topic patterns are built from its
    text; test_files_topic_unescapes_double_dollar covers it) and `%(prog)` out of the description (argparse's
    own syntax; test_help_survives_percent_in_description)."""
    topic = draw(adversarial.filter(lambda s: s != "" and "$${" not in s and not mentions_env(s)))
    relation = draw(st.sampled_from(["same", "prefix", "longer", "other"]))
    if relation == "same":
        other = topic
    elif relation == "prefix" and len(topic) > 1:
        other = topic[: draw(st.integers(1, len(topic) - 1))]
    elif relation == "longer":
        other = topic + draw(adversarial.filter(bool))
    else:
        other = draw(adversarial.filter(bool))
    return {
        "description": draw(adversarial.filter(lambda s: not mentions_env(s) and "%(prog)" not in s)),
        "topic": topic,
        "other_topic": other,
        "column": draw(column_name),
        "value": draw(st.text()),
        "topic_field": draw(field_name),
        "static_field": draw(field_name),
        "static_value": draw(config_text),
        "renamed": draw(rename_target),
    }


def distinct_fields(case: dict) -> bool:
    """The value's field names differ ignoring case: column and inserted fields, then renamed and inserted ones."""
    inserted = (inserted_name(literal(case["topic_field"])), inserted_name(literal(case["static_field"])))
    groups = ((literal(case["column"]), *inserted), (literal(case["renamed"]), *inserted))
    return not any(_same_ignoring_case(a, b) for names in groups for i, a in enumerate(names) for b in names[i + 1 :])


def check_case(spark, case: dict) -> None:
    topic_field, static_field = (
        inserted_name(literal(case["topic_field"])),
        inserted_name(literal(case["static_field"])),
    )
    with tempfile.TemporaryDirectory(prefix="pipec-escaping-") as tmp:
        folder = Path(tmp)
        try:
            compiled, job, _ = compile_and_load(dump(pipeline_doc(case)), folder)
        except CompileError as exc:
            pytest.fail(f"a valid pipeline did not compile:\n{exc}")

        # the description: the first line of the job's docstring, exactly (on one line, non-printables as ?), and
        # in --help (which rewraps it)
        first_line = job.__doc__.split("\n")[0]
        description = comment_text(literal(case["description"]))
        # an empty description gives the job's file instead; a blank one leaves the name and its colon
        title = description if literal(case["description"]) else f"compiled from {comment_text(compiled.pipeline.file)}"
        assert first_line == f"{NAME}: {title}".rstrip()
        assert "".join(description.split()) in "".join(help_text(job).split())

        rows = run_one_row(spark, compiled, job, {literal(case["column"]): case["value"]}, folder)

    assert re.fullmatch(regex_literal(case["topic"]), case["topic"])  # the oracle: the topic's pattern matches it
    if re.fullmatch(regex_literal(case["other_topic"]), case["topic"]):
        assert rows == [], "the second Filter should have dropped the record: its topic matches that pattern"
    else:
        expected = [
            (literal(case["renamed"]), case["value"]),
            (topic_field, case["topic"]),
            (static_field, literal(case["static_value"])),
        ]
        assert rows == [expected]


NASTY = {
    "description": 'Ends in a backslash \\ and """triple""" \'\'\' {{ jinja }} {% raw %} ${x} $${y} # no comment\x00\\',
    "topic": "to'p\"ic\\\n\r\t{{x}}{%y%}${z}#\U0001f600\x00end\\",
    "other_topic": "to'p\"ic\\",
    "column": "col `with` back``ticks, dots.and \"quotes\" and 'single' \\ and\nnewline\x00nul",
    "value": "v'a\"l\\ue\n\r\x00\u2028\U0001f600",
    "topic_field": 'topic.field `x` \\ "\'""" {{ }}',
    "static_field": "static field\n#{% %}$${env:HOME}\\",
    "static_value": "'''\"\"\"\\\\\\ \x00 ${ $${env:X} {{ x }} {% if %} \r\n end\\",
    "renamed": 'renamed\\`.``"""\'\u2029\u00df',
}


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(case=cases())
@example(case=NASTY)
@example(case={**NASTY, "other_topic": NASTY["topic"]})  # the second Filter drops the record
@example(
    case={
        "description": "\\",
        "topic": "\\",
        "other_topic": "\\\\",
        "column": "\\'''",
        "value": "\\",
        "topic_field": '\\"""',
        "static_field": "{{ x }}\\",
        "static_value": "\\",
        "renamed": "{% endraw %}\\\\",
    }
)
@example(
    case={
        "description": "select * from x",
        "topic": "from",
        "other_topic": "fro",
        "column": "select",
        "value": "where",
        "topic_field": "from",
        "static_field": "table!",
        "static_value": "null",
        "renamed": "order",
    }
)
def test_adversarial_strings_reach_the_output_exactly(spark, case):
    assume(distinct_fields(case))
    check_case(spark, case)


# ---------------------------------------------------------------- regressions of bugs found by this suite


def _plain(**over) -> dict:
    base = {
        "description": "d",
        "topic": "t",
        "other_topic": "other",
        "column": "c",
        "value": "v",
        "topic_field": "tf",
        "static_field": "sf",
        "static_value": "sv",
        "renamed": "r",
    }
    return {**base, **over}


def _run_doc(spark, doc: dict, row: dict) -> list:
    with tempfile.TemporaryDirectory(prefix="pipec-escaping-") as tmp:
        compiled, job, _ = compile_and_load(dump(doc), Path(tmp))
        return run_one_row(spark, compiled, job, row, Path(tmp))


def _without_filters(doc: dict) -> dict:
    """The pipeline without its predicates and Filter steps (so a wrong topic shows in the row, not as no row)."""
    del doc["predicates"]
    doc["transforms"] = [t for t in doc["transforms"] if t["type"] != "Filter"]
    return doc


def _build_without_traceback(doc: dict):
    """Compile; a CompileError (diagnostics with locations) is fine, any other exception is a pipec bug."""
    with tempfile.TemporaryDirectory(prefix="pipec-escaping-") as tmp:
        try:
            return compile_and_load(dump(doc), Path(tmp))
        except CompileError as exc:
            assert all(d.loc is not None for d in exc.diagnostics), str(exc)
            return exc


def test_files_topic_resolves_env_references(spark, monkeypatch):
    monkeypatch.setenv("PIPEC_TEST_TOPIC", "from-env")
    doc = _without_filters(pipeline_doc(_plain()))
    doc["source"]["topic"] = "${env:PIPEC_TEST_TOPIC}"
    assert _run_doc(spark, doc, {"c": "v"}) == [[("r", "v"), ("tf", "from-env"), ("sf", "sv")]]


def test_files_topic_unescapes_double_dollar(spark):
    doc = _without_filters(pipeline_doc(_plain()))
    doc["source"]["topic"] = "a$${b}"
    assert _run_doc(spark, doc, {"c": "v"}) == [[("r", "v"), ("tf", "a${b}"), ("sf", "sv")]]


def test_help_survives_percent_in_description():
    doc = pipeline_doc(_plain(description="Keeps 100% of %(prog)s records"))
    with tempfile.TemporaryDirectory(prefix="pipec-escaping-") as tmp:
        _, job, _ = compile_and_load(dump(doc), Path(tmp))
        assert "100%" in help_text(job)


def test_insert_field_differing_only_in_case_is_no_traceback():
    _build_without_traceback(pipeline_doc(_plain(static_field="C")))


@pytest.mark.parametrize("name", ["!", "?"])
def test_insert_field_empty_name_is_a_diagnostic(name):
    """Kafka's InsertionSpec drops a trailing '!' or '?': a name of just that is empty, an error at its key."""
    result = _build_without_traceback(pipeline_doc(_plain(static_field=name)))
    assert isinstance(result, CompileError)


def test_names_spark_keeps_apart_are_accepted(spark):
    doc = pipeline_doc(_plain(topic_field="ss", static_field="\u00df"))
    assert _run_doc(spark, doc, {"c": "v"}) == [[("r", "v"), ("ss", "t"), ("\u00df", "sv")]]


def test_names_spark_confuses_are_a_compile_error():
    rejected = isinstance(
        _build_without_traceback(pipeline_doc(_plain(topic_field="I", static_field="\u0131"))), CompileError
    )
    assert rejected, "compiled, but the job fails: [AMBIGUOUS_REFERENCE_TO_FIELDS] Ambiguous reference to the field `I`"


def test_column_named_metadata_is_a_compile_error():
    """It would hide Spark's hidden file-metadata column that the files source reads."""
    doc = pipeline_doc(_plain(column="_metadata"))
    with pytest.raises(CompileError) as caught, tempfile.TemporaryDirectory(prefix="pipec-escaping-") as tmp:
        compile_and_load(dump(doc), Path(tmp))
    assert [d.code for d in caught.value.diagnostics] == ["E223"]


def test_config_strings_are_trimmed_like_kafka(spark):
    doc = pipeline_doc(_plain())
    doc["transforms"][2]["static.value"] = "\x00\u00a0 x \u00a0\x00"
    assert _run_doc(spark, doc, {"c": "v"}) == [[("r", "v"), ("tf", "t"), ("sf", "\u00a0 x \u00a0")]]
