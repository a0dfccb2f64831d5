"""Any file, any folder: what the file system holds ends in a located error with its real reason (or works), and
`compile` writes every job or none.

Permission cases need a process the permissions bind: as root (CI containers often are) they run `pipec` in a
child process without the capabilities that let root pass them (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH).
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_harness import ROOT, diagnostic_lines, minimal, run_cli, snapshot

PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 24, 1, 2


def _bound_by_permissions() -> None:
    """In the child, before exec: a root process gives up the capabilities that pass file permissions."""
    if os.geteuid() == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
            if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _pipec_bound_by_permissions(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pipec", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_bound_by_permissions,
        env={"PYTHONPATH": str(ROOT), "PIPEC_CACHE_DIR": ""},
    )


@pytest.fixture
def open_folder(tmp_path):
    """tmp_path, whose folders the test may lock: unlocked again at the end, so pytest can remove them."""
    yield tmp_path
    for path in tmp_path.rglob("*"):
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)


def _errors(text: str) -> list[str]:
    return [line for line in diagnostic_lines(text, hints=True)]


# ---------------------------------------------------------------- the file system (issue 24, defect 4)


LOCKED = {
    # a folder locked to its owner's reading (000) or searching (600): what is named, where the error points
    "a_folder_that_cannot_be_listed_is_no_silent_skip": (0o000, ".", "private:1:1"),
    "a_file_in_a_folder_that_cannot_be_searched": (0o600, "private/p.yaml", "private/p.yaml:1:1"),
}


@pytest.mark.parametrize("case", list(LOCKED))
def test_a_locked_folder_is_an_error(case, open_folder):
    mode, named, where = LOCKED[case]
    (open_folder / "ok.yaml").write_text(minimal("ok"), encoding="utf-8")
    (open_folder / "private").mkdir()
    (open_folder / "private" / "p.yaml").write_text(minimal("p"), encoding="utf-8")
    (open_folder / "private").chmod(mode)
    done = _pipec_bound_by_permissions(["validate", named], open_folder)
    assert "Traceback" not in done.stderr
    assert done.returncode == 2
    assert _errors(done.stderr)[:1] == [f"{where}: error[E004]"], done.stderr
    assert "permission denied" in done.stderr and "  hint: " in done.stderr


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _to_dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _dangling(path: Path) -> None:
    path.symlink_to("gone.yaml")


def _loop(path: Path) -> None:
    path.symlink_to(path.name)


ODDITIES = {
    "a_fifo": (_fifo, "a FIFO"),
    "a_link_to_dev_zero": (_to_dev_zero, "a character device"),
    "a_dangling_link": (_dangling, "a symbolic link to gone.yaml, which does not exist"),
    "a_link_to_itself": (_loop, "too many levels of symbolic links"),
}


@pytest.mark.parametrize("named", [True, False], ids=["named", "in_a_folder"])
@pytest.mark.parametrize("case", list(ODDITIES))
def test_an_odd_file_is_an_error_with_its_real_reason(case, named, capsys, monkeypatch, tmp_path):
    make, reason = ODDITIES[case]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pipes").mkdir()
    make(tmp_path / "pipes" / "odd.yaml")
    run = run_cli(["validate", "pipes/odd.yaml" if named else "pipes"], capsys)
    assert "Traceback" not in run.text
    assert run.code == 2
    assert _errors(run.err)[0] == "pipes/odd.yaml:1:1: error[E004]", run.err
    assert reason in run.err and "no such file" not in run.err
    assert _errors(run.err)[1].startswith("  hint: ")


def test_a_file_name_that_is_not_utf8_compiles_and_is_shown_escaped(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PIPEC_CACHE_DIR", str(tmp_path / "cache"))  # the cache key once failed on the name
    name = os.fsdecode(b"p\xff.yaml")
    (tmp_path / name).write_text(minimal("p").replace("name: name,", "name: name2,"), encoding="utf-8")
    (tmp_path / os.fsdecode(b"q\n.yaml")).write_text(minimal("p"), encoding="utf-8")
    for command in (["validate", "."], ["compile", ".", "--out", "gen"], ["check", ".", "--out", "gen"]):
        run = run_cli(command, capsys)
        assert "Traceback" not in run.text
        assert run.code == 2 and _errors(run.err)[0] == "q\\n.yaml:2:7: error[E007]", run.err
        assert "already used by p\\xff.yaml" in run.err
    (tmp_path / os.fsdecode(b"q\n.yaml")).unlink()
    for command in (["compile", ".", "--out", "gen"], ["check", ".", "--out", "gen"], ["explain", name]):
        run = run_cli(command, capsys)
        assert run.code == 0, run.text
    assert "compiled from p\\\\xff.yaml" in (tmp_path / "gen" / "p.py").read_text(encoding="utf-8")


# ---------------------------------------------------------------- all jobs or none (issue 24, defect 1)


def _two_pipelines(folder: Path, second: str = "b") -> None:
    folder.mkdir(exist_ok=True)
    (folder / "a.yaml").write_text(minimal("a"), encoding="utf-8")
    (folder / "b.yaml").write_text(minimal(second), encoding="utf-8")


def test_a_name_too_long_for_a_file_is_refused_at_the_name_by_validate_and_compile(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    _two_pipelines(tmp_path, "b" * 250)
    for command in (["validate", "."], ["compile", ".", "--out", "gen"]):
        run = run_cli(command, capsys)
        assert "Traceback" not in run.text
        assert run.code == 2
        assert _errors(run.err)[:2] == ["b.yaml:2:7: error[E100]", "  hint: " + _errors(run.err)[1][8:]], run.err
        assert "it takes at most 249" in run.err and "Kafka's limit on a topic name" in run.err
    assert not (tmp_path / "gen").exists()


def _blocked_by_a_folder(out: Path) -> None:
    (out / "b.py").mkdir(parents=True)


def _out_under_a_file(out: Path) -> None:
    out.parent.mkdir(parents=True)
    (out.parent / "file").write_text("x", encoding="utf-8")


def _out_is_a_file(out: Path) -> None:
    out.parent.mkdir(parents=True)
    out.write_text("x", encoding="utf-8")


BLOCKED = {
    # name: (make the obstacle, --out, the error's location, words of its message)
    "a_folder_named_like_a_job": (_blocked_by_a_folder, "gen/out", "gen/out/b.py:1:1", "a folder has the file's name"),
    "out_under_a_file": (_out_under_a_file, "gen/file/out", "gen/file/out:1:1", "not a directory"),
    "out_is_a_file": (_out_is_a_file, "gen/out", "gen/out:1:1", "file exists"),
}


@pytest.mark.parametrize("case", list(BLOCKED))
def test_a_write_that_fails_writes_no_job_and_says_so_in_one_error(case, capsys, monkeypatch, tmp_path):
    make, out, where, words = BLOCKED[case]
    monkeypatch.chdir(tmp_path)
    _two_pipelines(tmp_path / "pipes")
    make(tmp_path / "gen" / "out")
    before = snapshot(tmp_path / "gen")
    run = run_cli(["compile", "pipes", "--out", out], capsys)
    assert "Traceback" not in run.text
    assert run.code == 2
    assert _errors(run.err)[0] == f"{where}: error[E010]", run.err
    assert words in run.err and "nothing was written" in run.err and "\n  hint: " in run.err
    assert snapshot(tmp_path / "gen") == before  # a.py not written beside the failure, no temporary left
    assert sorted(p.name for p in (tmp_path / "gen").rglob("*")) == sorted(
        p.name for p in (tmp_path / "gen").rglob("*") if p.name in ("out", "b.py", "file")
    )


def test_an_out_folder_without_write_permission_is_one_error(open_folder):
    _two_pipelines(open_folder)
    (open_folder / "gen").mkdir()
    (open_folder / "gen").chmod(0o555)
    done = _pipec_bound_by_permissions(["compile", ".", "--out", "gen"], open_folder)
    assert "Traceback" not in done.stderr
    assert done.returncode == 2
    assert _errors(done.stderr)[0] == "gen:1:1: error[E010]", done.stderr
    assert list((open_folder / "gen").iterdir()) == []


def test_check_reports_a_folder_named_like_a_job(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    _two_pipelines(tmp_path)
    (tmp_path / "gen" / "a.py").mkdir(parents=True)
    run = run_cli(["check", ".", "--out", "gen"], capsys)
    assert "Traceback" not in run.text
    assert run.code == 1
    assert "gen/a.py: cannot be read" in run.err
