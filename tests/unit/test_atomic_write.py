"""compiler/project/atomic_write.py writes a file whole through a temporary file beside it: the content and
permissions asked for, nothing left behind, another process's leftover temporary names skipped, the old file kept
on failure; and many files all or none."""

from __future__ import annotations

import itertools
import os
import stat

import pytest
from pipec.project import atomic_write as atomic


def test_writes_the_text_with_the_mode_whatever_the_umask(tmp_path):
    old = os.umask(0o077)
    try:
        atomic.write_text(tmp_path / "job.py", "a\nb\n")
        atomic.write_text(tmp_path / "entry.json", "{}", mode=0o600)
    finally:
        os.umask(old)
    assert (tmp_path / "job.py").read_bytes() == b"a\nb\n"
    assert stat.S_IMODE((tmp_path / "job.py").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "entry.json").stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["entry.json", "job.py"]


def test_replaces_an_existing_file_and_skips_taken_temporary_names(tmp_path, monkeypatch):
    monkeypatch.setattr(atomic, "_NUMBERS", itertools.count())
    target = tmp_path / "job.py"
    target.write_text("old", encoding="utf-8")
    taken = [tmp_path / f".pipec-{os.getpid()}-{i}.tmp" for i in range(3)]
    for path in taken:
        path.write_text("someone else's", encoding="utf-8")
    atomic.write_text(target, "new ünïcode")
    assert target.read_text(encoding="utf-8") == "new ünïcode"
    assert all(p.read_text(encoding="utf-8") == "someone else's" for p in taken)


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "job.py"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        atomic.write_text(target, "half \ud800 a lone surrogate")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["job.py"]


def test_gives_up_after_the_attempts(tmp_path, monkeypatch):
    monkeypatch.setattr(atomic, "ATTEMPTS", 2)
    monkeypatch.setattr(atomic, "_NUMBERS", itertools.count())
    for i in range(2):
        (tmp_path / f".pipec-{os.getpid()}-{i}.tmp").touch()
    with pytest.raises(FileExistsError, match="no free temporary name"):
        atomic.write_text(tmp_path / "job.py", "x")


def test_many_files_are_written_all_or_none(tmp_path):
    out = tmp_path / "made" / "out"
    assert atomic.write_all(out, {"a.py": "a", "b.py": "b"}) == [out / "a.py", out / "b.py"]
    (out / "c.py").mkdir()
    with pytest.raises(IsADirectoryError):
        atomic.write_all(out, {"a.py": "new a", "c.py": "c", "d.py": "d"})
    assert sorted(p.name for p in out.iterdir()) == ["a.py", "b.py", "c.py"]
    assert (out / "a.py").read_text(encoding="utf-8") == "a"


def test_more_files_than_attempts_at_once(tmp_path):
    files = {f"job_{i}.py": str(i) for i in range(3 * atomic.ATTEMPTS)}  # each staged file holds its name
    assert len(atomic.write_all(tmp_path, files)) == len(files)
    assert {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir()} == files


def test_a_name_longer_than_the_file_system_takes_fails_before_any_rename(tmp_path):
    with pytest.raises(OSError, match="at most") as failed:
        atomic.write_all(tmp_path / "out", {"a.py": "a", "b" * 300 + ".py": "b"})
    assert failed.value.filename.endswith(".py")
    assert not (tmp_path / "out").exists()  # the folder it made is gone too
