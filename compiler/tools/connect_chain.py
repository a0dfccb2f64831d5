"""The chain part of `pipec import connect`: a connector's transforms, predicates and errors.* keys as pipeline YAML,
in the connector's order, with its names and comments (the rest of the import is connect_import.py)."""

from __future__ import annotations

import re

from ..diagnostics import did_you_mean
from ..transforms import PREDICATE_PACKAGE, REGISTRY
from .connect_config import Entry
from .connect_debezium import IS_DELETE, flattened_steps
from .yaml_text import YamlWriter

ERRORS = {  # Connect's errors.* key -> pipec's errors: key
    "errors.tolerance": "tolerance",
    "errors.deadletterqueue.topic.name": "deadletterqueue.topic.name",
    "errors.deadletterqueue.context.headers.enable": "deadletterqueue.context.headers.enable",
    "errors.log.enable": "log.enable",
    "errors.log.include.messages": "log.include.messages",
}


def connect_boolean(text: str) -> bool | str:
    """ConfigDef's BOOLEAN: `true`/`false` in any case, trimmed; other text stays text (validate refuses it)."""
    word = text.strip().lower()
    return word == "true" if word in ("true", "false") else text.strip()


# How Connect's ConfigDef reads these errors.* values from their text (a .properties value is always text):
# BOOLEAN is true or false in any case, trimmed; errors.tolerance is none or all in any case (ToleranceType).
ERROR_VALUES = {
    "tolerance": lambda text: text.strip().lower(),
    "deadletterqueue.context.headers.enable": connect_boolean,
    "log.enable": connect_boolean,
    "log.include.messages": connect_boolean,
}


class ChainImport:
    """The Importer's methods that write the chain; they read the Importer's config (`c`), `used`, `flat` and `out`."""

    def comments_of(self, key: str) -> tuple[str, ...]:
        e = self.c.entries.get(key)
        return e.comments if e else ()

    def aliases(self, key: str) -> list[str]:
        value = self.take(key) or ""
        return [a for a in re.split(r"\s*,\s*", value.strip()) if a]

    def steps(self) -> list[tuple[str, Entry | None, dict[str, str], list[Entry]]]:
        """(alias, type entry, config, entries) of each transform, in the `transforms` order."""
        out = []
        for alias in self.aliases("transforms"):
            prefix = f"transforms.{alias}."
            entries = self.c.under(prefix)
            self.used.update(e.key for e in entries)
            type_entry = self.c.entries.get(prefix + "type")
            if type_entry is None:
                self.refuse(
                    "transforms",
                    f"transform '{alias}' has no {prefix}type",
                    f"add {prefix}type=<class>, as Kafka Connect requires",
                )
                continue
            out.append((alias, type_entry, {e.key[len(prefix) :]: e.value for e in entries}, entries))
        return out

    def write_steps(self, y: YamlWriter, steps, predicates: set[str]) -> None:
        for alias, type_entry, config, entries in steps:
            cls = type_entry.value.strip()
            if self.flat and alias == self.flat.alias:
                y.item_comment(*[c for e in entries for c in e.comments], *self.flat.notes)
                flattened_steps(y, self.flat)
                continue
            spec, _ = REGISTRY.lookup(cls)
            comments = [c for e in entries for c in e.comments]
            if spec is None:
                self.warn(
                    type_entry.key,
                    f"transform '{alias}' ({cls}) has no pipec equivalent: it is left out, as a comment",
                    did_you_mean(cls.rsplit(".", 1)[-1], REGISTRY.spellings())
                    or "pipec runs the transforms of Kafka's "
                    "org.apache.kafka.connect.transforms package and Confluent's Drop (docs/transforms.md)",
                )
                y.comment(f"TODO: transform '{alias}' ({cls}) has no pipec equivalent; it was:", *comments)
                for e in entries:
                    y.comment(f"  {e.key}={e.value}")
                continue
            pred = config.get("predicate")
            if pred is not None and pred not in predicates:
                self.refuse(
                    f"transforms.{alias}.predicate",
                    f"transform '{alias}' names predicate '{pred}', which is not defined",
                    did_you_mean(pred, predicates) or "list it in predicates= with its predicates.<alias>.type",
                )
            short = cls[len(spec.package) :] if cls.startswith(spec.package) else cls
            y.item_comment(*comments)
            y.item([("name", alias), ("type", short)] + [(k, v) for k, v in config.items() if k != "type"])

    def write_predicates(self, y: YamlWriter) -> set[str]:
        names = self.aliases("predicates")
        drop_deletes = self.flat is not None and not self.flat.keep_deletes
        if not names and not drop_deletes:
            return set()
        y.comment(*self.comments_of("predicates"))
        y.key("predicates")
        with y.indent():
            if drop_deletes:
                y.mapping(IS_DELETE, [("type", "RecordIsTombstone")])
            for alias in names:
                prefix = f"predicates.{alias}."
                entries = self.c.under(prefix)
                self.used.update(e.key for e in entries)
                config = {e.key[len(prefix) :]: e.value for e in entries}
                cls = config.get("type")
                if cls is None:
                    self.refuse("predicates", f"predicate '{alias}' has no {prefix}type", f"add {prefix}type=<class>")
                    continue
                if REGISTRY.lookup_predicate(cls) is None:
                    self.refuse(
                        prefix + "type",
                        f"predicate '{alias}' ({cls}) has no pipec equivalent",
                        "pipec has HasHeaderKey, RecordIsTombstone and TopicNameMatches",
                    )
                short = cls[len(PREDICATE_PACKAGE) :] if cls.startswith(PREDICATE_PACKAGE) else cls
                y.comment(*[c for e in entries for c in e.comments])
                y.mapping(alias, [("type", short)] + [(k, v) for k, v in config.items() if k != "type"])
        return set(names)

    def write_errors(self, y: YamlWriter) -> None:
        entries = [(ERRORS[e.key], e) for e in self.c.under("errors.") if e.key in ERRORS]
        self.used.update(e.key for e in self.c.under("errors."))
        for e in self.c.under("errors."):
            if e.key not in ERRORS:
                self.warn(
                    e.key,
                    f"{e.key} has no pipec equivalent (a record error is not transient: nothing is retried)"
                    if e.key.startswith("errors.retry")
                    else f"{e.key} has no pipec equivalent; left out",
                )
        if not entries:
            return
        tolerance = next((ERROR_VALUES["tolerance"](e.value) for k, e in entries if k == "tolerance"), "none")
        y.key("errors")
        with y.indent():
            for key, e in entries:
                y.comment(*e.comments)
                y.pair(key, ERROR_VALUES.get(key, str.strip)(e.value))
            if tolerance == "all" and not any(k == "deadletterqueue.topic.name" for k, _ in entries):
                y.comment(
                    "Kafka Connect skips (and logs) records that fail with errors.tolerance=all and no dead-letter",
                    "topic; pipec never drops a bad record silently: they go to this folder",
                )
                y.pair("deadletterqueue.path", f"${{env:OUT_DIR:-out}}/{self.out.name}-dead-letters")
