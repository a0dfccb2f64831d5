"""ReplaceField's configuration and its plan of a struct: which fields it keeps, under which names, and the type,
the rebuilt struct or the dropped paths that follow (fields.py declares and checks the transform)."""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..types.sql import StructField, StructType
from .field_paths import FieldPath


@dataclass(frozen=True, slots=True)
class ReplaceFieldConfig:
    exclude: tuple[FieldPath, ...]
    include: tuple[FieldPath, ...]
    renames: tuple[tuple[FieldPath, str], ...]


def _under(path: tuple[str, ...], paths: set[tuple[str, ...]]) -> bool:
    """Some configured path lies strictly below `path`."""
    return any(len(p) > len(path) and p[: len(path)] == path for p in paths)


def plan_fields(
    cfg: ReplaceFieldConfig, t: StructType, prefix: tuple[str, ...] = ()
) -> list[tuple[StructField, str, tuple | None]]:
    """For each kept field of `t`: (field, output name, nested plan or None when copied whole)."""
    exclude = {p.steps for p in cfg.exclude}
    include = {p.steps for p in cfg.include}
    renames = {p.steps: n for p, n in cfg.renames}
    touched = exclude | include | set(renames)
    out = []
    for f in t.fields:
        path = prefix + (f.name,)
        if path in exclude:
            continue
        covered = not include or path in include or any(path[: len(p)] == p for p in include)
        if not covered and not _under(path, include):
            continue
        nested = None
        if (
            isinstance(f.type, StructType)
            and _under(path, touched)
            and not (path in include and not _under(path, exclude | set(renames)))
        ):
            nested = tuple(plan_fields(cfg, f.type, path))
        out.append((f, renames.get(path, f.name), nested))
    return out


def planned_type(plan) -> StructType:
    return StructType(tuple(StructField(name, planned_type(n) if n is not None else f.type) for f, name, n in plan))


def rebuild(base: ir.Expr, plan) -> ir.Expr:
    fields = []
    for f, name, nested in plan:
        get = ir.Get(base, f.name)
        fields.append((name, ir.NullSafe(get, rebuild(get, nested)) if nested is not None else get))
    return ir.Struct(tuple(fields))


def dropped_paths(t: StructType, plan, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]] | None:
    """The paths a plan drops when dropping is all it does and every struct keeps a field (Spark's `dropFields`
    cannot drop the last one); else None."""
    kept = [f.name for f, _, _ in plan]
    if not kept or any(name != f.name for f, name, _ in plan) or kept != [f.name for f in t.fields if f.name in kept]:
        return None
    out = [prefix + (f.name,) for f in t.fields if f.name not in kept]
    for f, _, nested in plan:
        if nested is not None:
            inner = dropped_paths(f.type, nested, prefix + (f.name,))
            if inner is None:
                return None
            out += inner
    return out
