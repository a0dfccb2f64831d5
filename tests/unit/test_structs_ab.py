"""bench/structs_ab.py's figures: the executor-thread CPU read from /proc and the report section of a merged run."""

from __future__ import annotations

import ctypes
import os
import threading
import time

from bench.structs_ab import lines, section, task_cpu_seconds


def _ratio(low: float, mid: float, high: float) -> dict:
    return {"min": low, "median": mid, "max": high}


RESULT = {
    "date": "2026-11-29 09:40 UTC",
    "records": 200_000,
    "reps": 3,
    "load_1min": [3.5, 2.0, 1.5, 1.2],
    "jobs": {"main": "/tmp/a/main_bench_structs.py", "branch": "/tmp/b/branch_bench_structs.py"},
    "cpu_s_per_1m": {"handwritten": _ratio(18, 20, 22), "main": _ratio(19, 21, 23), "branch": _ratio(18, 20.5, 22)},
    "hand_vs_job": {
        name: {m: _ratio(0.9, mid, 1.1) for m in ("task_cpu_s", "jvm_cpu_s", "wall_s")}
        for name, mid in (("main", 0.95), ("branch", 0.98))
    },
}


def test_the_section_has_one_row_per_job_with_its_three_ratios_and_the_runs_load():
    text = "\n".join(section(RESULT))
    assert "| main (`main_bench_structs.py`) | 0.900 / 0.950 / 1.100 | 0.900 / 0.950 / 1.100 |" in text
    assert "| branch (`branch_bench_structs.py`) | 0.900 / 0.980 / 1.100 |" in text
    assert "load (1 min) 3.5 -> 1.2" in text
    assert "handwritten 20.00, main 21.00, branch 20.50" in text


def test_the_printed_lines_name_every_job():
    printed = "\n".join(lines(RESULT))
    assert "hand-written ÷ main" in printed and "hand-written ÷ branch" in printed


def test_task_cpu_counts_the_threads_the_os_names_executor_task_and_no_other():
    libc = ctypes.CDLL(None)
    named, done = threading.Event(), threading.Event()

    def worker() -> None:
        libc.prctl(15, b"Executor task l", 0, 0, 0)  # PR_SET_NAME: the name a JVM gives its task threads
        started = time.process_time()
        while time.thread_time() < 0.05 and time.process_time() - started < 5:
            pass
        named.set()
        done.wait(5)

    before = task_cpu_seconds(os.getpid())
    thread = threading.Thread(target=worker)
    thread.start()
    named.wait(5)
    after = task_cpu_seconds(os.getpid())
    done.set()
    thread.join()
    assert before == {}  # this process's own threads are not counted
    assert len(after) == 1 and sum(after.values()) >= 0.0
