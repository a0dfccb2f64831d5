"""`trigger: real-time`: the pipelines Spark's real-time mode (Spark 4.1+) can run.

Real-time mode runs a stateless query from Kafka to Kafka through long-running tasks, one per Kafka partition, in
update mode; it runs no foreachBatch. So a pipeline qualifies only with a kafka source and a kafka sink (an
upsert-kafka source or sink keeps per-key state, which pipec runs per micro-batch through foreachBatch) and
without dead letters (split from each micro-batch through foreachBatch). Each refusal is an error at the YAML
line that asks for what real-time mode lacks (E513); a Spark target older than 4.1 is E900 (compiler/targets.py).
"""

from __future__ import annotations

from ..connectors import SINKS, SOURCES
from ..connectors.base import SinkConnector, SourceConnector
from ..model import ErrorPolicy, Sink, Source
from .part import Part

HINT = "or use another trigger (e.g. \"processing-time: 0 seconds\")"


def connector_problem(block: str, connector: SourceConnector | SinkConnector) -> str | None:
    """Why real-time mode cannot run this source or sink connector, or None."""
    if connector.real_time:
        return None
    if connector.per_key_state:
        return (f"trigger: real-time runs stateless queries only: the {connector.name} {block} keeps per-key state "
                "across micro-batches")
    return f"trigger: real-time needs a kafka {block} (Spark's real-time mode), not {connector.name}"


class RealTimeCheck(Part):
    """Reports, at its own line, each part of a real-time pipeline that real-time mode cannot run."""

    def check(self, source: Source, sink: Sink, errors: ErrorPolicy) -> None:
        if not sink.real_time:
            return
        for block, connector in (("source", SOURCES[source.connector]), ("sink", SINKS[sink.connector])):
            problem = connector_problem(block, connector)
            if problem:
                self.diags.error("E513", problem, self.at(block, "connector"), f"use a kafka {block}, {HINT}")
        if errors.tolerance == "all":
            self.diags.error("E513", "trigger: real-time cannot split dead letters: the job writes them from each "
                             "micro-batch through foreachBatch, which real-time mode does not run",
                             self.at("errors", "tolerance"), f"use tolerance: none (a bad record fails the job), {HINT}")
