"""What a transform or predicate is to the compiler: config keys, parse, infer (schema), lower (IR)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import ir
from ..diagnostics import Collector, Location, did_you_mean, one_of, shown
from ..load.document import SourceMap
from ..shape import Shape
from .field_paths import PathSyntaxError, parse_path
from .moves import Moves

PACKAGE = "org.apache.kafka.connect.transforms."  # Kafka's own transforms; a spec from elsewhere names its package
PREDICATE_PACKAGE = PACKAGE + "predicates."
READS, WRITES = "reads", "writes"


def _string(raw: Mapping[str, str]) -> str:
    """A field's likely type when nothing says more."""
    return "STRING"


@dataclass(frozen=True, slots=True)
class Names:
    """What each item of a config key (each LIST item, or the one value) names: a field or header the step reads or
    writes. Column lineage's tests check it against the step's moves; `pipec import connect` makes a source column
    of each field a step reads."""

    role: str  # READS: the step reads it (a field that is not there is a compile error); WRITES: the step writes it
    of: str = (
        "side"  # "side": a field of the step's key or value; "value": a field of the value; "header": a header key
    )
    path: bool = True  # a field path, read under the step's field.syntax.version (KIP-821); False: one name as written
    part: int | None = None  # items are `a:b` and the name is part 0 or 1 (an item without ':' names nothing)
    marks: str = ""  # characters an item may end with that are no part of the name (InsertField's `!` and `?`)
    likely_type: Callable[[Mapping[str, str]], str] = (
        _string  # the type a field read here most likely has, from the step's raw config
    )


READ_FIELDS = (Names(READS),)  # a key naming fields of the step's side that it reads


@dataclass(frozen=True, slots=True)
class ConfigKey:
    """One Kafka Connect config key, as its ConfigDef declares it: the whole contract of the key, from which the
    JSON Schema (compiler/validate/schema_gen.py), docs/transforms.md (compiler/transforms/docs.py) and the schema tests are made."""

    name: str
    kind: str  # STRING | LIST | BOOLEAN | INT
    default: Any  # None: no default
    doc: str
    choices: tuple[str, ...] = ()  # the only values accepted (STRING)
    required: bool = False
    nonempty: bool = False  # STRING: at least one character; LIST: at least one item
    ignore_case: bool = False  # choices are matched in any case
    requires: tuple[str, ...] = ()  # keys that must be set whenever this one is
    removed: str = ""  # the key that replaced this one: accepted only so the compiler can say so (E303)
    names: tuple[Names, ...] = ()  # the fields or headers each item names; () for a setting

    def rules(self) -> str:
        """The key's constraints in words, for docs and schema descriptions."""
        out = []
        needs = [word for word, on in (("required", self.required), ("non-empty", self.nonempty)) if on]
        if needs:
            out.append(", ".join(needs).capitalize() + ".")
        if self.choices:
            out.append(f"One of: {', '.join(self.choices)}{' (any case)' if self.ignore_case else ''}.")
        if self.requires:
            out.append(f"Needs {', '.join(f'`{k}`' for k in self.requires)}.")
        if self.removed:
            out.append(f"An error here: use `{self.removed}`.")
        return " ".join(out)


def named(key: ConfigKey, value: Any, version: str) -> list[tuple[Names, tuple[str, ...]]]:
    """(names, path steps) of each field or header a key's value names, read as Kafka reads it (a LIST: a YAML list
    or comma-separated text) under `version` (V1 or V2); an item that does not parse names nothing."""
    if value is None or not key.names:
        return []
    if isinstance(value, list):
        items = [java_trim(str(v)) for v in value]
    else:
        text = java_trim(str(value))
        items = re.split(r"\s*,\s*", text) if key.kind == "LIST" and text else [text]
    out = []
    for names in key.names:
        for item in items:
            parts = item.split(":")
            text = java_trim(item if names.part is None else parts[names.part] if len(parts) > 1 else "")
            text = text[:-1] if names.marks and text[-1:] in names.marks else text
            try:
                steps = parse_path(text, version).steps if names.path else (text,)
            except PathSyntaxError:
                continue
            if text and all(steps):
                out.append((names, steps))
    return out


_JAVA_WHITESPACE = "".join(chr(i) for i in range(0x21))


def java_trim(text: str) -> str:
    """Java's String.trim(), which ConfigDef applies: strips code points up to U+0020, nothing else."""
    return text.strip(_JAVA_WHITESPACE)


