"""The transform and predicate parts of `schemas/pipeline.schema.json`, generated from the registry, the source and
sink connector blocks, generated from the connectors' config records (connector_schema.py), and the Schema Registry
options of Kafka key and value blocks, generated from `connectors/schema_registry.py`.

Generated: the `TransformStep` and `Predicate` dispatchers (the `type` enum and description, one if/then per
transform or predicate) and one closed `$defs` entry per transform and predicate, restating each `ConfigKey`
(kind, default, doc, choices, required, non-empty, needed keys). Each carries `"$comment": MARK`. Every key or
value block that takes a `schema-id` gets the registry options (`url`, `subject`, client options) after it. The rest
of the file, including the value kinds' definitions (`ConfigString`, `ConfigList`, ...), is written by hand.

`python -m pipec.validate.schema_gen --write` rewrites the generated parts in place; without `--write` it exits 1 when
the checked-in file is stale (tests/unit/test_registry.py fails then too).
"""

from __future__ import annotations

import argparse
import json
import re
import sys

from ..connectors.schema_registry import EXAMPLES as REGISTRY_EXAMPLES
from ..connectors.schema_registry import OPTIONS as REGISTRY_OPTIONS
from ..package_data import SCHEMA_PATH
from ..resolve.builder import STEP_KEYS
from ..transforms import REGISTRY
from ..transforms.base import PACKAGE, PREDICATE_PACKAGE, ConfigKey, PredicateSpec, TransformSpec
from . import connector_schema

MARK = "Generated from the registry (compiler/transforms) by `python -m pipec.validate.schema_gen --write`."

# The hand-written definition of each kind of value, and of a LIST that must not be empty.
KIND_DEFS = {"STRING": "ConfigString", "LIST": "ConfigList", "BOOLEAN": "ConfigBoolean", "INT": "ConfigInt"}
NONEMPTY_LIST = "ConfigNonEmptyList"

# What each transform's def says about the keys every step has (STEP_KEYS; TransformStep validates them).
STEP_KEY_NOTES = {
    "name": "The step's alias (validated on the step): unique in the pipeline, names the step in generated code and in error messages.",
    "type": "{spellings} (with or without the `{package}` package).",
    "predicate": "Alias of a predicate under `predicates` (validated on the step).",
    "negate": "Inverts the predicate (validated on the step); default false.",
}
# TransformStep's own definitions of those keys (`type`: the enum of every spelling, made in step_def).
STEP_PROPERTIES = {
    "name": {
        "type": "string",
        "minLength": 1,
        "maxLength": 255,
        "description": "Required: the step's alias, unique in the pipeline; names the step in generated code and error messages. "
        "At most 255 characters.",
    },
    "predicate": {
        "type": "string",
        "minLength": 1,
        "description": "Alias of a predicate under `predicates`; the step applies only to records it matches (KIP-585).",
    },
    "negate": {
        "$ref": "#/$defs/ConfigBoolean",
        "description": "true: apply the step to records the predicate does NOT match. Needs `predicate`. Default false.",
        "default": False,
    },
}


def ref(name: str) -> dict:
    return {"$ref": f"#/$defs/{name}"}


def any_case(choices: tuple[str, ...]) -> str:
    """A regex matching exactly the choices, in any case: `^([Vv]1|[Vv]2)$`."""

    def letters(word: str) -> str:
        return "".join(f"[{c.upper()}{c.lower()}]" if c.upper() != c.lower() else re.escape(c) for c in word)

    return "^(" + "|".join(letters(c) for c in choices) + ")$"


def key_schema(key: ConfigKey) -> dict:
    """One config key's property schema. Case-insensitive choices are a pattern with the choices as `examples`
    (editors offer them; schema.py names them in its message)."""
    if key.choices and key.ignore_case:
        node: dict = {"type": "string", "pattern": any_case(key.choices), "examples": list(key.choices)}
    elif key.choices:
        node = {"enum": list(key.choices)}
    else:
        node = ref(NONEMPTY_LIST if key.kind == "LIST" and key.nonempty else KIND_DEFS[key.kind])
        if key.kind == "STRING" and key.nonempty:
            node["minLength"] = 1
    node["description"] = f"{key.doc} {key.rules()}".strip()
    if key.default is not None:
        node["default"] = key.default
    return node


def spellings(spec: TransformSpec) -> list[str]:
    return [f"{spec.name}$Key", f"{spec.name}$Value"] if spec.sides else [spec.name]


def _closed(description: str, properties: dict, keys: tuple[ConfigKey, ...]) -> dict:
    node = {"$comment": MARK, "type": "object", "description": description, "properties": properties}
    required = [k.name for k in keys if k.required]
    if required:
        node["required"] = required
    needs = {k.name: list(k.requires) for k in keys if k.requires}
    if needs:
        node["dependentRequired"] = needs
    node["additionalProperties"] = False
    return node


def transform_def(spec: TransformSpec) -> dict:
    names = spellings(spec)
    written = " or ".join(f"`{n}`" for n in names)
    steps = {k: {"description": STEP_KEY_NOTES[k].format(spellings=written, package=spec.package)} for k in STEP_KEYS}
    properties = {**steps, **{k.name: key_schema(k) for k in spec.keys}}
    return _closed(f"{' / '.join(names)}: {spec.doc}", properties, spec.keys)


