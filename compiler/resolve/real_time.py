"""`trigger: real-time`: the pipelines Spark's real-time mode (Spark 4.1+) can run.

Real-time mode runs a stateless query from Kafka to Kafka through long-running tasks, one per Kafka partition, in
update mode; it runs no foreachBatch. So a pipeline qualifies only with a kafka source and a kafka sink (an
upsert-kafka source or sink keeps per-key state, which pipec runs per micro-batch through foreachBatch), with dead
letters only where they go out with the sink's rows in one write (to a Kafka topic through the sink's producer
options; any other dead letters are split from each micro-batch through foreachBatch). Each refusal is an error at the YAML
line that asks for what real-time mode lacks (E513); a Spark target older than 4.1 is E900 (compiler/lower/spark_line.py).
"""

from __future__ import annotations

from ..connectors import SINKS, SOURCES
from ..connectors.base import SinkConnector, SourceConnector
from ..model import ErrorPolicy, Sink, Source
from .errors_policy import dead_letters_in_one_write
from .part import Part

HINT = 'or use another trigger (e.g. "processing-time: 0 seconds")'


def connector_problem(block: str, connector: SourceConnector | SinkConnector) -> str | None:
    """Why real-time mode cannot run this source or sink connector, or None."""
    if connector.real_time:
        return None
    if connector.per_key_state:
        return (
            f"trigger: real-time runs stateless queries only: the {connector.name} {block} keeps per-key state "
            "across micro-batches"
        )
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
        if errors.tolerance == "all" and not dead_letters_in_one_write(source, sink, errors):
            self.diags.error(
                "E513",
                "trigger: real-time cannot split these dead letters: the job writes them apart from "
                "the sink's rows, from each micro-batch through foreachBatch, which real-time mode does not "
                "run (only a dead-letter topic written through the kafka sink's producer options goes out "
                "with the sink's rows)",
                self.at("errors", "tolerance"),
                f"send them to a topic through the sink's cluster and properties, or use tolerance: none "
                f"(a bad record fails the job), {HINT}",
            )
