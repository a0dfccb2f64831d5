"""`pipec validate | compile | check | explain`: exit codes, what gets written, file discovery, JSON output."""

from __future__ import annotations

import json
import shutil

import pytest
from cli_harness import ERRORS, EXAMPLE, ROOT, VALID, diagnostic_lines, minimal, rel, run_cli, snapshot

INVALID = ERRORS / "several_mistakes_in_chain_and_sink_in_one_run.yaml"


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """An empty working folder (outside the repository) as the current directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------- exit codes


@pytest.mark.parametrize("command", ["validate", "compile", "check", "explain"])
def test_invalid_input_exits_2(command, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    args = [command, rel(INVALID)] + (["--out", tmp_path / "out"] if command in ("compile", "check") else [])
    run = run_cli(args, capsys)
    assert run.code == 2
    assert diagnostic_lines(run.err)
    assert "Traceback" not in run.text


@pytest.mark.parametrize("command", ["validate", "explain"])
def test_valid_input_exits_0(command, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    run = run_cli([command, rel(EXAMPLE)], capsys)
    assert run.code == 0, run.text
    assert diagnostic_lines(run.err) == []


def test_validate_writes_nothing(capsys, workdir):
    write(workdir / "p.yaml", minimal("p"))
    before = snapshot(workdir)
    assert run_cli(["validate", "p.yaml"], capsys).code == 0
    assert snapshot(workdir) == before


# ---------------------------------------------------------------- compile


def test_compile_writes_one_job_named_after_the_pipeline(capsys, workdir):
    write(workdir / "pipes" / "some_file_name.yaml", minimal("orders_masked"))
    run = run_cli(["compile", "pipes", "--out", "gen"], capsys)
    assert run.code == 0, run.text
    assert sorted(snapshot(workdir / "gen")) == ["orders_masked.py"]
    assert "gen/orders_masked.py" in run.out


def test_compile_creates_the_out_folder_and_defaults_to_generated(capsys, workdir):
    write(workdir / "p.yaml", minimal("p"))
    assert run_cli(["compile", "p.yaml"], capsys).code == 0
    assert sorted(snapshot(workdir / "generated")) == ["p.py"]


def test_compile_with_one_invalid_file_writes_nothing(capsys, workdir):
    write(workdir / "good.yaml", minimal("good"))
    shutil.copy(INVALID, workdir / "bad.yaml")
    out = workdir / "gen"
    write(out / "good.py", "# an older job, left as it was\n")
    write(out / "README", "not a job\n")
    before = snapshot(out)

    run = run_cli(["compile", "good.yaml", "bad.yaml", "--out", "gen"], capsys)

    assert run.code == 2
    assert snapshot(out) == before  # untouched, and no temp file left behind
    assert "wrote" not in run.out


def test_compile_with_an_invalid_file_does_not_create_the_out_folder(capsys, workdir):
    write(workdir / "good.yaml", minimal("good"))
    shutil.copy(INVALID, workdir / "bad.yaml")
    assert run_cli(["compile", ".", "--out", "gen"], capsys).code == 2
    assert not (workdir / "gen").exists()


def test_compile_leaves_no_temp_files(capsys, workdir):
    write(workdir / "a.yaml", minimal("a"))
    write(workdir / "b.yaml", minimal("b"))
    assert run_cli(["compile", "a.yaml", "b.yaml", "--out", "gen"], capsys).code == 0
    assert sorted(snapshot(workdir / "gen")) == ["a.py", "b.py"]


def test_compiling_twice_gives_identical_bytes(capsys, workdir):
    write(workdir / "p.yaml", minimal("p"))
    assert run_cli(["compile", "p.yaml", "--out", "one"], capsys).code == 0
    assert run_cli(["compile", "p.yaml", "--out", "two"], capsys).code == 0
    first = (workdir / "one" / "p.py").read_bytes()
    assert first == (workdir / "two" / "p.py").read_bytes()
    assert run_cli(["compile", "p.yaml", "--out", "one"], capsys).code == 0  # over its own output
    assert (workdir / "one" / "p.py").read_bytes() == first


def test_generated_bytes_do_not_depend_on_the_working_directory_inside_the_repository(capsys, monkeypatch, tmp_path):
    case = VALID / "quoting_and_unicode.yaml"
    monkeypatch.chdir(ROOT)
    assert run_cli(["compile", rel(case), "--out", tmp_path / "a"], capsys).code == 0
    monkeypatch.chdir(case.parent)
    assert run_cli(["compile", case.name, "--out", tmp_path / "b"], capsys).code == 0
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")


def test_generated_bytes_do_not_depend_on_the_working_directory_outside_the_repository(capsys, monkeypatch, tmp_path):
    case = VALID / "quoting_and_unicode.yaml"
    monkeypatch.chdir(ROOT)
    assert run_cli(["compile", rel(case), "--out", tmp_path / "a"], capsys).code == 0
    monkeypatch.chdir(tmp_path)
    assert run_cli(["compile", case, "--out", tmp_path / "b"], capsys).code == 0
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")


def test_diagnostics_name_the_file_relative_to_the_working_directory(capsys, monkeypatch):
    """As the user typed it from where they stand, not from the repository root (the job's header keeps that)."""
    monkeypatch.chdir(ERRORS.parent)
    run = run_cli(["validate", "errors/bad_enum_values.yaml"], capsys)
    assert diagnostic_lines(run.err) == [
        "errors/bad_enum_values.yaml:3:7: error[E100]",
        "errors/bad_enum_values.yaml:15:11: error[E100]",
    ]


def test_the_job_header_names_the_file_relative_to_the_repository_from_any_directory(capsys, monkeypatch, tmp_path):
    case = VALID / "quoting_and_unicode.yaml"
    monkeypatch.chdir(case.parent)
    assert run_cli(["compile", case.name, "--out", tmp_path], capsys).code == 0
    (job,) = tmp_path.glob("*.py")
    assert f"from {rel(case)}\n" in job.read_text(encoding="utf-8")


def test_compile_into_a_path_that_is_a_file_is_an_error_not_a_traceback(capsys, workdir):
    write(workdir / "p.yaml", minimal("p"))
    write(workdir / "gen", "a file, not a folder\n")
    run = run_cli(["compile", "p.yaml", "--out", "gen"], capsys)
    assert "Traceback" not in run.text
    assert run.code == 2
    assert (workdir / "gen").read_text(encoding="utf-8") == "a file, not a folder\n"


# ---------------------------------------------------------------- check


def test_check_exits_0_when_every_job_is_current(capsys, workdir):
    write(workdir / "p.yaml", minimal("p"))
    assert run_cli(["compile", "p.yaml", "--out", "gen"], capsys).code == 0
    before = snapshot(workdir)
    run = run_cli(["check", "p.yaml", "--out", "gen"], capsys)
    assert run.code == 0, run.text
    assert snapshot(workdir) == before


def test_check_exits_1_and_names_the_job_after_the_yaml_is_edited(capsys, workdir):
    pipeline = write(workdir / "p.yaml", minimal("p"))
    assert run_cli(["compile", "p.yaml", "--out", "gen"], capsys).code == 0
    pipeline.write_text(minimal("p").replace("path: out", "path: elsewhere"), encoding="utf-8")
    before = snapshot(workdir)
    run = run_cli(["check", "p.yaml", "--out", "gen"], capsys)
    assert run.code == 1
    assert "gen/p.py" in run.err
    assert snapshot(workdir) == before  # check never writes


def test_check_notices_an_edit_that_only_changes_a_comment(capsys, workdir):
    """The header carries the YAML's sha256, so any byte of the YAML counts."""
    pipeline = write(workdir / "p.yaml", minimal("p"))
    assert run_cli(["compile", "p.yaml", "--out", "gen"], capsys).code == 0
    pipeline.write_text("# reviewed\n" + minimal("p"), encoding="utf-8")
    assert run_cli(["check", "p.yaml", "--out", "gen"], capsys).code == 1


def test_check_exits_1_when_a_job_is_missing(capsys, workdir):
    write(workdir / "a.yaml", minimal("a"))
    write(workdir / "b.yaml", minimal("b"))
    assert run_cli(["compile", ".", "--out", "gen"], capsys).code == 0
    (workdir / "gen" / "b.py").unlink()
    run = run_cli(["check", ".", "--out", "gen"], capsys)
    assert run.code == 1
    assert "gen/b.py" in run.err
    assert "gen/a.py" not in run.err


def test_check_exits_1_when_the_out_folder_does_not_exist(capsys, workdir):
    write(workdir / "p.yaml", minimal("p"))
    run = run_cli(["check", "p.yaml", "--out", "gen"], capsys)
    assert run.code == 1
    assert not (workdir / "gen").exists()


def test_check_exits_2_before_comparing_when_a_pipeline_is_invalid(capsys, workdir):
    shutil.copy(INVALID, workdir / "bad.yaml")
    run = run_cli(["check", "bad.yaml", "--out", "gen"], capsys)
    assert run.code == 2


def test_the_checked_in_example_job_is_current(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    run = run_cli(["check", rel(EXAMPLE), "--out", "generated"], capsys)
    assert run.code == 0, run.text


# ---------------------------------------------------------------- discovery and names


def test_two_files_with_the_same_name_are_an_error(capsys, workdir):
    write(workdir / "a.yaml", minimal("orders"))
    write(workdir / "b.yaml", minimal("orders"))
    run = run_cli(["compile", "a.yaml", "b.yaml", "--out", "gen"], capsys)
    assert run.code == 2
    assert diagnostic_lines(run.err) == ["b.yaml:2:7: error[E007]"]  # at the second file's name
    assert "a.yaml" in run.err  # says where the name is already used
    assert not (workdir / "gen").exists()


def test_a_folder_path_finds_yaml_and_yml_files_recursively(capsys, workdir):
    write(workdir / "pipes" / "a.yaml", minimal("a"))
    write(workdir / "pipes" / "deep" / "er" / "b.yml", minimal("b"))
    write(workdir / "pipes" / "deep" / "c.yaml", minimal("c"))
    write(workdir / "pipes" / "notes.txt", "not a pipeline: {")
    write(workdir / "pipes" / "old.yaml.bak", "not a pipeline: {")
    write(workdir / "pipes" / "d.json", "{")
    run = run_cli(["compile", "pipes", "--out", "gen"], capsys)
    assert run.code == 0, run.text
    assert sorted(snapshot(workdir / "gen")) == ["a.py", "b.py", "c.py"]


def test_a_file_named_twice_is_compiled_once(capsys, workdir):
    write(workdir / "pipes" / "a.yaml", minimal("a"))
    run = run_cli(["validate", "pipes", "pipes/a.yaml", "./pipes/../pipes/a.yaml"], capsys)
    assert run.code == 0, run.text


def test_a_missing_path_is_an_error(capsys, workdir):
    write(workdir / "a.yaml", minimal("a"))
    run = run_cli(["validate", "a.yaml", "no/such/file.yaml"], capsys)
    assert run.code == 2
    assert diagnostic_lines(run.err, hints=True) == [
        "no/such/file.yaml:1:1: error[E005]",
        "  hint: name a pipeline file or a folder of them (*.yaml, *.yml)",
    ]


def test_a_folder_without_pipelines_is_an_error(capsys, workdir):
    (workdir / "empty").mkdir()
    run = run_cli(["validate", "empty"], capsys)
    assert run.code == 2
    assert diagnostic_lines(run.err) == ["empty:1:1: error[E006]"]


def test_diagnostics_of_several_files_come_sorted_by_file_then_position(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    files = [INVALID, ERRORS / "bad_enum_values.yaml"]
    run = run_cli(["validate", *map(rel, files)], capsys)
    got = diagnostic_lines(run.err)
    keys = [(line.split(":")[0], int(line.split(":")[1]), int(line.split(":")[2])) for line in got]
    assert keys == sorted(keys)
    assert {k[0] for k in keys} == {rel(f) for f in files}


# ---------------------------------------------------------------- --format json


def test_json_format_prints_a_list_of_diagnostic_objects(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    case = ERRORS / "unknown_top_level_key_suggests_the_right_one.yaml"
    text = run_cli(["validate", rel(case)], capsys)
    run = run_cli(["validate", rel(case), "--format", "json"], capsys)
    assert run.code == 2
    data = json.loads(run.out)
    assert isinstance(data, list) and data
    for d in data:
        assert set(d) == {"code", "message", "loc", "hint", "severity"}
        assert set(d["loc"]) == {"file", "line", "col"}
        assert isinstance(d["loc"]["line"], int) and isinstance(d["loc"]["col"], int)
        assert d["severity"] in ("error", "warning")
        assert isinstance(d["message"], str) and d["message"]
    # the same findings as the text format, in the same order
    as_text = [f"{d['loc']['file']}:{d['loc']['line']}:{d['loc']['col']}: {d['severity']}[{d['code']}]" for d in data]
    assert as_text == diagnostic_lines(text.err)
    assert data[0]["hint"] == "did you mean 'description'?"


def test_json_format_of_several_mistakes_lists_every_one(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    run = run_cli(["validate", rel(INVALID), "--format", "json"], capsys)
    data = json.loads(run.out)
    expected = INVALID.with_suffix(".expected").read_text(encoding="utf-8").split()
    assert len(data) == len([line for line in expected if "error[" in line])
    assert all(d["loc"]["file"] == rel(INVALID) for d in data)


def test_json_format_locates_a_missing_path_at_the_path(capsys, workdir):
    run = run_cli(["validate", "nothing-here.yaml", "--format", "json"], capsys)
    assert run.code == 2
    (d,) = json.loads(run.out)
    assert d["code"] == "E005" and d["loc"] == {"file": "nothing-here.yaml", "line": 1, "col": 1} and d["hint"]


def test_json_format_of_a_valid_file_is_an_empty_list(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    run = run_cli(["validate", rel(EXAMPLE), "--format", "json"], capsys)
    assert run.code == 0
    assert json.loads(run.out) == []


@pytest.mark.parametrize("command", ["compile", "check"])
def test_json_format_stdout_is_one_json_document_for_compile_and_check(command, capsys, workdir):
    write(workdir / "p.yaml", minimal("p"))
    assert run_cli(["compile", "p.yaml", "--out", "gen"], capsys).code == 0
    run = run_cli([command, "p.yaml", "--out", "gen", "--format", "json"], capsys)
    assert run.code == 0
    assert json.loads(run.out) == []
