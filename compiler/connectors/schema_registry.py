"""avro-confluent through a Schema Registry: the options of a key or value block, their rules, and the job's settings.

The options are declared once, here (OPTIONS): `schema_gen` writes them into every key and value block of the JSON
Schema that takes a `schema-id`. A source's job fetches writer schemas by id from the registry and a sink's registers
the schema derived from its columns (the job's runtime: compiler/runtime/schema_registry.py, `from_registry`, `to_registry`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..diagnostics import Collector, Location
from ..envrefs import Text
from ..model import Registry

FORMAT = "avro-confluent"
OPTIONS = {
    "url": "Schema Registry URL (Confluent's REST API, http:// or https://; may use ${env:...}), avro-confluent only: "
    "a source decodes each record with the writer schema its id names, fetched from the registry, resolved to the "
    "declared columns; a sink registers the schema derived from its columns under `subject` and frames records with "
    "the returned id. Without it, `schema-id` frames records and no registry is called.",
    "subject": "The subject (needs `url`). Default: TopicNameStrategy's <topic>-key or <topic>-value, which needs exactly "
    "one topic.",
    "basic-auth.user-info": "USER:PASSWORD for HTTP basic authentication at the registry (needs `url`; Flink's "
    "basic-auth.user-info); write it as ${env:...}.",
    "bearer-auth.token": "A token sent as `Authorization: Bearer` to the registry (needs `url`; Flink's "
    "bearer-auth.token); write it as ${env:...}.",
    "ssl.ca-location": "A PEM file of the certificate authorities an https registry is checked against (needs `url`; "
    "default: the system's).",
}
EXAMPLES = {  # what the reference (docs/reference/keys.md) and editors show for each
    "url": "${env:SCHEMA_REGISTRY_URL:-http://localhost:8081}",
    "subject": "orders-value",
    "basic-auth.user-info": "${env:REGISTRY_USER_INFO}",
    "bearer-auth.token": "${env:REGISTRY_TOKEN}",
    "ssl.ca-location": "/etc/ssl/certs/registry-ca.pem",
}
CLIENT_OPTIONS = ("basic-auth.user-info", "bearer-auth.token", "ssl.ca-location")
_URL = re.compile(r"https?://[^/\s?#]+(/\S*)?")


def registry_of(block: dict, payload: str, topic: Text | None, loc: Location) -> Registry | None:
    """The Registry of a key or value block that sets `url` (`topic`: the one topic a default subject is named after)."""
    if "url" not in block:
        return None
    side = payload.split(".")[1]
    subject = Text(str(block["subject"])) if "subject" in block else Text(f"{topic.raw if topic else ''}-{side}")
    options = tuple((k, Text(str(block[k]))) for k in CLIENT_OPTIONS if k in block)
    return Registry(payload, Text(str(block["url"])), subject, options, loc)


def check_block(
    block: dict, fmt: str | None, payload: str, one_topic: bool, diags: Collector, key_at: Callable[[str], Location]
) -> None:
    """The rules of a key or value block's registry options (`one_topic`: a default subject can be named)."""
    side = payload.split(".")[1]  # hints name the key as written inside its block
    written = [k for k in OPTIONS if k in block]
    if written and fmt != FORMAT:
        diags.error(
            "E245",
            f"{payload}.{written[0]} applies to format {FORMAT} only, not {fmt}",
            key_at(written[0]),
            f"remove it, or set {side}.format: {FORMAT}",
        )
        return
    if written and "url" not in block:
        diags.error(
            "E245",
            f"{payload}.{written[0]} needs {payload}.url (the Schema Registry it applies to)",
            key_at(written[0]),
            f"add {side}.url: ${{env:SCHEMA_REGISTRY_URL}}",
        )
        return
    if "url" not in block:
        return
    if "schema-id" in block:
        diags.error(
            "E246",
            f"{payload}.schema-id and {payload}.url exclude each other: with a registry each record carries the "
            "id of its own schema",
            key_at("schema-id"),
            "remove schema-id",
        )
    url = Text(str(block["url"]))
    if not url.has_env and not _URL.fullmatch(url.literal):
        diags.error(
            "E248",
            f"{payload}.url '{url.literal}' is not an http:// or https:// URL",
            key_at("url"),
            "write the registry's base URL, e.g. http://localhost:8081",
        )
    if "subject" not in block and not one_topic:
        diags.error(
            "E247",
            f"{payload}.url needs {payload}.subject here: the default subject <topic>-{side} needs exactly one topic",
            key_at("url"),
            f"add {side}.subject",
        )


def settings(registries: tuple[Registry, ...]) -> dict[str, dict[str, str]]:
    """The job's SCHEMA_REGISTRY: payload -> url, subject and client options, as written (the job resolves
    ${env:...} when it runs)."""
    return {
        r.payload: {"url": r.url.raw, "subject": r.subject.raw, **{k: v.raw for k, v in r.options}} for r in registries
    }


def through(registries: tuple[Registry, ...], payload: str) -> str | None:
    """`payload` when it goes through a Schema Registry, else None."""
    return payload if any(r.payload == payload for r in registries) else None
