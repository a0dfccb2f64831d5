"""Checks an OpenLineage event against the model the `openlineage-python` package ships. The package carries the
spec's JSON Schema as generated attrs classes (openlineage.client.generated, each naming its schema URL), not as JSON
files, so an event is checked by building those classes from it strictly: every key must be a field of its class,
every required field present, every value of its declared type, enum values valid, each facet's `_schemaURL` the
one its class is generated from; and the package's own serializer must give the event back (adding only empty defaults)."""

from __future__ import annotations

import enum
import types
import typing

import attr
from openlineage.client.generated import base, column_lineage_dataset, job_type_job, schema_dataset
from openlineage.client.serde import Serde

FACETS = {  # facet name -> its generated class
    "schema": schema_dataset.SchemaDatasetFacet,
    "columnLineage": column_lineage_dataset.ColumnLineageDatasetFacet,
    "jobType": job_type_job.JobTypeJobFacet,
}
FACET_BASES = (base.DatasetFacet, base.JobFacet, base.RunFacet, base.InputDatasetFacet, base.OutputDatasetFacet)


class Invalid(AssertionError):
    pass


def _build(tp, value, where: str, facet_name: str | None = None):
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(tp)
        if value is None and type(None) in options:
            return None
        errors = []
        for option in options:
            if option is type(None):
                continue
            try:
                return _build(option, value, where, facet_name)
            except Invalid as exc:
                errors.append(str(exc))
        raise Invalid("; ".join(errors))
    if origin is list:
        if not isinstance(value, list):
            raise Invalid(f"{where}: expected a list")
        (item,) = typing.get_args(tp)
        return [_build(item, v, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise Invalid(f"{where}: expected an object")
        _, item = typing.get_args(tp)
        return {k: _build(item, v, f"{where}.{k}", k) for k, v in value.items()}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(value)
        except ValueError as exc:
            raise Invalid(f"{where}: {value!r} is not one of {[e.value for e in tp]}") from exc
    if isinstance(tp, type) and attr.has(tp):
        if issubclass(tp, FACET_BASES) and tp not in FACETS.values():
            if facet_name not in FACETS:
                raise Invalid(f"{where}: unknown facet {facet_name!r}")
            tp = FACETS[facet_name]
        return _object(tp, value, where)
    if tp in (str, bool, int, float):
        if not isinstance(value, tp) or (tp is int and isinstance(value, bool)):
            raise Invalid(f"{where}: expected {tp.__name__}, got {value!r}")
        return value
    raise Invalid(f"{where}: unexpected type {tp}")


def _object(cls, data, where: str):
    if not isinstance(data, dict):
        raise Invalid(f"{where}: expected an object for {cls.__name__}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in attr.fields(cls)}
    unknown = set(data) - set(fields)
    if unknown:
        raise Invalid(f"{where}: {cls.__name__} has no field(s) {sorted(unknown)}")
    kwargs = {}
    for name, f in fields.items():
        if name not in data:
            if f.default is attr.NOTHING:
                raise Invalid(f"{where}: {cls.__name__} needs {name}")
            continue
        if not f.init:
            continue
        kwargs[f.alias if getattr(f, "alias", None) else name.lstrip("_")] = _build(
            hints[name], data[name], f"{where}.{name}"
        )
    obj = cls(**kwargs)
    if "_schemaURL" in fields and data.get("_schemaURL") != obj._schemaURL:
        raise Invalid(f"{where}: _schemaURL {data.get('_schemaURL')!r}, but {cls.__name__} is {obj._schemaURL!r}")
    if "schemaURL" in data and data["schemaURL"] != obj.schemaURL:
        raise Invalid(f"{where}: schemaURL {data['schemaURL']!r}, but {cls.__name__} is {obj.schemaURL!r}")
    return obj


def validate_run_event(event: dict) -> base.RunEvent:
    """The package's RunEvent built from `event`; Invalid with the path of the first problem."""
    obj = _object(base.RunEvent, event, "event")
    _same(event, Serde.to_dict(obj), "event")
    return obj


def _same(ours, theirs, where: str) -> None:
    """The package's serialization equals ours, but for the empty defaults it adds (`fields: []`, `inputFacets: {}`)."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for k in set(ours) | set(theirs):
            if k not in ours and theirs[k] in ([], {}):
                continue
            if k not in theirs:
                raise Invalid(f"{where}.{k}: lost by the package's serializer")
            _same(ours[k], theirs[k], f"{where}.{k}")
    elif isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _same(a, b, f"{where}[{i}]")
    elif ours != theirs:
        raise Invalid(f"{where}: {ours!r} serializes as {theirs!r}")
