"""Inputs that must give diagnostics, never a traceback, and messages whose wording is the contract."""

from __future__ import annotations

import json

import pytest
from cli_harness import ERRORS, ROOT, diagnostic_lines, minimal, rel, run_cli

STEP_BASE = minimal("p").replace(
    "    - {name: name, type: STRING}\n",
    '    - {name: name, type: STRING}\n    - {name: customer, type: "STRUCT<name STRING, card STRING>"}\n',
)


def with_steps(steps: str) -> str:
    return STEP_BASE.replace("sink:\n", "transforms:\n" + steps + "sink:\n")


def validate_text(text, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.yaml").write_text(text, encoding="utf-8")
    return run_cli(["validate", "p.yaml"], capsys)


# ---------------------------------------------------------------- messages that are the contract


def test_a_missing_field_error_lists_the_fields_that_are_there(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    run = run_cli(["validate", rel(ERRORS / "replacefield_names_a_missing_field.yaml")], capsys)
    (line,) = [line for line in run.err.splitlines() if "error[E402]" in line]
    assert "'customer.card_no'" in line
    assert line.endswith("fields there: name, card")


def test_a_missing_top_level_field_error_lists_the_value_fields(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    run = run_cli(["validate", rel(ERRORS / "several_mistakes_in_chain_and_sink_in_one_run.yaml")], capsys)
    first, second = [line for line in run.err.splitlines() if "error[E402]" in line]
    assert "'nope'" in first and first.endswith("fields there: id, name, customer")
    # the shape keeps flowing past a failing step: the field inserted in between is listed
    assert "'kafka_topc'" in second and second.endswith("fields there: id, name, customer, kafka_topic")


def test_a_duplicate_pipeline_name_says_which_file_has_it(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    for f in ("a.yaml", "b.yaml"):
        (tmp_path / f).write_text(minimal("same"), encoding="utf-8")
    run = run_cli(["validate", "a.yaml", "b.yaml"], capsys)
    (line,) = [line for line in run.err.splitlines() if "error[E007]" in line]
    assert line.startswith("b.yaml:2:7:") and "'same'" in line and "a.yaml" in line


def test_whitelist_and_blacklist_errors_suggest_include_and_exclude(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    run = run_cli(["validate", rel(ERRORS / "replacefield_whitelist_and_blacklist.yaml"), "--format", "json"], capsys)
    import json

    hints = {d["message"].split("'")[3]: d["hint"] for d in json.loads(run.out)}
    assert "include" in hints["whitelist"] and "exclude" in hints["blacklist"]


def test_expect_with_expect_error_is_said_in_words_at_the_second_key(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    run = run_cli(["validate", rel(ERRORS / "test_case_with_expect_and_expect_error.yaml")], capsys)
    (line,) = [line for line in run.err.splitlines() if "error[" in line]
    assert line.endswith(
        "error[E111]: expect_error cannot be used together with expect (line 19): "
        "a test expects the records written, or a record error"
    )


def test_negate_without_a_predicate_says_so_at_negate(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    run = run_cli(["validate", rel(ERRORS / "negate_without_predicate.yaml")], capsys)
    (line,) = [line for line in run.err.splitlines() if "error[" in line]
    assert line.endswith(":15:13: error[E100]: negate needs a predicate, and there is none")


# ---------------------------------------------------------------- no tracebacks


def test_a_yaml_merge_key_is_not_a_traceback(capsys, monkeypatch, tmp_path):
    text = minimal("p").replace("sink:\n  connector: files\n", "sink:\n  <<: {connector: files}\n")
    run = validate_text(text, capsys, monkeypatch, tmp_path)
    assert "Traceback" not in run.text
    assert run.code in (0, 2)
    if run.code == 2:
        assert any(line.startswith("p.yaml:12:") for line in diagnostic_lines(run.err))


@pytest.mark.parametrize(
    "step",
    [
        '  - {name: add, type: InsertField$Value, topic.field: "!"}\n',
        '  - {name: add, type: InsertField$Value, field.syntax.version: V2, topic.field: "customer."}\n',
    ],
    ids=["only_a_suffix", "v2_trailing_dot"],
)
def test_an_empty_insertfield_name_is_an_error_at_the_step(step, capsys, monkeypatch, tmp_path):
    run = validate_text(with_steps(step), capsys, monkeypatch, tmp_path)
    assert "Traceback" not in run.text
    assert run.code == 2
    assert [line for line in diagnostic_lines(run.err) if line.startswith("p.yaml:13:")]


@pytest.mark.parametrize(
    "after, option, line",
    [
        ("  path: in\n", "  options: {maxFilesPerTriger: 1}\n", 7),
        ("  path: out\n", "  options: {compresion: gzip}\n", 14),
    ],
    ids=["source", "sink"],
)
def test_an_unknown_option_is_an_error(after, option, line, capsys, monkeypatch, tmp_path):
    text = minimal("p").replace(after, after + option)
    run = validate_text(text, capsys, monkeypatch, tmp_path)
    assert run.code == 2
    assert [d for d in diagnostic_lines(run.err) if d.startswith(f"p.yaml:{line}:")]


# Values the YAML loader cannot construct, and characters a YAML file cannot hold: each one located error with
# a hint from every command (they were tracebacks, or errors at 1:1). (text, `line:col: error[CODE]`)
UNREADABLE = {
    "an_int_tag_on_a_word": (
        minimal("p").replace("path: in", "path: in\n  options: {maxFilesPerTrigger: !!int abc}"),
        "7:33: error[E000]",
    ),
    "a_float_tag_on_a_word": (minimal("p").replace("name: p", "name: !!float abc"), "2:7: error[E000]"),
    "a_bool_tag_on_maybe": (minimal("p").replace("name: p", "name: !!bool maybe"), "2:7: error[E000]"),
    "a_timestamp_tag_on_garbage": (minimal("p").replace("name: p", "name: !!timestamp garbage"), "2:7: error[E000]"),
    "a_set_tag": (minimal("p") + "description: !!set {a, b}\n", "15:14: error[E000]"),
    "an_integer_of_5000_digits": (minimal("p") + "description: " + "9" * 5000 + "\n", "15:14: error[E000]"),
    "an_escape_past_unicode": (minimal("p") + 'description: "\\U00110000"\n', "15:15: error[E000]"),
    "a_lone_surrogate_in_a_column_name": (
        minimal("p").replace("name: name,", 'name: "n\\ud800",'),
        "10:14: error[E000]",
    ),
    "a_lone_surrogate_in_a_key": (minimal("p") + 'spark: {conf: {"a\\udc00": x}}\n', "15:16: error[E000]"),
    "a_control_character_on_line_4": (minimal("p").replace("source:", "source: \x1b"), "4:9: error[E000]"),
    "a_recursive_alias": (minimal("p") + "description: &d [*d]\n", "15:18: error[E008]"),
}


@pytest.mark.parametrize("command", ["validate", "compile", "explain"])
@pytest.mark.parametrize("case", list(UNREADABLE))
def test_an_unreadable_value_is_one_located_error_with_a_hint(case, command, capsys, monkeypatch, tmp_path):
    text, expected = UNREADABLE[case]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.yaml").write_text(text, encoding="utf-8", errors="surrogatepass")
    run = run_cli([command, "p.yaml"] + (["--out", "gen"] if command == "compile" else []), capsys)
    assert "Traceback" not in run.text, run.text[-2000:]
    assert run.code == 2
    lines = diagnostic_lines(run.err, hints=True)
    assert lines[0] == f"p.yaml:{expected}" and len(lines) == 2 and lines[1].startswith("  hint: "), run.err
    assert not (tmp_path / "gen").exists()


# YAML mistakes, said in pipec's words (issue 27): (text, `line:col: error[CODE]`, words of the message, of the hint)
SINK = "sink:\n  connector: files\n  path: out\n  format: json\n"
YAML_MISTAKES = {
    "a_key_indented_out_of_its_block": (
        SINK + " trigger: once\n",
        "5:2: error[E000]",
        "trigger: is indented 1 space",
        "by 2 to put it in sink, or by 0 to make it a top-level key",
    ),
    "a_key_indented_into_the_value_above": (
        SINK.replace("  format", "   format"),
        "4:4: error[E000]",
        "deeper than path: above it",
        "indent it 2 spaces, as path:",
    ),
    "a_key_among_list_items": (
        "columns:\n  - {name: a}\n  name: b\n",
        "3:3: error[E000]",
        "name: stands among the list items of columns",
        "make it an item",
    ),
    "a_list_item_out_of_its_list": (
        "source:\n  columns:\n    - {name: a}\n  - {name: b}\n",
        "4:3: error[E000]",
        "the items of source.columns are at 4 spaces",
        "indent it as the other items",
    ),
    "a_tab": ("version: 1\n\tname: p\n", "2:1: error[E000]", "a tab in the indentation", "spaces"),
    "a_quote_left_open": ('version: 1\nname: "p\nmode: batch\n', "2:7: error[E000]", "never closed", 'close it with "'),
    "a_colon_in_a_plain_value": ("name: a: b\n", "1:8: error[E000]", "holds ': '", 'quote the value: name: "a: b"'),
    "a_bracket_left_open": (
        "topics: [a, b\nmode: batch\n",
        "2:5: error[E000]",
        "the [ opened at line 1",
        "close it with ]",
    ),
    "a_reserved_character": ("name: @p\n", "1:7: error[E000]", "cannot start with @", "quote the value: '@p'"),
    "a_second_document": (
        "version: 1\n---\nname: p\n",
        "2:1: error[E000]",
        "a second YAML document",
        "one pipeline a file",
    ),
}


@pytest.mark.parametrize("case", list(YAML_MISTAKES))
def test_a_yaml_mistake_names_the_cause_and_the_fix(case, capsys, monkeypatch, tmp_path):
    text, expected, message, hint = YAML_MISTAKES[case]
    run = validate_text(text, capsys, monkeypatch, tmp_path)
    assert run.code == 2
    lines = diagnostic_lines(run.err, hints=True)
    assert lines[0] == f"p.yaml:{expected}" and lines[1].startswith("  hint: "), run.err
    assert message in run.err and hint in run.err, run.err
    assert not any(
        token in run.err for token in ("<block end>", "<block mapping start>", "'?'", "but found", "expected ','")
    )


def test_a_key_indented_out_of_its_block_is_an_unknown_key_not_a_complaint_about_its_value(
    capsys, monkeypatch, tmp_path
):
    """Issue 27: `checkpoint:` indented out of `sink` said "checkpoint cannot use ${env:...}"."""
    text = minimal("p").replace("mode: batch", "mode: streaming") + "checkpoint: ${env:CHECKPOINT_DIR:-checkpoints}/p\n"
    run = validate_text(text, capsys, monkeypatch, tmp_path)
    assert diagnostic_lines(run.err, hints=True)[:2] == [
        "p.yaml:15:1: error[E100]",
        "  hint: did you mean sink.checkpoint? Indent it under sink:, as its other keys",
    ]
    assert "unknown top-level key 'checkpoint'" in run.err and "E106" not in run.err


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_diagnostics_show_raw_input_escaped_and_cut(fmt, capsys, monkeypatch, tmp_path):
    """A key holding ESC sequences, CR or a newline is shown escaped (it cleared the terminal, or forged a second
    diagnostic line), and a 100 KB value is cut: one line per diagnostic, one for its hint."""
    text = minimal("p").replace(
        "  path: out\n", '  path: out\n  "\\e[2J\\rforged\\nq.yaml:1:1: error[E999]\\ufeff": 1\n'
    )
    text = text.replace("mode: batch", "mode: " + "x" * 100_000)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.yaml").write_text(text, encoding="utf-8")
    run = run_cli(["validate", "p.yaml", "--format", fmt], capsys)
    assert run.code == 2
    messages = (
        [d["message"] + (d["hint"] or "") for d in json.loads(run.out)] if fmt == "json" else run.err.splitlines()
    )
    assert len(messages) == 2 * (fmt == "text") + 2, run.text[:3000]
    assert all(c.isprintable() for line in messages for c in line)
    assert all(len(line) < 600 for line in messages), [len(line) for line in messages]
    if fmt == "text":
        assert diagnostic_lines(run.err) == ["p.yaml:3:7: error[E100]", "p.yaml:14:3: error[E100]"]
        assert "\\x1b[2J\\rforged\\nq.yaml:1:1: error[E999]\\ufeff" in run.err  # the BOM: invisible, so escaped


def test_a_file_that_is_not_utf8_is_an_error_at_the_byte(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.yaml").write_bytes(minimal("p").encode("utf-8").replace(b"path: out", b"path: \xc3\xa9\xff"))
    run = run_cli(["validate", "p.yaml"], capsys)
    assert run.code == 2
    assert diagnostic_lines(run.err, hints=True)[0] == "p.yaml:13:10: error[E004]"
    assert "0xff" in run.err and "hint: " in run.err


def test_a_file_with_a_utf8_bom_is_read(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.yaml").write_bytes(b"\xef\xbb\xbf" + minimal("p").encode("utf-8"))
    run = run_cli(["validate", "p.yaml"], capsys)
    assert run.code == 0, run.text


def test_an_unknown_command_line_option_is_a_usage_error(capsys):
    run = run_cli(["validate", "--no-such-flag", "x.yaml"], capsys)
    assert run.code == 2
    assert "Traceback" not in run.text