def predicate_def(spec: PredicateSpec) -> dict:
    kind = {"description": f"`{spec.name}` (with or without the `{PREDICATE_PACKAGE}` package)."}
    properties = {"type": kind, **{k.name: key_schema(k) for k in spec.keys}}
    return _closed(f"{spec.name}: {spec.doc}", properties, spec.keys)


def _dispatch(pattern: str, target: str) -> dict:
    """if `type` matches the pattern then the target def (guarded by type checks, so a wrong type selects none)."""
    test = {"type": "object", "properties": {"type": {"type": "string", "pattern": pattern}}, "required": ["type"]}
    return {"if": test, "then": ref(target)}


def _package_pattern(package: str) -> str:
    return "^(" + re.escape(package) + ")?"


def step_def(transforms: list[TransformSpec]) -> dict:
    bare = [n for s in transforms for n in spellings(s)]
    kind = {
        "enum": bare + [s.package + n for s in transforms for n in spellings(s)],
        "description": f"Required: the Kafka Connect transform class, with or without its package (`{PACKAGE}` for "
        "Kafka's own); "
        f"`$Key`/`$Value` picks the variant where Kafka has both: {', '.join(bare)}.",
    }
    properties = {k: kind if k == "type" else STEP_PROPERTIES[k] for k in STEP_KEYS}
    variants = {True: r"\$(Key|Value)$", False: "$"}
    return {
        "$comment": MARK,
        "type": "object",
        "description": "One transform step (Kafka Connect SMT): `name`, `type`, optional `predicate`/`negate`, and the "
        "transform's own config keys, spelled as in Kafka Connect.",
        "properties": properties,
        "required": ["name", "type"],
        "dependentRequired": {"negate": ["predicate"]},
        "allOf": [_dispatch(_package_pattern(s.package) + s.name + variants[s.sides], s.name) for s in transforms],
    }


def predicate_dispatch_def(predicates: list[PredicateSpec]) -> dict:
    names = [p.name for p in predicates]
    listed = ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]
    return {
        "$comment": MARK,
        "type": "object",
        "description": "A predicate (KIP-585): `type` and its own config keys.",
        "properties": {
            "type": {
                "enum": names + [PREDICATE_PACKAGE + n for n in names],
                "description": f"Required: {listed}, with or without the `{PREDICATE_PACKAGE}` package.",
            }
        },
        "required": ["type"],
        "allOf": [_dispatch(_package_pattern(PREDICATE_PACKAGE) + n + "$", n) for n in names],
    }


def generated_defs() -> list[dict[str, dict]]:
    """The generated `$defs`, in groups, each kept together where it stands in the file: transforms and predicates
    (from the registry), then the connectors' dispatchers and blocks (from their config records)."""
    transforms = sorted(REGISTRY.transforms.values(), key=lambda s: s.name)
    predicates = sorted(REGISTRY.predicates.values(), key=lambda s: s.name)
    dispatchers = {"TransformStep": step_def(transforms), "Predicate": predicate_dispatch_def(predicates)}
    configs = {s.name: transform_def(s) for s in transforms} | {p.name: predicate_def(p) for p in predicates}
    return [dispatchers, configs, *connector_schema.generated_defs()]


def registry_option(name: str, doc: str) -> dict:
    return {"type": "string", "minLength": 1, "description": doc, "examples": [REGISTRY_EXAMPLES[name]]}


def with_registry_options(node: object) -> object:
    """`node` with the registry options following `schema-id` in every block that has one."""
    if isinstance(node, list):
        return [with_registry_options(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: with_registry_options(v) for k, v in node.items()}
    properties = out.get("properties")
    if isinstance(properties, dict) and "schema-id" in properties:
        rebuilt: dict = {}
        for name, prop in properties.items():
            if name in REGISTRY_OPTIONS:
                continue
            rebuilt[name] = prop
            if name == "schema-id":
                rebuilt.update({k: registry_option(k, doc) for k, doc in REGISTRY_OPTIONS.items()})
        out["properties"] = rebuilt
    return out


def regenerate(schema: dict) -> dict:
    """`schema` with its generated `$defs` replaced: each group where its first member stood (new groups at the
    end); a def generated earlier for something the registry no longer has is dropped."""
    groups = generated_defs()
    owner = {name: i for i, group in enumerate(groups) for name in group}
    defs: dict[str, dict] = {}
    placed: set[int] = set()
    for name, node in schema["$defs"].items():
        if name in owner:
            if owner[name] not in placed:
                defs.update(groups[owner[name]])
                placed.add(owner[name])
        elif node.get("$comment") not in (MARK, connector_schema.MARK):
            defs[name] = node
    for i, group in enumerate(groups):
        if i not in placed:
            defs.update(group)
    return with_registry_options({**schema, "$defs": defs})


def render(text: str) -> str:
    """The schema file's text with its generated parts current."""
    return json.dumps(regenerate(json.loads(text)), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipec.validate.schema_gen", description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the generated parts (default: only check them)")
    args = parser.parse_args(argv)
    current = SCHEMA_PATH.read_text(encoding="utf-8")
    fresh = render(current)
    if fresh == current:
        print(f"{SCHEMA_PATH.name} is current")
        return 0
    if not args.write:
        print(f"{SCHEMA_PATH} is stale: run python -m pipec.validate.schema_gen --write", file=sys.stderr)
        return 1
    SCHEMA_PATH.write_text(fresh, encoding="utf-8")
    print(f"wrote {SCHEMA_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
