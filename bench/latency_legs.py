"""Where a record's latency goes, for bench/latency.py: its legs split at the broker's append times, the GC
pauses of the Spark JVM and the broker's, and how much of the time work waited for a CPU.

The input and output topics keep the broker's append time (LogAppendTime), so each record's latency (send ->
seen) splits into three legs: to the broker (send -> the input topic's append), the job (input append -> output
append: Spark's consumer, the micro-batch or long-running task, Spark's producer) and to the consumer (output
append -> seen). The broker runs on this machine, so its clock is the producer's and the consumer's.
"""

from __future__ import annotations

import os
import re
import statistics
import threading
import time
import uuid
from pathlib import Path

LEGS = ("to_broker", "job", "to_consumer")
NEAR_BATCH_END_S = (-1.0, 0.5)  # a record reaching the broker this close to a batch's end (before, after)


def percentile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def appended(bootstrap: str, topic: str, wanted: set[str]) -> dict[str, float]:
    """key (the payment id) -> the broker's append time of each record of `topic` whose key is wanted."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": f"latency-{uuid.uuid4().hex}", "enable.auto.commit": False}
    )
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in (0, 1)])
    found: dict[str, float] = {}
    deadline = time.time() + 60
    while len(found) < len(wanted) and time.time() < deadline:
        for message in consumer.consume(num_messages=5000, timeout=0.5):
            if message.error() is None and message.key().decode() in wanted:
                found[message.key().decode()] = message.timestamp()[1] / 1000
    consumer.close()
    return found


def legs(
    sent: dict[str, float],
    into: dict[str, float],
    out: dict[str, float],
    seen: dict[str, float],
    batch_ends: list[float],
) -> dict:
    """p50/p99 of each leg, and each leg's median over the tail (the records at or above the whole's p99): which
    leg makes the tail. `batch_ends` (real-time mode: where long-running tasks end and new ones start): the share
    of the tail's records that reached the broker near one, against the share of the run such windows cover."""
    records = [p for p in sent if p in into and p in out and p in seen]
    if not records:
        return {}
    parts = {p: (into[p] - sent[p], out[p] - into[p], seen[p] - out[p]) for p in records}
    cut = percentile(sorted(seen[p] - sent[p] for p in records), 0.99)
    tail = [p for p in records if seen[p] - sent[p] >= cut]
    figures: dict = {"records": len(records)}
    for i, leg in enumerate(LEGS):
        values = sorted(v[i] for v in parts.values())
        figures[leg] = {
            "p50_s": round(percentile(values, 0.5), 4),
            "p99_s": round(percentile(values, 0.99), 4),
            "tail_median_s": round(statistics.median(parts[p][i] for p in tail), 4),
        }
    if batch_ends:
        before, after = NEAR_BATCH_END_S
        near = sum(1 for p in tail if any(before <= into[p] - end <= after for end in batch_ends))
        first, last = min(into[p] for p in records), max(into[p] for p in records)
        inside = sum(1 for end in batch_ends if first <= end <= last)
        figures["tail_near_batch_end"] = round(near / len(tail), 3)
        figures["near_batch_end_share_of_run"] = round(min(1.0, (after - before) * inside / (last - first)), 3)
    return figures


class GcLog:
    """A JVM's GC pauses from its -Xlog:gc file, each line stamped with the wall clock (timemillis)."""

    LINE = re.compile(r"\[(\d+)ms\].*Pause.* (\d+(?:\.\d+)?)ms$")

    def __init__(self, path: Path):
        self.path = path
        self.option = f"-Xlog:gc:file={self.path}:timemillis"

    def pauses(self, start: float, end: float) -> dict:
        """Count, total and longest pause (ms) between two wall-clock times."""
        text = self.path.read_text(encoding="utf-8", errors="replace") if self.path.exists() else ""
        found = [float(m[2]) for m in map(self.LINE.match, text.splitlines()) if m and start <= int(m[1]) / 1000 <= end]
        return {"pauses": len(found), "total_ms": round(sum(found), 1), "max_ms": round(max(found, default=0.0), 1)}


def cpu_waiting_us() -> int | None:
    """Microseconds during which some runnable task waited for a CPU, since boot (Linux pressure stall
    information, /proc/pressure/cpu `some`); None where the kernel does not report it."""
    try:
        first = Path("/proc/pressure/cpu").read_text(encoding="utf-8").splitlines()[0]
    except OSError:
        return None
    return int(first.rsplit("total=", 1)[1])


