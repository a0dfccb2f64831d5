"""Inputs that must give diagnostics, never a traceback, and messages whose wording is the contract."""

from __future__ import annotations

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
    assert line.endswith("error[E111]: expect_error cannot be used together with expect (line 19): "
                         "a test expects the records written, or a record error")


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


def test_a_file_that_is_not_utf8_is_an_error(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.yaml").write_bytes(minimal("p").encode("utf-8").replace(b"name: p", b"name: \xff"))
    run = run_cli(["validate", "p.yaml"], capsys)
    assert run.code == 2
    assert diagnostic_lines(run.err) == ["p.yaml:1:1: error[E004]"]


def test_a_file_with_a_utf8_bom_is_read(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.yaml").write_bytes(b"\xef\xbb\xbf" + minimal("p").encode("utf-8"))
    run = run_cli(["validate", "p.yaml"], capsys)
    assert run.code == 0, run.text


def test_an_unknown_command_line_option_is_a_usage_error(capsys):
    run = run_cli(["validate", "--no-such-flag", "x.yaml"], capsys)
    assert run.code == 2
    assert "Traceback" not in run.text
