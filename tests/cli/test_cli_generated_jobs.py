"""Properties of generated jobs, read as text and AST (no Spark): header, step comments, imports, session
configuration, black stability, valid Python. Run over the repository's pipelines and tests/cli/fixtures/valid."""

from __future__ import annotations

import ast
import hashlib
import sys
import warnings

import pytest
import yaml
from cli_harness import ROOT, VALID, rel, run_cli

PIPELINES = sorted((ROOT / "pipelines").glob("*.yaml")) + sorted(VALID.glob("*.yaml"))
# Never on the record path (SPEC section 1): Python UDFs, pandas UDFs, RDD code.
FORBIDDEN_NAMES = {
    "udf",
    "pandas_udf",
    "rdd",
    "mapInPandas",
    "mapInArrow",
    "applyInPandas",
    "applyInPandasWithState",
    "UserDefinedFunction",
}


_CACHE: dict[tuple[str, bytes], str] = {}


def generate(path):
    """(display path, job source) for one pipeline, compiled as `pipec compile` does from the repository root.

    Cached by path and content: black makes generation the slow part of these tests.
    """
    from pipec.project.driver import build_all, generate_all

    key = (rel(path), path.read_bytes())
    if key not in _CACHE:
        result = build_all([rel(path)])
        result.diags.check()
        (source,) = generate_all(result).values()
        _CACHE[key] = source
    return rel(path), _CACHE[key]


@pytest.fixture(params=PIPELINES, ids=[f"{p.parent.name}/{p.stem}" for p in PIPELINES])
def job(request, monkeypatch):
    monkeypatch.chdir(ROOT)
    path = request.param
    shown, source = generate(path)
    return path, shown, source


def steps_with_lines(path):
    """(alias, 1-based line of the step's mapping) for every transform step, read independently of pipec."""
    root = yaml.compose(path.read_text(encoding="utf-8"))
    for key, value in root.value:
        if key.value == "transforms":
            for item in value.value:
                alias = next(v.value for k, v in item.value if k.value == "name")
                yield alias, item.start_mark.line + 1


def module_constant(tree, name):
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"no module-level {name} = ...")


def test_header_names_the_yaml_path_and_its_sha256(job):
    path, shown, source = job
    assert "\\" not in shown and not shown.startswith("/")
    docstring = ast.get_docstring(ast.parse(source))
    assert docstring is not None, "a generated job starts with a docstring header"
    assert f"from {shown}\n" in docstring or f"from {shown} " in docstring
    assert f"sha256 {hashlib.sha256(path.read_bytes()).hexdigest()}" in docstring


def test_header_says_the_job_sets_utc_and_ansi(job):
    _, _, source = job
    docstring = ast.get_docstring(ast.parse(source))
    assert "spark.sql.session.timeZone=UTC" in docstring
    assert "spark.sql.ansi.enabled=true" in docstring


def test_every_step_has_a_comment_naming_its_yaml_line_and_alias(job):
    path, shown, source = job
    comments = [line.strip() for line in source.splitlines() if line.strip().startswith("#")]
    steps = list(steps_with_lines(path))
    for alias, line in steps:
        assert any(c.startswith(f"# {shown}:{line} ") and f"'{alias}'" in c for c in comments), (alias, line)
    # and in the YAML's order
    positions = [next(i for i, c in enumerate(comments) if c.startswith(f"# {shown}:{line} ")) for _, line in steps]
    assert positions == sorted(positions)


def test_job_imports_only_pyspark_and_the_standard_library(job):
    _, _, source = job
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0, "no relative imports"
            modules = [node.module]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        for module in modules:
            top = module.split(".")[0]
            assert top == "pyspark" or top in sys.stdlib_module_names, f"line {node.lineno}: imports {module}"


def test_job_sets_utc_and_ansi_in_session_conf(job):
    _, _, source = job
    tree = ast.parse(source)
    conf = module_constant(tree, "SESSION_CONF")
    assert conf["spark.sql.session.timeZone"] == "UTC"
    assert conf["spark.sql.ansi.enabled"] == "true"
    used = [
        n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "SESSION_CONF" and isinstance(n.ctx, ast.Load)
    ]
    assert used, "SESSION_CONF is applied to the session somewhere"


def test_job_is_black_stable(job):
    from black_style import is_formatted

    _, _, source = job
    assert is_formatted(source)


def test_job_compiles_without_warnings(job):
    _, shown, source = job
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. an invalid escape sequence, an error in a later Python
        compile(source, shown, "exec")


def test_job_uses_no_udf_or_rdd(job):
    _, _, source = job
    for node in ast.walk(ast.parse(source)):
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        assert name not in FORBIDDEN_NAMES, f"line {node.lineno}: {name}"


def test_user_spark_conf_cannot_change_utc_or_ansi(monkeypatch):
    monkeypatch.chdir(ROOT)
    _, source = generate(VALID / "session_conf_keeps_utc_and_ansi.yaml")
    conf = module_constant(ast.parse(source), "SESSION_CONF")
    assert conf["spark.sql.session.timeZone"] == "UTC"
    assert conf["spark.sql.ansi.enabled"] == "true"
    assert conf["spark.sql.shuffle.partitions"] == "4"  # other settings do go through


def test_env_references_stay_references_in_the_job(monkeypatch):
    """Secrets never land in generated code: `${env:...}` is resolved by the job at run time."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("CHECKPOINT_DIR", "/secret/checkpoints")
    monkeypatch.setenv("IN_DIR", "/secret/in")
    _, source = generate(VALID / "session_conf_keeps_utc_and_ansi.yaml")
    assert "/secret" not in source
    assert "${env:CHECKPOINT_DIR}/session_conf" in source
    assert "${env:IN_DIR:-in}/events" in source


def test_header_sha256_is_of_the_file_bytes_even_with_crlf_line_ends(capsys, monkeypatch, tmp_path):
    from cli_harness import minimal

    monkeypatch.chdir(tmp_path)
    data = minimal("crlf").replace("\n", "\r\n").encode("utf-8")
    (tmp_path / "crlf.yaml").write_bytes(data)
    assert run_cli(["compile", "crlf.yaml", "--out", "gen"], capsys).code == 0
    docstring = ast.get_docstring(ast.parse((tmp_path / "gen" / "crlf.py").read_text(encoding="utf-8")))
    assert f"sha256 {hashlib.sha256(data).hexdigest()}" in docstring


def test_compiling_does_not_import_pyspark(tmp_path):
    import subprocess

    code = (
        "import sys; from pipec.cli import main; "
        f"rc = main(['compile', {rel(VALID)!r}, '--out', {str(tmp_path)!r}]); "
        "print(rc, 'pyspark' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.stdout.split()[-2:] == ["0", "False"], out.stdout + out.stderr


@pytest.mark.parametrize("path", ['in/a"""b', "in\\data"], ids=["triple_quote", "backslash"])
def test_a_path_with_quotes_or_backslashes_gives_a_clean_job(path, capsys, monkeypatch, tmp_path):
    """Paths also appear in docstrings of the job: they must not end the docstring or make bad escapes."""
    from cli_harness import minimal

    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.yaml").write_text(minimal("p").replace("path: in", f"path: '{path}'"), encoding="utf-8")
    run = run_cli(["compile", "p.yaml", "--out", "gen"], capsys)
    assert "Traceback" not in run.text
    assert run.code == 0
    source = (tmp_path / "gen" / "p.py").read_text(encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compile(source, "p.py", "exec")