class CpuUse:
    """Where the machine's CPU went in a window, in cores (CPU seconds per wall second): the Spark JVM (this
    process's descendants), the broker (its pid file), this process (producer, consumer, py4j) and everything else
    on the machine (other work, from /proc/stat's busy time)."""

    TICK = os.sysconf("SC_CLK_TCK")

    def __init__(self, broker_pid_file: Path):
        self.broker_pid_file = broker_pid_file
        self.spark_pids: list[int] = []
        self.start: dict[str, float] = {}
        self.started = 0.0
        self.each_second: list[dict[str, float]] = []  # the same, per second of the window

    @staticmethod
    def _stat(pid: int) -> list[str]:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
        return text[text.rindex(")") + 2 :].split()  # the fields after the command name

    def _process_seconds(self, pid: int) -> float:
        fields = self._stat(pid)
        return (int(fields[11]) + int(fields[12])) / self.TICK  # utime, stime (fields 14 and 15)

    @classmethod
    def _descendants(cls, root: int) -> list[int]:
        parents = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    parents[int(entry.name)] = int(cls._stat(int(entry.name))[1])
                except (OSError, ValueError, IndexError):
                    continue
        found, frontier = [], [root]
        while frontier:
            parent = frontier.pop()
            children = [pid for pid, ppid in parents.items() if ppid == parent]
            found += children
            frontier += children
        return found

    def _sample(self) -> dict[str, float]:
        sample = {"machine": 0.0, "spark": 0.0, "broker": 0.0, "bench": self._process_seconds(os.getpid())}
        busy = Path("/proc/stat").read_text(encoding="utf-8").splitlines()[0].split()[1:]
        # user nice system idle iowait irq softirq steal: busy is all but idle and iowait
        sample["machine"] = sum(int(v) for i, v in enumerate(busy[:8]) if i not in (3, 4)) / self.TICK
        for pid in self.spark_pids:
            try:
                sample["spark"] += self._process_seconds(pid)
            except OSError:
                continue
        try:
            sample["broker"] = self._process_seconds(int(self.broker_pid_file.read_text(encoding="utf-8").strip()))
        except (OSError, ValueError):
            pass
        waiting = cpu_waiting_us()
        if waiting is not None:
            sample["waiting"] = waiting / 1e6
        return sample

    @staticmethod
    def _used(start: dict[str, float], end: dict[str, float], wall: float) -> dict[str, float]:
        used = {k: (end[k] - start[k]) / wall for k in end}
        used["other"] = used.pop("machine") - used["spark"] - used["broker"] - used["bench"]
        return {k: round(v, 2) for k, v in used.items()}

    def begin(self) -> None:
        self.spark_pids = self._descendants(os.getpid())
        self.start, self.started = self._sample(), time.time()
        self.each_second: list[dict[str, float]] = []
        self.stopping = threading.Event()
        self.sampler = threading.Thread(target=self._every_second, daemon=True)
        self.sampler.start()

    def _every_second(self) -> None:
        last, at = self.start, self.started
        while not self.stopping.wait(max(0.0, at + 1 - time.time())):
            now, when = self._sample(), time.time()
            self.each_second.append(self._used(last, now, when - at))
            last, at = now, when

    def cores(self) -> dict[str, float]:
        """Cores used since begin(), by whom (`waiting`: the share of the time some task waited for a CPU)."""
        self.stopping.set()
        self.sampler.join(5)
        return self._used(self.start, self._sample(), time.time() - self.started)


CPU_COLUMNS = ("spark", "broker", "bench", "other", "waiting")


def timeline(
    sent: dict[str, float],
    into: dict[str, float],
    out: dict[str, float],
    seen: dict[str, float],
    cpu: list[dict[str, float]],
) -> dict:
    """Per second of sending: records, each leg's median and max (s), and the cores used then by whom (and the
    share of that second some task waited for a CPU); for reading a run's tail in time."""
    start = min(sent.values())
    seconds: dict[int, list[tuple[float, float, float]]] = {}
    for p, at in sent.items():
        if p in into and p in out and p in seen:
            seconds.setdefault(int(at - start), []).append((into[p] - at, out[p] - into[p], seen[p] - out[p]))
    rows = []
    for second, found in sorted(seconds.items()):
        legs = [round(f(r[i] for r in found), 3) for i in range(3) for f in (statistics.median, max)]
        used = cpu[second] if second < len(cpu) else {}
        rows.append([second, len(found), *legs, *(used.get(k) for k in CPU_COLUMNS)])
    columns = ["second", "records", *(f"{leg}_{f}_s" for leg in LEGS for f in ("median", "max")), *CPU_COLUMNS]
    return {"columns": columns, "rows": rows}


class Probes:
    """What bench/latency.py reads beside the records in a mode's measured window: GC pauses (Spark, broker), CPU
    use by process and CPU pressure."""

    def __init__(self, jobs_folder: Path, broker_state: Path):
        self.spark_gc = GcLog(jobs_folder / "spark-gc.log")
        self.broker_gc = GcLog(broker_state / "broker-gc.log")
        self.cpu = CpuUse(broker_state / "broker.pid")

    def begin(self) -> None:
        self.cpu.begin()

    def figures(self, start: float, end: float) -> dict:
        """Read at the window's end (`end`: now)."""
        cores = self.cpu.cores()
        return {
            "cpu_cores": cores,
            "cpu_waiting_share": cores.pop("waiting", None),
            "gc": self.spark_gc.pauses(start, end),
            "broker_gc": self.broker_gc.pauses(start, end),
        }