class ConfigReader:
    """Reads one step's config the way Kafka's ConfigDef does, reporting errors at each key's location."""

    def __init__(self, owner: str, raw: dict, smap: SourceMap, path: tuple, diags: Collector):
        self.owner, self.raw, self.smap, self.path, self.diags = owner, raw, smap, path, diags

    def loc(self, key: str | None = None) -> Location:
        return self.smap.at(self.path + ((key,) if key else ()))

    def item_loc(self, key: str, item: str) -> Location:
        """Where a LIST key's item stands (the key's value for a comma-separated string)."""
        value = self.raw.get(key)
        if isinstance(value, list):
            for i, v in enumerate(value):
                if str(v).strip() == item:
                    return self.smap.at(self.path + (key, i))
        return self.loc(key)

    def key_loc(self, key: str) -> Location:
        return self.smap.key(self.path + (key,))

    def error(self, key: str | None, message: str, hint: str | None = None, code: str = "E300") -> None:
        self.diags.error(code, f"{self.owner}: {message}", self.loc(key), hint)

    def has(self, key: str) -> bool:
        return key in self.raw

    def _scalar(self, key: str) -> str | None:
        value = self.raw.get(key)
        if value is None:
            return None
        if isinstance(value, (dict, list)):
            self.error(
                key, f"'{key}' must be a single value", "write one value; a list goes only where Kafka takes a LIST"
            )
            return None
        text = str(value).lower() if isinstance(value, bool) else str(value)
        return java_trim(text)

    def string(self, key: str, default: str | None = None, required: bool = False) -> str | None:
        value = self._scalar(key)
        if value is None:
            if required:
                self.error(None, f"'{key}' is required", f"add {key}: to the step", code="E301")
            return default
        return value

    def nonempty(self, key: str) -> str | None:
        value = self.string(key, required=True)
        if value == "":
            self.error(key, f"'{key}' must be non-empty", f"write a value for {key}, or remove it where it is optional")
            return None
        return value

    def items(self, key: str) -> list[str]:
        """A LIST key: a YAML list, or Kafka's comma-separated string (trimmed, split on commas)."""
        value = self.raw.get(key)
        if value is None:
            return []
        if isinstance(value, list):
            out = []
            for i, item in enumerate(value):
                if isinstance(item, (dict, list)) or item is None:
                    self.diags.error(
                        "E300",
                        f"{self.owner}: '{key}' items must be strings",
                        self.smap.at(self.path + (key, i)),
                        "write each item as text: [a, b], or Kafka's comma-separated string a,b",
                    )
                    continue
                out.append(java_trim(str(item)))
            return out
        text = java_trim(str(value))
        return [] if text == "" else re.split(r"\s*,\s*", text)

    def boolean(self, key: str, default: bool) -> bool:
        value = self.raw.get(key)
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("true", "false"):
            return text == "true"
        self.error(key, f"'{key}' must be true or false, not {shown(value)}", "write true or false")
        return default

    def enum(self, key: str, choices: tuple[str, ...], default: str, ignore_case: bool = False) -> str:
        value = self.string(key)
        if value is None:
            return default
        match = [c for c in choices if (c.lower() == value.lower() if ignore_case else c == value)]
        if not match:
            self.error(
                key,
                f"'{key}' must be {one_of(choices)}, not '{value}'",
                did_you_mean(value, choices) or f"write {one_of(choices)}",
            )
            return default
        return match[0]


@dataclass(frozen=True, slots=True)
class Context:
    """What a transform sees while inferring its output shape."""

    owner: str  # "ReplaceField$Value 'drop_ssn'" for messages
    side: str | None
    reader: ConfigReader
    diags: Collector

    def error(self, key: str | None, message: str, hint: str, code: str, item: str | None = None) -> None:
        """Report at the key's value, or at the LIST item `item` of that key."""
        loc = self.reader.item_loc(key, item) if key and item is not None else self.reader.loc(key)
        self.diags.error(code, f"{self.owner}: {message}", loc, hint)


@dataclass(frozen=True, slots=True)
class Lowering:
    """What a transform sees while lowering: which side it edits and how to name itself in record errors."""

    owner: str  # e.g. "MaskField$Value 'mask_card'"
    side: str | None

    @property
    def col(self) -> ir.Col:
        """The record column this step edits (`key` or `value`)."""
        assert self.side, "record-level transforms have no side"
        return ir.Col(self.side)

    def record_error(self, reason: str) -> ir.Expr:
        """An expression that fails the record (the job, under errors.tolerance: none) naming step, reason and position."""
        message = f"{self.owner}: {reason.replace('%', '%%')} (topic %s, partition %s, offset %s)"
        formatted = ir.Func("format_string", (ir.Arg(message), ir.Col("topic"), ir.Col("partition"), ir.Col("offset")))
        return ir.Func("raise_error", (formatted,))

    def fail_if(self, cond: ir.Expr, reason: str, value: ir.Expr) -> ir.Expr:
        """`value`, or a record error where `cond` holds."""
        return ir.If(cond, self.record_error(reason), value)


