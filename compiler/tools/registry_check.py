"""`pipec validate --registry [URL]`: a pipeline's avro-confluent payloads against a Schema Registry, without a JVM.

A source's declared columns must read its subject's latest schema by Avro's resolution rules (a column of a type
the writer's field cannot be promoted to is an error at the column; a column the schema lacks reads as null, a
warning). A sink's schema, the one its job would register, must be compatible with the subject's versions under
the subject's compatibility level (or the registry's), as the registry would judge it when the job starts. The
schemas checked are those in the lowered job (its from_registry reader and to_registry schema).
"""

from __future__ import annotations

import base64
import json
import os
import urllib.error
import urllib.parse
import urllib.request

from .. import ir
from ..diagnostics import Collector
from ..envrefs import resolve
from ..lower.record_path import lower
from ..model import Registry
from ..record_errors import DECODED
from ..resolve.builder import Compiled
from .avro_resolution import LEVELS, compatibility_problems, read_problems

TIMEOUT_S = 10


class RegistryError(Exception):
    """The registry could not be asked (unreachable, an HTTP error other than 404, an unresolved reference)."""


def registry_calls(node: object, names: tuple[str, ...]) -> list[ir.Func]:
    """The calls of the job's registry functions in an IR tree."""
    if isinstance(node, ir.Func) and node.name in names:
        return [node]
    if isinstance(node, (tuple, list)):
        return [c for n in node for c in registry_calls(n, names)]
    fields_of = ir.field_names(node)
    if fields_of is not None:
        return [c for name in fields_of for c in registry_calls(getattr(node, name), names)]
    return []


class Client:
    """GETs on one registry payload's Confluent API (its url, or the one given, and its client options)."""

    def __init__(self, registry: Registry, url: str | None, environ: dict[str, str]):
        try:
            self.url = (url or resolve(registry.url.raw, environ)).rstrip("/")
            self.subject = resolve(registry.subject.raw, environ)
            options = {k: resolve(v.raw, environ) for k, v in registry.options}
        except KeyError as exc:
            raise RegistryError(f"{exc.args[0]}: set it, or pass --registry URL") from None
        self.headers = {"Accept": "application/vnd.schemaregistry.v1+json, application/json"}
        if "basic-auth.user-info" in options:
            self.headers["Authorization"] = (
                "Basic " + base64.b64encode(options["basic-auth.user-info"].encode()).decode()
            )
        if "bearer-auth.token" in options:
            self.headers["Authorization"] = "Bearer " + options["bearer-auth.token"]
        self.cafile = options.get("ssl.ca-location")

    def get(self, path: str) -> object | None:
        """The JSON answer, or None for 404."""
        import ssl

        request = urllib.request.Request(self.url + path, headers=self.headers)
        context = ssl.create_default_context(cafile=self.cafile) if self.url.startswith("https:") else None
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S, context=context) as answer:
                return json.load(answer)
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                return None
            raise RegistryError(f"{self.url}{path}: HTTP {exc.code}") from None
        except (OSError, ValueError) as exc:
            raise RegistryError(f"{self.url}{path}: {exc}") from None

    def subject_path(self) -> str:
        return "/subjects/" + urllib.parse.quote(self.subject, safe="")

    def level(self) -> str:
        """The subject's compatibility level, else the registry's."""
        for path in (f"/config/{urllib.parse.quote(self.subject, safe='')}", "/config"):
            answer = self.get(path)
            if isinstance(answer, dict) and answer.get("compatibilityLevel"):
                return str(answer["compatibilityLevel"]).upper()
        return "BACKWARD"


def check_source(client: Client, registry: Registry, reader: dict, compiled: Compiled, diags: Collector) -> None:
    latest = client.get(client.subject_path() + "/versions/latest")
    if latest is None:
        diags.error(
            "E252",
            f"{registry.payload}: subject '{client.subject}' has no schema in the registry at {client.url}",
            registry.loc,
            "register the topic's schema first, or set subject",
        )
        return
    writer = json.loads(latest["schema"])
    at = f"subject '{client.subject}' version {latest.get('version')} (id {latest.get('id')})"
    columns = {c.name: c.loc for c in compiled.pipeline.source.config.columns}
    for problem in read_problems(reader, writer, check_names=False):
        diags.error(
            "E249",
            f"{registry.payload}: column '{problem.field}' cannot read {at}: {problem.message}",
            columns.get(problem.path[0], registry.loc) if problem.path else registry.loc,
            "declare a type the writer's type is promoted to (int -> long -> float -> double, string <-> bytes)",
        )
    written = {f["name"] for f in writer.get("fields", [])} if isinstance(writer, dict) else set()
    for field in reader["fields"]:
        if field["name"] != DECODED and field["name"] not in written:
            diags.warn(
                "W250",
                f"{registry.payload}: column '{field['name']}' is not in {at}: it reads as null",
                columns.get(field["name"], registry.loc),
                "remove the column, or add the field to the subject's schema",
            )


def check_sink(client: Client, registry: Registry, schema: dict, diags: Collector) -> None:
    versions = client.get(client.subject_path() + "/versions")
    if not versions:
        return  # a new subject: the job's first registration
    level = client.level()
    if level not in LEVELS:
        return
    old = [json.loads(client.get(f"{client.subject_path()}/versions/{v}")["schema"]) for v in sorted(versions)]
    for direction, problem in compatibility_problems(schema, old, level):
        diags.error(
            "E251",
            f"{registry.payload}: the schema the job would register under '{client.subject}' is not {level} "
            f"compatible ({direction}): field '{problem.field}': {problem.message}",
            registry.loc,
            "change the columns the sink writes, or the subject's compatibility level",
        )


def check_registries(
    compiled: Compiled, url: str | None, diags: Collector, environ: dict[str, str] | None = None
) -> None:
    """Check every registry payload of one compiled pipeline against its registry (or `url`)."""
    p = compiled.pipeline
    by_payload = {r.payload: r for r in p.source.registries + p.sink.registries}
    if not by_payload:
        return
    lowered = lower(compiled)
    calls = registry_calls((lowered.decode, lowered.encode), ("from_registry", "to_registry"))
    for call in calls:
        registry = by_payload[call.args[1].value]
        try:
            client = Client(registry, url, dict(os.environ) if environ is None else environ)
            if call.name == "from_registry":
                check_source(client, registry, json.loads(call.args[2].value["avroSchema"]), compiled, diags)
            else:
                check_sink(client, registry, json.loads(call.args[2].value), diags)
        except RegistryError as exc:
            diags.error(
                "E252",
                f"{registry.payload}: cannot ask the Schema Registry: {exc}",
                registry.loc,
                "check the url and that the registry is up, or validate without --registry",
            )
