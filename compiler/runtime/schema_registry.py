"""Avro through a Confluent Schema Registry (SCHEMA_REGISTRY): its REST API over HTTP from the driver, standard
library only.

An avro-confluent source decodes each record with the writer schema its id names: the job fetches every version of
the subject when it starts, and an id it has not met stops the query (or batch run), is fetched, and the query runs
again from its checkpoint (registry_main). A sink registers its schema under the subject and frames records with
the id the registry returns. The registry's answers shape native expressions; no record leaves the JVM.
"""

from __future__ import annotations

import re
import sys

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from .env import env
from .job_names import PIPELINE, SCHEMA_REGISTRY

# payload -> schema id -> writer schema (None: not in the registry); sink payload -> the id of its schema
WRITER_SCHEMAS: dict[str, dict[int, str | None]] = {}
WRITTEN_IDS: dict[str, int] = {}
_UNFETCHED = re.compile(r"pipec: schema id (\d+) of the (source\.(?:key|value)) is not fetched yet")


def registry_call(payload: str, path: str, body: dict | None = None):
    """The registry's JSON answer to GET `path` (POST `body`), or None when it answers 404 (no such subject,
    version or id); any other failure ends the job with a line that names the registry."""
    import base64
    import json
    import ssl
    import urllib.error
    import urllib.request

    config = {key: env(value) for key, value in SCHEMA_REGISTRY[payload].items()}
    url = config["url"].rstrip("/") + path
    headers = {"Accept": "application/vnd.schemaregistry.v1+json, application/json"}
    if "basic-auth.user-info" in config:
        user_info = base64.b64encode(config["basic-auth.user-info"].encode()).decode()
        headers["Authorization"] = f"Basic {user_info}"
    if "bearer-auth.token" in config:
        headers["Authorization"] = f"Bearer {config['bearer-auth.token']}"
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/vnd.schemaregistry.v1+json"
    request = urllib.request.Request(url, data=data, headers=headers)
    tls = ssl.create_default_context(cafile=config.get("ssl.ca-location"))
    try:
        context = tls if url.startswith("https:") else None
        with urllib.request.urlopen(request, timeout=30, context=context) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return None
        detail = error.read().decode(errors="replace")[:500]
        raise SystemExit(f"{PIPELINE}: Schema Registry {url}: HTTP {error.code} {detail}") from None
    except (OSError, ValueError) as error:
        raise SystemExit(f"{PIPELINE}: Schema Registry {url}: {error}") from None


def subject_path(payload: str) -> str:
    import urllib.parse

    return "/subjects/" + urllib.parse.quote(env(SCHEMA_REGISTRY[payload]["subject"]), safe="")


def fetch_writer_schemas(payload: str, ids: list[int] | None = None) -> None:
    """Every version of the payload's subject (ids None), or the schemas of these ids; a non-Avro schema counts
    as unknown."""
    known = WRITER_SCHEMAS.setdefault(payload, {})
    if ids is None:
        for version in registry_call(payload, subject_path(payload) + "/versions") or []:
            answer = registry_call(payload, f"{subject_path(payload)}/versions/{version}")
            if answer and answer.get("schemaType", "AVRO") == "AVRO":
                known[answer["id"]] = answer["schema"]
        return
    for schema_id in ids:
        answer = registry_call(payload, f"/schemas/ids/{schema_id}")
        avro = answer is not None and answer.get("schemaType", "AVRO") == "AVRO"
        known[schema_id] = answer["schema"] if avro else None
        unknown = "" if avro else ": not in the registry"
        print(f"[{PIPELINE}] fetched schema id {schema_id} of {payload}{unknown}", file=sys.stderr)


def confluent_header(schema_id: int) -> Column:
    return F.unhex(F.lit(f"00{schema_id:08X}"))


def from_registry(payload: Column, name: str, options: dict) -> Column:
    """Confluent-framed Avro decoded with the writer schema its id names and resolved to options' reader schema:
    one from_avro per writer schema, chosen by the 5-byte header. An id not fetched yet fails the query with an
    error that main() answers by fetching it."""
    from pyspark.sql.avro.functions import from_avro

    if name not in WRITER_SCHEMAS:
        fetch_writer_schemas(name)
    header, body = F.substring(payload, 1, 5), F.substring(payload, 6, 2147483647)
    schema_id = F.conv(F.hex(F.substring(payload, 2, 4)), 16, 10)
    unfetched = F.raise_error(
        F.format_string(f"pipec: schema id %s of the {name} is not fetched yet", schema_id)
    )
    decoded = None
    for known, schema in sorted(WRITER_SCHEMAS[name].items()):
        if schema is not None:
            test, branch = header == confluent_header(known), from_avro(body, schema, options)
            decoded = F.when(test, branch) if decoded is None else decoded.when(test, branch)
    return unfetched if decoded is None else decoded.otherwise(unfetched)


def schema_rejected(payload: Column, name: str) -> Column:
    """Whether a record's schema id is one the registry does not know (a record error)."""
    if name not in WRITER_SCHEMAS:
        fetch_writer_schemas(name)
    rejected = [confluent_header(i) for i, s in sorted(WRITER_SCHEMAS[name].items()) if s is None]
    return F.substring(payload, 1, 5).isin(rejected) if rejected else F.lit(False)


def to_registry(record: Column, name: str, schema: str) -> Column:
    """Avro of `schema`, framed with the id the registry gives the schema under the payload's subject (registered
    there unless it is already)."""
    from pyspark.sql.avro.functions import to_avro

    if name not in WRITTEN_IDS:
        answer = registry_call(name, subject_path(name) + "/versions", {"schema": schema})
        if answer is None:
            raise SystemExit(f"{PIPELINE}: Schema Registry: no subject path for {name}")
        WRITTEN_IDS[name] = answer["id"]
    return F.concat(confluent_header(WRITTEN_IDS[name]), to_avro(record, schema))


def fetched_after(exc: BaseException) -> bool:
    """Whether the failure names schema ids the job had not fetched, now fetched: run again."""
    unfetched = {(int(i), payload) for i, payload in _UNFETCHED.findall(str(exc))}
    new = [(i, name) for i, name in sorted(unfetched) if i not in WRITER_SCHEMAS.get(name, {})]
    for schema_id, payload in new:
        fetch_writer_schemas(payload, [schema_id])
    return bool(new)


def fetch_carried_ids(raw: DataFrame) -> None:
    """A batch run's registry sources: the subject's versions, and any other schema id the records carry (one
    scan of their headers), fetched before the run: it never stops half-written on an unmet id."""
    for name in (name for name in SCHEMA_REGISTRY if name.startswith("source.")):
        if name not in WRITER_SCHEMAS:
            fetch_writer_schemas(name)
        payload = F.col(name.split(".")[1])
        framed = F.substring(payload, 1, 1) == F.unhex(F.lit("00"))
        headers = raw.where(framed).select(F.substring(payload, 1, 5).alias("h")).distinct()
        carried = {int.from_bytes(bytes(row.h)[1:], "big") for row in headers.collect()}
        if carried - set(WRITER_SCHEMAS[name]):
            fetch_writer_schemas(name, sorted(carried - set(WRITER_SCHEMAS[name])))
