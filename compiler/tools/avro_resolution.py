"""Avro's schema resolution rules (Avro specification, "Schema Resolution"), on parsed JSON schemas, without a JVM:
whether data written with one schema can be read with another, and where not, which field and why.

Used by `pipec validate --registry` (registry_check.py): the declared columns against a subject's latest schema,
and a sink's schema against the subject's versions under its compatibility level, as Confluent's registry checks
them (Avro's SchemaCompatibility, which also requires records and enums to have the same name or an alias).
"""

from __future__ import annotations

from dataclasses import dataclass

PROMOTIONS = {  # writer type -> the reader types it is promoted or converted to
    "int": {"long", "float", "double"},
    "long": {"float", "double"},
    "float": {"double"},
    "string": {"bytes"},
    "bytes": {"string"},
}
NAMED = ("record", "enum", "fixed")


@dataclass(frozen=True, slots=True)
class Problem:
    """Why data written with one schema cannot be read with another: where (a field path) and what."""

    path: tuple[str, ...]
    message: str

    @property
    def field(self) -> str:
        return ".".join(self.path) or "(the record)"


class Names:
    """A schema's named types (records, enums, fixed) by full and short name, for references to them."""

    def __init__(self, schema: object):
        self.types: dict[str, dict] = {}
        self._collect(schema, "")

    def _collect(self, schema: object, namespace: str) -> None:
        if isinstance(schema, list):
            for branch in schema:
                self._collect(branch, namespace)
        elif isinstance(schema, dict):
            kind = schema.get("type")
            if kind in NAMED:
                space = schema.get("namespace", namespace)
                name = schema["name"]
                self.types[name if "." in name or not space else f"{space}.{name}"] = schema
                self.types.setdefault(name.rsplit(".", 1)[-1], schema)
                namespace = name.rsplit(".", 1)[0] if "." in name else space
            for part in ("fields", "items", "values"):
                for child in schema.get(part, []) if part == "fields" else [schema.get(part)]:
                    self._collect(child["type"] if part == "fields" else child, namespace)
            if isinstance(kind, (dict, list)):
                self._collect(kind, namespace)

    def resolve(self, schema: object) -> object:
        """A reference by name replaced by its definition; `{"type": "int", ...}` by `int` (logical types aside)."""
        if isinstance(schema, str) and schema in self.types:
            return self.types[schema]
        if isinstance(schema, dict) and schema.get("type") not in (*NAMED, "array", "map"):
            return self.resolve(schema["type"])
        return schema


def _kind(schema: object) -> str:
    if isinstance(schema, list):
        return "union"
    return schema if isinstance(schema, str) else schema["type"]


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _shown(schema: object) -> str:
    kind = _kind(schema)
    if kind == "union":
        return "[" + ", ".join(_shown(b) for b in schema) + "]"
    return f"{kind} {schema['name']}" if kind in NAMED else kind


class Resolver:
    """Reads `reader` data written with `writer`: problems() lists what cannot be resolved."""

    def __init__(self, reader: object, writer: object, check_names: bool = True):
        self.readers, self.writers, self.check_names = Names(reader), Names(writer), check_names
        self.reader, self.writer = reader, writer
        self._seen: set[tuple[int, int]] = set()  # record pairs under check (recursive types): resolvable

    def problems(self) -> list[Problem]:
        return self._check(self.reader, self.writer, ())

    def _check(self, reader: object, writer: object, path: tuple[str, ...]) -> list[Problem]:
        reader, writer = self.readers.resolve(reader), self.writers.resolve(writer)
        if _kind(writer) == "union":  # every branch the writer may have written must be readable
            return [p for branch in writer for p in self._check(reader, branch, path)]
        if _kind(reader) == "union":
            for branch in reader:
                if not self._check(branch, writer, path):
                    return []
            return [Problem(path, f"the writer's {_shown(writer)} matches no branch of the reader's {_shown(reader)}")]
        rk, wk = _kind(reader), _kind(writer)
        if rk == wk == "record":
            if (id(reader), id(writer)) in self._seen:
                return []
            self._seen.add((id(reader), id(writer)))
        if rk != wk:
            if rk in PROMOTIONS.get(wk, ()):
                return []
            return [Problem(path, f"the writer's {_shown(writer)} cannot be read as {_shown(reader)}")]
        if rk in NAMED and self.check_names and not self._same_name(reader, writer):
            return [Problem(path, f"the writer's {_shown(writer)} is not the reader's {_shown(reader)} (names differ)")]
        return getattr(self, f"_{rk}", lambda r, w, p: [])(reader, writer, path)

    @staticmethod
    def _same_name(reader: dict, writer: dict) -> bool:
        names = {_short(reader["name"]), *(_short(a) for a in reader.get("aliases", []))}
        return _short(writer["name"]) in names

    def _record(self, reader: dict, writer: dict, path: tuple[str, ...]) -> list[Problem]:
        written = {f["name"]: f for f in writer["fields"]}
        out: list[Problem] = []
        for field in reader["fields"]:
            names = [field["name"], *field.get("aliases", [])]
            match = next((written[n] for n in names if n in written), None)
            here = (*path, field["name"])
            if match is not None:
                out += self._check(field["type"], match["type"], here)
            elif "default" not in field:
                out.append(Problem(here, "the reader's field has no default and the writer does not write it"))
        return out

    def _enum(self, reader: dict, writer: dict, path: tuple[str, ...]) -> list[Problem]:
        missing = [s for s in writer["symbols"] if s not in reader["symbols"]]
        if missing and "default" not in reader:
            return [Problem(path, f"the reader's enum lacks the writer's symbols {', '.join(missing)}")]
        return []

    def _fixed(self, reader: dict, writer: dict, path: tuple[str, ...]) -> list[Problem]:
        if reader["size"] != writer["size"]:
            return [Problem(path, f"fixed of {writer['size']} bytes cannot be read as fixed of {reader['size']}")]
        return []

    def _array(self, reader: dict, writer: dict, path: tuple[str, ...]) -> list[Problem]:
        return self._check(reader["items"], writer["items"], (*path, "[]"))

    def _map(self, reader: dict, writer: dict, path: tuple[str, ...]) -> list[Problem]:
        return self._check(reader["values"], writer["values"], (*path, "{}"))


def read_problems(reader: object, writer: object, check_names: bool = True) -> list[Problem]:
    """What keeps data written with `writer` from being read with `reader` (empty: it can be)."""
    return Resolver(reader, writer, check_names).problems()


# Confluent's compatibility levels: (the new schema must read the old, the old must read the new, against all
# versions rather than the latest)
LEVELS = {
    "NONE": (False, False, False),
    "BACKWARD": (True, False, False),
    "BACKWARD_TRANSITIVE": (True, False, True),
    "FORWARD": (False, True, False),
    "FORWARD_TRANSITIVE": (False, True, True),
    "FULL": (True, True, False),
    "FULL_TRANSITIVE": (True, True, True),
}


def compatibility_problems(new: object, versions: list[object], level: str) -> list[tuple[str, Problem]]:
    """(direction, problem) for a new schema against a subject's versions (oldest first) under `level`."""
    backward, forward, transitive = LEVELS[level]
    against = versions if transitive else versions[-1:]
    out = []
    for old in against:
        if backward:
            out += [("new reads old", p) for p in read_problems(new, old)]
        if forward:
            out += [("old reads new", p) for p in read_problems(old, new)]
    return out
