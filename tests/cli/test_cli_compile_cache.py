"""`pipec compile` in worker processes and `pipec check` through the job cache: the same jobs as one process
builds, and a hand edit of a job (or of its pipeline) is still caught when the cache knows the pipeline."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_harness import run_cli
from pipec.project import batch
from pipec.project.batch import POOL_FROM
from pipec.project.driver import build_all, generate_all

from bench.synthetic import pipeline_yaml

LEADER_EPOCH = "    - {name: epoch, type: INT, metadata: leader-epoch, virtual: true}\n"


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    """POOL_FROM + 2 different pipelines (so compile uses the pool), the first with a warning; a fresh cache."""
    monkeypatch.setenv("PIPEC_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "pipelines"
    folder.mkdir()
    for n in range(POOL_FROM + 2):
        text = pipeline_yaml(f"p{n}", 3 + n, n)
        if n == 0:
            text = text.replace(
                "    - {name: trace, header: trace-id}\n", "    - {name: trace, header: trace-id}\n" + LEADER_EPOCH
            )
        (folder / f"p{n}.yaml").write_text(text, encoding="utf-8")
    return folder, tmp_path / "out"


def _compiled_here(folder) -> dict[str, str]:
    return generate_all(build_all([str(folder)]))


def test_compile_through_the_pool_writes_what_one_process_builds(corpus, capsys):
    folder, out = corpus
    run = run_cli(["compile", folder, "--out", out], capsys)
    assert run.code == 0, run.text
    expected = _compiled_here(folder)
    assert {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()} == expected
    assert "warning[W206]" in run.err


def test_duplicate_names_across_workers_are_an_error(corpus, capsys):
    folder, out = corpus
    shutil.copy(folder / "p3.yaml", folder / "p3_copy.yaml")
    run = run_cli(["compile", folder, "--out", out], capsys)
    assert run.code == 2
    assert "error[E007]: pipeline name 'p3' is already used by" in run.err
    assert not out.exists()


def test_check_of_unchanged_jobs_reads_the_cache_and_repeats_warnings(corpus, capsys, monkeypatch):
    folder, out = corpus
    assert run_cli(["compile", folder, "--out", out], capsys).code == 0

    def no_compiling(path):
        raise AssertionError(f"compiled {path} although the cache holds it")

    monkeypatch.setattr(batch, "compile_file", no_compiling)
    run = run_cli(["check", folder, "--out", out], capsys)
    assert run.code == 0, run.text
    assert f"{POOL_FROM + 2} generated job(s) current" in run.out
    assert "warning[W206]" in run.err and "leader-epoch is always null" in run.err


def test_check_catches_a_hand_edit_of_a_job_the_cache_knows(corpus, capsys, monkeypatch):
    folder, out = corpus
    assert run_cli(["compile", folder, "--out", out], capsys).code == 0
    job = out / "p4.py"
    job.write_text(job.read_text(encoding="utf-8").replace("F.lit(", "F.lit( ", 1), encoding="utf-8")
    monkeypatch.setattr(batch, "compile_file", lambda path: pytest.fail(f"compiled {path}"))
    run = run_cli(["check", folder, "--out", out], capsys)
    assert run.code == 1
    assert f"{job}: differs from its pipeline" in run.err
    (out / "p5.py").unlink()
    assert f"{out / 'p5.py'}: missing" in run_cli(["check", folder, "--out", out], capsys).err


def test_check_recompiles_an_edited_pipeline(corpus, capsys):
    folder, out = corpus
    assert run_cli(["compile", folder, "--out", out], capsys).code == 0
    pipeline = folder / "p2.yaml"
    pipeline.write_text(
        pipeline.read_text(encoding="utf-8").replace("static.value: 'v2'", "static.value: 'w2'"), encoding="utf-8"
    )
    run = run_cli(["check", folder, "--out", out], capsys)
    assert run.code == 1
    assert f"{out / 'p2.py'}: differs from its pipeline" in run.err


def test_the_cache_is_keyed_by_pipec_itself(corpus, capsys, monkeypatch):
    """Another pipec (another fingerprint: its code, templates, schema, version) finds none of the entries."""
    folder, out = corpus
    assert run_cli(["compile", folder, "--out", out], capsys).code == 0
    compiled = []
    original = batch.compile_file
    monkeypatch.setattr(batch, "compile_file", lambda path: compiled.append(path) or original(path))
    monkeypatch.setattr("pipec.project.job_cache.fingerprint", lambda: "another pipec")
    monkeypatch.setattr(batch, "POOL_FROM", 10**6)  # in this process, so the patched compile_file counts
    assert run_cli(["check", folder, "--out", out], capsys).code == 0
    assert len(compiled) == POOL_FROM + 2


def test_the_fingerprint_covers_every_file_that_makes_a_job():
    """Every module of the package (the runtime and the emitter included), every template and the schema: a change
    to any of them is another pipec, whose jobs the cache must not give."""
    from pipec.project import fingerprint

    names = {name for name, _ in fingerprint._files()}
    package = Path(fingerprint.__file__).resolve().parents[1]
    for path in package.rglob("*.py"):
        assert f"code/{path.relative_to(package).as_posix()}" in names, path
    assert {"code/emit/render.py", "code/runtime/counts.py", "templates/job.py.j2", "schema"} <= names


def test_compile_of_unchanged_pipelines_reads_the_cache_and_rewrites_only_a_hand_edited_job(
    corpus, capsys, monkeypatch
):
    """The second compile compiles nothing (the cache knows every file): current jobs stay as they are, a hand-edited
    one is written back from the job text the cache keeps, byte for byte what compiling gives."""
    folder, out = corpus
    assert run_cli(["compile", folder, "--out", out], capsys).code == 0
    expected = {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()}
    (out / "p2.py").write_text(expected["p2.py"] + "# hand edit\n", encoding="utf-8")
    monkeypatch.setattr(batch, "compile_file", lambda path: pytest.fail(f"compiled {path} again"))
    run = run_cli(["compile", folder, "--out", out], capsys)
    assert run.code == 0, run.text
    assert [line for line in run.out.splitlines() if line.startswith("wrote ")] == [f"wrote {out / 'p2.py'}"]
    assert sum(line.startswith("current ") for line in run.out.splitlines()) == len(expected) - 1
    assert {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()} == expected
    assert "warning[W206]" in run.err  # the cache repeats the warnings
