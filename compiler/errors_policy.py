"""Checks of the `errors:` block (SPEC section 8): a dead-letter target exactly when tolerance is all."""

from __future__ import annotations

from dataclasses import dataclass

from .connectors.base import SinkConnector, SourceConnector
from .model import ErrorPolicy, Source

TOPIC, PATH, PROPERTIES = "deadletterqueue.topic.name", "deadletterqueue.path", "deadletterqueue.properties"
REFUSED_PRODUCER_PROPERTIES = ("key.serializer", "value.serializer")


@dataclass(frozen=True)
class Problem:
    code: str
    message: str
    path: tuple[str, ...]  # below `errors`
    hint: str | None = None
    warning: bool = False


def dead_letter_problems(policy: ErrorPolicy, source: Source | None, raw: dict | None = None,
                         source_connector: SourceConnector | None = None, sink_connector: SinkConnector | None = None) -> list[Problem]:
    """What is wrong with the errors block, if anything (`raw`: the block as written, for keys the model drops).
    Dead letters need a source whose raw records they can carry, and no connector's per-key work (changelog state,
    the reducing upsert writer), which is not combined with them yet."""
    notes = []
    if "deadletterqueue.topic.replication.factor" in (raw or {}):
        notes.append(Problem("W110", "deadletterqueue.topic.replication.factor has no effect: Spark's Kafka sink never creates "
                                     "topics (the broker's auto-create settings, or whoever creates the topic, decide)",
                             ("deadletterqueue.topic.replication.factor",), "create the dead-letter topic up front", warning=True))
    targets = [key for key, value in ((TOPIC, policy.dlq_topic), (PATH, policy.dlq_path)) if value is not None]
    if policy.tolerance != "all":
        return notes + [Problem("E108", f"{key} needs tolerance: all (with tolerance: none the job fails on a bad record)",
                        (key,), "add `tolerance: all` to send bad records there, or remove the key") for key in targets]
    problems = notes
    if policy.dlq_properties and policy.dlq_topic is None:
        problems.append(Problem("E108", f"{PROPERTIES} configures the dead-letter topic, but there is none", (PROPERTIES,),
                                f"add `{TOPIC}: <topic>`, or remove {PROPERTIES}"))
    for key, _ in policy.dlq_properties:
        if key in REFUSED_PRODUCER_PROPERTIES:
            problems.append(Problem("E108", f"Spark's Kafka sink refuses the producer property '{key}'", (PROPERTIES, key),
                                    "dead letters are written as the bytes read: remove it"))
    if not targets:
        problems.append(Problem("E107", "tolerance: all needs a dead-letter target: pipec never drops a bad record silently",
                                ("tolerance",), f"add `{TOPIC}: <topic>` or `{PATH}: <folder>`"))
    upsert = [c.name for c in (source_connector, sink_connector) if c is not None and c.per_key_state]
    if upsert:
        problems.append(Problem("E109", f"tolerance: all is not supported with an {upsert[0]} source or sink yet: its per-key "
                                "state and reduction are not combined with the dead-letter split", ("tolerance",),
                                "use tolerance: none (the job fails on a bad record, naming it)"))
    elif source is not None and source_connector is not None and not source_connector.dead_letters:
        problems.append(Problem("E109", f"tolerance: all is not supported with a {source.connector} source yet: its dead letters "
                                "would have no original key, value and headers", ("tolerance",),
                                "use tolerance: none (the job fails on a bad record, naming it)"))
    return problems
