"""Checks of the `errors:` block (SPEC section 8): a dead-letter target exactly when tolerance is all; and how
the job writes its dead letters (with the sink's rows in one write, or apart)."""

from __future__ import annotations

from dataclasses import dataclass

from ..connectors import SINKS
from ..connectors.base import SourceConnector
from ..emit import render
from ..model import ErrorPolicy, Sink, Source

TOPIC, PATH, PROPERTIES = "deadletterqueue.topic.name", "deadletterqueue.path", "deadletterqueue.properties"
REFUSED_PRODUCER_PROPERTIES = ("key.serializer", "value.serializer")


@dataclass(frozen=True, slots=True)
class Problem:
    code: str
    message: str
    path: tuple[str, ...]  # below `block`
    hint: str | None = None
    warning: bool = False
    block: str = "errors"


def dead_letter_problems(
    policy: ErrorPolicy, source: Source | None, raw: dict | None = None, source_connector: SourceConnector | None = None
) -> list[Problem]:
    """What is wrong with the errors block, if anything (`raw`: the block as written, for keys the model drops).
    Dead letters need a source whose records they can carry as read (a file's lines, not its parquet rows)."""
    notes = []
    if "deadletterqueue.topic.replication.factor" in (raw or {}):
        notes.append(
            Problem(
                "W110",
                "deadletterqueue.topic.replication.factor has no effect: Spark's Kafka sink never creates "
                "topics (the broker's auto-create settings, or whoever creates the topic, decide)",
                ("deadletterqueue.topic.replication.factor",),
                "create the dead-letter topic up front",
                warning=True,
            )
        )
    targets = [key for key, value in ((TOPIC, policy.dlq_topic), (PATH, policy.dlq_path)) if value is not None]
    if policy.tolerance != "all":
        return notes + [
            Problem(
                "E108",
                f"{key} needs tolerance: all (with tolerance: none the job fails on a bad record)",
                (key,),
                "add `tolerance: all` to send bad records there, or remove the key",
            )
            for key in targets
        ]
    problems = notes
    if policy.dlq_properties and policy.dlq_topic is None:
        problems.append(
            Problem(
                "E108",
                f"{PROPERTIES} configures the dead-letter topic, but there is none",
                (PROPERTIES,),
                f"add `{TOPIC}: <topic>`, or remove {PROPERTIES}",
            )
        )
    for key, _ in policy.dlq_properties:
        if key in REFUSED_PRODUCER_PROPERTIES:
            problems.append(
                Problem(
                    "E108",
                    f"Spark's Kafka sink refuses the producer property '{key}'",
                    (PROPERTIES, key),
                    "dead letters are written as the bytes read: remove it",
                )
            )
    if not targets:
        problems.append(
            Problem(
                "E107",
                "tolerance: all needs a dead-letter target: pipec never drops a bad record silently",
                ("tolerance",),
                f"add `{TOPIC}: <topic>` or `{PATH}: <folder>`",
            )
        )
    if source is not None and source_connector is not None:
        problems += [
            Problem("E109", message, path, hint, block="source")
            for message, path, hint in source_connector.dead_letter_refusals(source)
        ]
    return problems


def dead_letter_options(source: Source, policy: ErrorPolicy) -> str:
    """The producer options of the dead-letter topic (a dict expression): the source's cluster and properties, then
    `deadletterqueue.properties`; its own bootstrap.servers is another cluster, which --bootstrap-servers leaves."""
    props = dict(source.config.properties)
    own = dict(policy.dlq_properties)
    servers = props.pop("bootstrap.servers", None)
    if "bootstrap.servers" in own:
        options = [("kafka.bootstrap.servers", render.text_expr(own.pop("bootstrap.servers")))]
    else:
        options = [("kafka.bootstrap.servers", f"args.bootstrap_servers or {render.text_expr(servers)}")]
    options += [(f"kafka.{k}", render.text_expr(v)) for k, v in {**props, **own}.items()]
    return render.dict_expr(options)


def dead_letters_in_one_write(source: Source, sink: Sink, policy: ErrorPolicy) -> bool:
    """Whether the sink's rows and the dead letters go out in one write (docs/errors.md): a kafka sink, whose rows
    each name their topic, and a dead-letter topic written through the same producer options."""
    connector = SINKS[sink.connector]
    if policy.tolerance != "all" or policy.dlq_topic is None or not connector.writes_kafka or connector.per_key_state:
        return False
    return dead_letter_options(source, policy) == connector.writer(sink, source)["options"]