@dataclass(frozen=True, slots=True)
class TransformSpec:
    """A transform family: Kafka's class with its Key/Value variants as one parameterised implementation.

    parse(reader) -> config          read and check the config keys
    infer(config, shape, ctx) -> Shape   the output shape; errors for fields the shape lacks
    lower(config, shape, lowering) -> tuple[ir.Op, ...]   native Spark operations on `records`
    lineage(config, side, shape) -> Moves   the slots it sets and where their values come from (moves.py)
    """

    name: str
    purpose: str
    doc: str
    keys: tuple[ConfigKey, ...]
    parse: Callable[[ConfigReader], Any]
    infer: Callable[[Any, Shape, Context], Shape]
    lower: Callable[[Any, Shape, Lowering], tuple[ir.Op, ...]]
    lineage: Callable[[Any, str | None, Shape], Moves]
    sides: bool = True  # Key/Value variants
    routes: bool = False  # sets the record's topic: the sink writes to the topics it names
    filters: bool = False  # drops records (`pipec diff` judges adding or removing it by Spark's rule for filters)
    example: str = ""
    differences: tuple[str, ...] = ()  # deliberate differences from Kafka, for docs
    package: str = PACKAGE  # the Java package of its class, e.g. "io.confluent.connect.transforms." for Confluent's
    describe: Callable[[Any, str], str] = lambda cfg, side: (
        ""
    )  # (config, "key"/"value"/"record") -> what it does, in words

    def java_class(self, side: str | None) -> str:
        """The Java class Kafka Connect runs for this spec on `side`, e.g. `...transforms.Cast$Value`."""
        return self.package + self.name + (f"${side.capitalize()}" if side else "")


def names(items) -> str:
    """`a, b and c` for a step comment."""
    items = list(items)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


@dataclass(frozen=True, slots=True)
class PredicateSpec:
    """A KIP-585 predicate: parse its config, lower it to a boolean Column."""

    name: str
    doc: str
    keys: tuple[ConfigKey, ...]
    parse: Callable[[ConfigReader], Any]
    lower: Callable[[Any], ir.Expr]
    reads: Callable[
        [Any], str
    ]  # what the condition reads, as lineage names it: `metadata:topic`, `header:<key>`, `value`
    example: str = ""
    lower_changelog: Callable[[Any], ir.Expr] | None = (
        None  # the condition on a changelog (records with `op`), if it differs
    )

    def condition(self, config: Any, changelog: bool) -> ir.Expr:
        """The predicate as a boolean Column, for records with (changelog) or without an `op` column."""
        return self.lower_changelog(config) if changelog and self.lower_changelog else self.lower(config)


@dataclass(slots=True)
class Registry:
    """The one registry of transforms and predicates."""

    transforms: dict[str, TransformSpec] = field(default_factory=dict)
    predicates: dict[str, PredicateSpec] = field(default_factory=dict)

    def add(self, spec: TransformSpec | PredicateSpec) -> None:
        table = self.transforms if isinstance(spec, TransformSpec) else self.predicates
        assert spec.name not in table, spec.name
        table[spec.name] = spec

    def spellings(self) -> list[str]:
        """Every accepted short `type` spelling of a transform."""
        out = []
        for spec in self.transforms.values():
            out += [f"{spec.name}$Key", f"{spec.name}$Value"] if spec.sides else [spec.name]
        return out

    def lookup(self, type_name: str) -> tuple[TransformSpec | None, str | None]:
        """(spec, side) for a `type` as written, with or without the spec's package; (None, None) if unknown."""
        package, _, short = type_name.rpartition(".")
        base, _, variant = short.partition("$")
        spec = self.transforms.get(base)
        if spec is None or (package and package + "." != spec.package):
            return None, None
        if spec.sides and variant in ("Key", "Value"):
            return spec, variant.lower()
        if not spec.sides and not variant:
            return spec, None
        return None, None

    def lookup_predicate(self, type_name: str) -> PredicateSpec | None:
        short = type_name[len(PREDICATE_PACKAGE) :] if type_name.startswith(PREDICATE_PACKAGE) else type_name
        return self.predicates.get(short)
