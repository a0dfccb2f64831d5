"""Property: whatever a pipeline file or its folder holds, pipec keeps its contract (SPEC sections 1 and 2).

Hypothesis mutates the example pipelines (seeded and derandomized: the same mutants every run, about a minute)
with the mistakes and attacks of issue 24: deleted, duplicated and misspelt keys, shifted indentation and tabs,
values of another type, tags, aliases (repeated, amplifying, recursive), deep nesting, huge and non-ASCII
values, control characters, escapes and invalid UTF-8, truncation, second documents; and the file system:
a FIFO, a dangling link, a link to /dev/zero, a folder or an odd name where the file was, an --out that is a file
or holds a folder named like a job. Each mutant sits beside a valid pipeline, and `pipec validate` (the folder),
`compile` (the folder) and `explain` (the mutant) run on it, each in a child of one warm process
(tests/cli/fuzz_worker.py). For each:

- the exit code is 0 or 2, never a traceback; validate, compile and explain give the same verdict (compile may
  also fail to write: E010);
- every error reads `file:line:col: error[CODE]: message` and is followed by `  hint: ...`, on printable lines;
- after a failed compile nothing is left in --out; after a successful one both jobs are there, and nothing else;
- each command takes under 0.75 s of CPU (a fresh process adds ~0.25 s of imports: under a second in all) and
  under 500 MB resident.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_harness import DIAGNOSTIC, HERE, ROOT, minimal
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

# 900 CLI runs (minutes of subprocesses): the full suite runs it, in one process (the count check runs after the
# property, in order), not the fast lane
pytestmark = pytest.mark.slow
MUTANTS = int(os.environ.get("PIPEC_FUZZ_MUTANTS", 300))  # more, and PIPEC_FUZZ_SEED=N for other mutants, to explore
SEED = os.environ.get("PIPEC_FUZZ_SEED")
CPU_SECONDS = 0.75
RESIDENT_MB = 500
LINE_AT_MOST = 2_500  # characters of one printed line: a message and hint are cut at 1,000, a file name is not
SIBLING = "zz_fuzz_sibling"
BASES = {p.name: p.read_text(encoding="utf-8") for p in sorted((ROOT / "pipelines").glob("*.yaml"))} | {
    "minimal.yaml": minimal("p")
}
_PAIR = re.compile(r"^(\s*(?:- )?)([^\s:#][^:#]*?):( +)(\S.*)$")
PROGRESS = re.compile(r"^(\d+ pipeline\(s\) valid|wrote .*)$")

SCALARS = [
    "[]",
    "{}",
    "[1, 2]",
    "{a: 1}",
    "null",
    "~",
    "true",
    "no",
    "0123",
    "1e400",
    "-1",
    '""',
    "''",
    "99999999999999999999",
    "0x1F",
    "1_000",
    "12:30:00",
    ".nan",
    "=",
    "<<",
    "'x'",
    "- x",
    "${env:X}",
    "$${x}",
]
TAGS = [
    "!!int",
    "!!float",
    "!!bool",
    "!!timestamp",
    "!!binary",
    "!!set",
    "!!str",
    "!!null",
    "!foo",
    "!!map",
    "!!seq",
    "!!omap",
    "!!python/object:os.system",
    "!!merge",
]
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12) | st.sampled_from(
    [
        "\\e[2J",
        "\\r",
        "\\n",
        "\\u202e",
        "\\ud800",
        "\\U00110000",
        "\\x00",
        "é",
        "中文",
        "😀",
        "a: b",
        "# c",
        "\\t",
        "a\\\\b",
    ]
)
# Mutations, weighted: most change one key or value (so the mutant still parses and meets the later stages),
# some break the YAML, a few attack the loader.
KINDS = st.sampled_from(
    ["none", "describe"]
    + ["value", "flow_value", "quoted", "huge", "typo", "delete"] * 4
    + ["duplicate", "indent", "tag", "alias", "unknown"] * 2
    + ["tab", "amplify", "recursive", "nest", "truncate", "character", "document"]
)
_FLOW_VALUE = re.compile(r"([{,] ?[\w.$-]+: )([^,{}\[\]]+)(?=[,}])")
HUGE = st.sampled_from(["x", "é", "中", "😀", "9"]).map(lambda c: c * (5_000 if c == "9" else 100_000))


def _pick(draw, lines: list[str], pairs_only: bool = False) -> int | None:
    candidates = [i for i, line in enumerate(lines) if (_PAIR.match(line) if pairs_only else line.strip())]
    return draw(st.sampled_from(candidates)) if candidates else None


def _set_value(lines: list[str], i: int, value: str) -> None:
    m = _PAIR.match(lines[i])
    lines[i] = f"{m.group(1)}{m.group(2)}:{m.group(3)}{value}"


@st.composite
def text_mutation(draw, text: str) -> str:
    lines = text.split("\n")
    kind = draw(KINDS)
    if kind == "none":
        return text
    if kind == "flow_value":  # one value inside a flow mapping: {name: id, type: BIGINT}
        found = list(_FLOW_VALUE.finditer(text))
        if found:
            m = draw(st.sampled_from(found))
            value = draw(
                st.sampled_from(SCALARS)
                | TEXT.map(lambda t: '"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"')
                | HUGE
            )
            return text[: m.start(2)] + value + text[m.end(2) :]
        return text
    if kind == "describe":  # a description (free text, in the job's docstring): mostly still valid
        quoted = '"' + draw(TEXT | HUGE).replace("\\", "\\\\").replace('"', '\\"') + '"'
        return re.sub(r"^description:.*$", lambda m: "description: " + quoted, text, count=1, flags=re.M)
    i = _pick(
        draw,
        lines,
        pairs_only=kind in ("value", "quoted", "huge", "tag", "alias", "amplify", "recursive", "nest", "typo"),
    )
    if i is None or kind == "truncate":
        return text[: draw(st.integers(0, len(text)))]
    if kind == "delete":
        del lines[i]
    elif kind == "duplicate":
        lines.insert(i, lines[i])
    elif kind == "indent":
        shift = draw(st.sampled_from([-3, -2, -1, 1, 2, 3]))
        lines[i] = (
            " " * shift + lines[i] if shift > 0 else lines[i][min(-shift, len(lines[i]) - len(lines[i].lstrip(" "))) :]
        )
    elif kind == "tab":
        lines[i] = "\t" + lines[i].lstrip(" ")
    elif kind == "value":
        _set_value(lines, i, draw(st.sampled_from(SCALARS)))
    elif kind == "quoted":
        _set_value(lines, i, '"' + draw(TEXT).replace('"', '\\"') + '"')
    elif kind == "huge":
        _set_value(lines, i, draw(HUGE))
    elif kind == "tag":
        _set_value(lines, i, draw(st.sampled_from(TAGS)) + " " + _PAIR.match(lines[i]).group(4))
    elif kind == "alias":
        j = _pick(draw, lines, pairs_only=True)
        _set_value(lines, i, "&a " + _PAIR.match(lines[i]).group(4))
        if j != i:
            _set_value(lines, j, "*a")
    elif kind == "amplify":
        count = draw(st.sampled_from([10, 500, 20_000]))
        _set_value(
            lines,
            i,
            "[&t " + "y" * draw(st.sampled_from([10, 10_000, 100_000])) + ", " + ", ".join(["*t"] * count) + "]",
        )
    elif kind == "recursive":
        _set_value(lines, i, "&r [*r]")
    elif kind == "nest":
        depth = draw(st.integers(1, 100))
        _set_value(lines, i, "[" * depth + _PAIR.match(lines[i]).group(4) + "]" * depth)
    elif kind == "typo":
        m = _PAIR.match(lines[i])
        key = m.group(2)
        at = draw(st.integers(0, len(key) - 1))
        lines[i] = (
            f"{m.group(1)}{key[:at]}{draw(st.sampled_from(['', 'x', '_', 'É', key[at] * 2]))}{key[at + 1 :]}:{m.group(3)}{m.group(4)}"
        )
    elif kind == "unknown":
        indent = len(lines[i]) - len(lines[i].lstrip(" "))
        lines.insert(
            i, " " * indent + draw(st.sampled_from(["no_such_key: 1", "checkpoint: ${env:C}", "version: 2", "<<: {}"]))
        )
    elif kind == "character":
        at = draw(st.integers(0, len(lines[i])))
        lines[i] = (
            lines[i][:at]
            + draw(st.sampled_from(["\x00", "\x1b", "\x7f", "\ufeff", "\r", "\x85", "\u2028", "\x0c"]))
            + lines[i][at:]
        )
    elif kind == "document":
        lines.append("---")
        lines.append(lines[0])
    return "\n".join(lines)


def _fifo(path: Path) -> None:
    os.mkfifo(path)


FILE_ODDITIES = {
    "fifo": _fifo,
    "dangling_link": lambda path: path.symlink_to("gone.yaml"),
    "link_to_dev_zero": lambda path: path.symlink_to("/dev/zero"),
    "link_loop": lambda path: path.symlink_to(path.name),
    "a_folder": lambda path: path.mkdir(),
}
OUT_ODDITIES = {
    "out_is_a_file": lambda out: out.write_text("not a folder", encoding="utf-8"),
    "a_folder_named_like_a_job": lambda out: (out / f"{SIBLING}.py").mkdir(parents=True),
}


@st.composite
def project(draw) -> dict:
    base = draw(st.sampled_from(sorted(BASES)))
    text = BASES[base]
    for _ in range(draw(st.integers(1, 3))):
        text = draw(text_mutation(text))
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 9)) == 9:  # a byte that is not UTF-8
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80"])) + data[at:]
    oddity = draw(st.sampled_from([None] * 12 + sorted(FILE_ODDITIES) + sorted(OUT_ODDITIES) + ["odd_name"]))
    return {"base": base, "data": data, "oddity": oddity}


@pytest.fixture(scope="module")
def worker():
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "fuzz_worker.py")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PIPEC_CACHE_DIR": ""},
        cwd=ROOT,
    )
    assert json.loads(proc.stdout.readline()) == {"ready": True}

    def run(cwd: Path, *args: str) -> dict:
        proc.stdin.write(json.dumps({"cwd": str(cwd), "args": list(args)}) + "\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())

    yield run
    proc.stdin.close()
    proc.wait(timeout=30)


def _materialize(tmp: Path, p: dict) -> tuple[str, Path]:
    folder = tmp / "pipes"
    folder.mkdir()
    (folder / "sibling.yaml").write_text(minimal(SIBLING), encoding="utf-8")
    name = os.fsdecode(b"mut\xffant\n.yaml") if p["oddity"] == "odd_name" else "mutant.yaml"
    path = folder / name
    if p["oddity"] in FILE_ODDITIES:
        FILE_ODDITIES[p["oddity"]](path)
    else:
        path.write_bytes(p["data"])
    if p["oddity"] in OUT_ODDITIES:
        OUT_ODDITIES[p["oddity"]](tmp / "gen")
    return f"pipes/{name}", tmp / "gen"


def _snapshot(folder: Path) -> dict:
    if not folder.exists() or not folder.is_dir():
        return {"": folder.read_bytes()} if folder.is_file() else {}
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))
    }


def _check_output(run: dict, command: str) -> list[str]:
    """What breaks the output contract in one run (empty: nothing)."""
    problems = []
    if run["timeout"] or run["code"] not in (0, 2) or "Traceback" in run["err"]:
        problems.append(f"{command}: exit {run['code']} (timeout {run['timeout']}): {run['err'][-1500:]}")
    if run["cpu"] > CPU_SECONDS:
        problems.append(f"{command}: {run['cpu']:.2f} s of CPU")
    if run["peak_mb"] > RESIDENT_MB:
        problems.append(f"{command}: {run['peak_mb']:.0f} MB resident")
    lines = run["err"].splitlines() + ([] if command == "explain" else run["out"].splitlines())
    expect_hint = False
    for line in lines:
        if len(line) > LINE_AT_MOST or not line.isprintable():
            problems.append(f"{command}: a line of {len(line)} characters, or unprintable: {line[:200]!r}")
        m = DIAGNOSTIC.match(line)
        if expect_hint and not line.startswith("  hint: "):
            problems.append(f"{command}: an error without a hint before {line[:200]!r}")
        expect_hint = bool(m) and m.group("severity") == "error"
        if m and m.group("severity") == "error" and not m.group("file"):
            problems.append(f"{command}: an error without a location: {line[:200]!r}")
        if not m and not line.startswith("  hint: ") and not PROGRESS.match(line):
            problems.append(f"{command}: a line that is no diagnostic: {line[:200]!r}")
    if expect_hint:
        problems.append(f"{command}: the last error has no hint")
    if run["code"] == 2 and not any(DIAGNOSTIC.match(line) for line in run["err"].splitlines()):
        problems.append(f"{command}: exit 2 without a diagnostic")
    return problems


STATS: dict = {"mutants": 0, "runs": 0, "valid": 0, "codes": {}, "cpu_max": 0.0, "peak_max": 0.0, "seconds": 0.0}


@settings(
    max_examples=MUTANTS,
    derandomize=SEED is None,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@(seed(int(SEED)) if SEED else lambda test: test)
@given(p=project())
def test_every_mutant_keeps_the_contract(p, worker, tmp_path_factory):
    started = time.monotonic()
    tmp = tmp_path_factory.mktemp("mutant")
    mutant, out = _materialize(tmp, p)
    before = _snapshot(out)
    validate = worker(tmp, "validate", "pipes")
    compiled = worker(tmp, "compile", "pipes", "--out", "gen")
    explained = worker(tmp, "explain", mutant)
    problems: list[str] = []
    for command, run in (("validate", validate), ("compile", compiled), ("explain", explained)):
        problems += _check_output(run, command)
    wrote_nothing = _snapshot(out) == before
    if compiled["code"] == 0:
        jobs = sorted(_snapshot(out))
        if len(jobs) != (1 if p["oddity"] == "a_folder" else 2) or f"{SIBLING}.py" not in jobs:
            problems.append(f"compile succeeded and --out holds {jobs}")
    elif not wrote_nothing:
        problems.append(f"compile failed and --out changed: {sorted(_snapshot(out))}")
    could_not_write = compiled["code"] == 2 and "error[E010]" in compiled["err"]
    if validate["code"] != compiled["code"] and not (validate["code"] == 0 and could_not_write):
        problems.append(f"validate {validate['code']}, compile {compiled['code']}: {compiled['err'][-800:]}")
    if validate["code"] != explained["code"] and p["oddity"] != "a_folder":  # explain of an empty folder: E006
        problems.append(f"validate {validate['code']}, explain {explained['code']}: {explained['err'][-800:]}")
    STATS["mutants"] += 1
    STATS["runs"] += 3
    STATS["valid"] += validate["code"] == 0
    for code in set(re.findall(r"error\[(E\d+)\]", validate["err"] + compiled["err"])):
        STATS["codes"][code] = STATS["codes"].get(code, 0) + 1
    STATS["cpu_max"] = max(STATS["cpu_max"], validate["cpu"], compiled["cpu"], explained["cpu"])
    STATS["peak_max"] = max(STATS["peak_max"], validate["peak_mb"], compiled["peak_mb"], explained["peak_mb"])
    STATS["seconds"] += time.monotonic() - started
    assert not problems, (
        "\n".join(problems)
        + f"\nin a mutant of {p['base']} (oddity {p['oddity']}):\n"
        + p["data"][:3000].decode("utf-8", "replace")
    )


def test_the_fuzz_ran_its_mutants():
    """Runs after the property (same module, in order): it saw every mutant, and a mix of valid and invalid ones."""
    print(
        f"\nfuzz: {STATS['mutants']} mutants, {STATS['runs']} runs in {STATS['seconds']:.1f} s; {STATS['valid']} valid; "
        f"max {STATS['cpu_max']:.2f} s CPU, {STATS['peak_max']:.0f} MB; codes {dict(sorted(STATS['codes'].items()))}"
    )
    assert STATS["mutants"] >= MUTANTS
    assert 0 < STATS["valid"] < STATS["mutants"]
