"""Hostile or huge pipeline files end in a located error (exit 2) within a second of CPU and bounded memory.

Each case runs `pipec validate` and `pipec compile` in a fresh process under an address-space limit
(RLIMIT_AS), and measures the CPU seconds and the peak resident memory the process used. CPU time, not wall
time, is bounded: the host is shared with Spark suites. Limits (compiler/load/limits.py, compiler/types/sql.py):
64 levels of nesting in the YAML, 50,000 values with aliases expanded, 64 levels in a type string.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from dataclasses import dataclass

import pytest
from cli_harness import DIAGNOSTIC, ROOT, minimal

CPU_SECONDS = 1.0
ADDRESS_SPACE = 1 << 30  # 1 GiB: python, jsonschema and black fit; the alias bomb used >4 GiB before its limit
RESIDENT_MB = 200


def _alias_bomb() -> str:
    """Nine levels of nine aliases each: 387,420,489 strings once expanded ("billion laughs")."""
    lines = ['  a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"  {name}: &{name} [{', '.join(['*' + prev] * 9)}]")
    return "description_bomb:\n" + "\n".join(lines) + "\n"


def _deep_alias() -> str:
    """An anchor nested 40 deep, used 40 levels down: 80 levels once expanded."""
    return f"x: &deep {'[' * 40}1{']' * 40}\ny: {'[' * 40}*deep{']' * 40}\n"


def _alias_amplification() -> str:
    """One 100,000-character string repeated 20,000 times through an alias: 20,002 values, within the value
    limit, but 2 GB of text once expanded (jsonschema then rendered it into its messages: 1.9 GB, MemoryError)."""
    return minimal("p").replace("name: p", "name: [&t " + "x" * 100_000 + ", " + ", ".join(["*t"] * 20_000) + "]")


CASES = {
    # name: (file text, code, line of the error)
    "flow_nesting_1000_deep": (minimal("p") + "description: " + "[" * 1000 + "]" * 1000 + "\n", "E008", 15),
    "block_nesting_1000_deep": (minimal("p") + "description:\n  " + "- " * 1000 + "x\n", "E008", 16),
    "block_mappings_1000_deep": (
        minimal("p") + "spark:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 1000)) + " " * 1000 + "v\n",
        "E008",
        79,
    ),
    "alias_bomb": (_alias_bomb() + minimal("p"), "E008", 6),
    "alias_expanding_past_the_depth": (_deep_alias() + minimal("p"), "E008", 2),
    "a_huge_flat_document": (
        minimal("p") + "tests:\n  - name: t\n    given:\n" + "      - {value: {id: 1}}\n" * 20_000 + "    expect: []\n",
        "E008",
        10_009,
    ),
    "alias_amplification": (_alias_amplification(), "E008", 2),
    "recursive_alias": (minimal("p") + "spark: &s {conf: *s}\n", "E008", 15),
    "a_file_larger_than_the_budget": (minimal("p") + "description: " + "x" * 3_000_000 + "\n", "E008", 1),
    # 5.5 s to compile before names were capped: black measures each non-ASCII character of every statement naming it
    "a_100_kb_non_ascii_column_name": (minimal("p").replace("name: name,", "name: " + "中" * 33_000 + ","), "E100", 10),
    # 0.8 s of CPU warm: black measured it in the two statements that name the servers
    "a_100_kb_non_ascii_setting": (minimal("p").replace("path: out", "path: " + "中" * 100_000), "E100", 13),
    "struct_type_400_deep": (
        minimal("p").replace("type: STRING}", "type: '" + "STRUCT<a " * 400 + "INT" + ">" * 400 + "'}"),
        "E200",
        10,
    ),
}


@dataclass
class Measured:
    code: int
    stderr: str
    cpu: float
    resident_mb: float


def _limit_address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _pipec(args: list[str], cwd) -> Measured:
    """One `pipec` process: exit code, stderr, CPU seconds, peak resident MB (of this child alone)."""
    probe = (
        "import resource, runpy, sys; sys.argv = ['pipec', *sys.argv[1:]]\n"
        "try:\n    from pipec.cli import main; code = main(sys.argv[1:])\n"
        "finally:\n    r = resource.getrusage(resource.RUSAGE_SELF)\n"
        # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the forking parent (pytest) through exec
        "    hwm = next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
        "    print(f'@@ {r.ru_utime + r.ru_stime} {hwm}', file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_limit_address_space,
        env={"PYTHONPATH": str(ROOT)},
    )
    lines = done.stderr.splitlines()
    usage = [line for line in lines if line.startswith("@@ ")]
    assert usage, done.stderr[-3000:]
    cpu, rss_kb = usage[-1].split()[1:]
    return Measured(
        done.returncode, "\n".join(l for l in lines if not l.startswith("@@ ")), float(cpu), int(rss_kb) / 1024
    )


@pytest.mark.parametrize("command", ["validate", "compile"])
@pytest.mark.parametrize("case", list(CASES))
def test_hostile_input_is_a_located_error_in_bounded_time_and_memory(case, command, tmp_path):
    text, code, line = CASES[case]
    (tmp_path / "p.yaml").write_text(text, encoding="utf-8")
    args = [command, "p.yaml"] + (["--out", "generated"] if command == "compile" else [])
    run = _pipec(args, tmp_path)
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    assert run.code == 2, run.stderr[-3000:]
    errors = [m for m in map(DIAGNOSTIC.match, run.stderr.splitlines()) if m and m.group("severity") == "error"]
    assert [(m.group("file"), int(m.group("line")), m.group("code")) for m in errors] == [("p.yaml", line, code)]
    assert run.cpu < CPU_SECONDS, f"{run.cpu:.2f} s of CPU"
    assert run.resident_mb < RESIDENT_MB, f"{run.resident_mb:.0f} MB resident"
    assert not (tmp_path / "generated").exists()


def test_the_limits_are_said_in_the_message(tmp_path):
    messages = {}
    for case in ("block_nesting_1000_deep", "alias_bomb", "struct_type_400_deep"):
        (tmp_path / "p.yaml").write_text(CASES[case][0], encoding="utf-8")
        messages[case] = _pipec(["validate", "p.yaml"], tmp_path).stderr
    assert "deeper than 64 levels" in messages["block_nesting_1000_deep"]
    assert "more than 50,000 values" in messages["alias_bomb"] and "alias" in messages["alias_bomb"]
    assert "deeper than 64 levels" in messages["struct_type_400_deep"]


def test_names_at_their_limits_compile_within_a_second(tmp_path):
    """A 249-character pipeline name, and 20 columns and 10 steps with 255-character non-ASCII names, each
    named in several statements of the job."""
    columns = "".join(f"    - {{name: {'é' * 250}{i:05d}, type: STRING}}\n" for i in range(20))
    steps = "".join(
        f"  - {{name: {'中' * 250}{i:05d}, type: InsertField$Value, static.field: f{i}, static.value: v}}\n"
        for i in range(10)
    )
    text = (
        minimal("p" * 249)
        .replace("    - {name: name, type: STRING}\n", columns)
        .replace("sink:", "transforms:\n" + steps + "sink:")
    )
    (tmp_path / "p.yaml").write_text(text, encoding="utf-8")
    run = _pipec(["compile", "p.yaml", "--out", "generated"], tmp_path)
    assert run.code == 0, run.stderr[-3000:]
    assert run.cpu < CPU_SECONDS, f"{run.cpu:.2f} s of CPU"
    assert (tmp_path / "generated" / f"{'p' * 249}.py").exists()


def test_a_pipeline_at_the_limits_compiles(tmp_path):
    """64 levels of YAML (in test data) and a 64-level type are allowed, and compile."""
    struct = "STRUCT<a " * 63 + "INT" + ">" * 63
    value = "{a: " * 58 + "1" + "}" * 58  # 6 levels above it: tests, 0, given, 0, value
    text = minimal("p").replace("type: STRING}", f"type: 'STRUCT<n {struct}>'}}") + (
        f"tests:\n  - name: t\n    given: [{{value: {value}}}]\n    expect: []\n"
    )
    (tmp_path / "p.yaml").write_text(text, encoding="utf-8")
    run = _pipec(["compile", "p.yaml", "--out", "generated"], tmp_path)
    assert run.code == 0, run.stderr[-3000:]
    assert (tmp_path / "generated" / "p.py").exists()
