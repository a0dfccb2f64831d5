"""`@record`: pipec's dataclasses, cheap to define for a compiler that starts cold on every command.

`@dataclass(frozen=True)` writes six methods as source text and compiles each when the class is defined (about
0.5-1 ms a class on CPython 3.11: some 80 ms over pipec's classes, most of which a given command never builds),
and importing `dataclasses` brings `inspect` (~12 ms more). A record behaves as that dataclass: its fields are
its annotations (a base record's first), with defaults or `field(default_factory=...)`; `__post_init__` runs
after `__init__`; `__match_args__` is set; equality and hash go by value and class, the repr is a dataclass's;
it is frozen unless `frozen=False`, ordered with `order=True`; `replace()` copies one with changes. It is made
differently:

- `__repr__` and the frozen `__setattr__`/`__delattr__` are functions shared by every record; `__eq__`,
  `__hash__` and the comparisons are closures over one `operator.attrgetter` of the class's fields;
- `__init__` binds its arguments generically for a class's first COMPILE_AFTER instances, then is compiled
  from source as a dataclass's is: a class built a few times never pays for compiling, a hot one runs as fast.

A method the class body defines is kept. ClassVar and InitVar annotations, keyword-only fields and fields
outside `__init__` are not supported (a TypeError when the class is defined).
"""

from __future__ import annotations

import typing
import operator
from operator import attrgetter
from typing import Any, Callable, TypeVar

T = TypeVar("T", bound=type)
COMPILE_AFTER = 64  # instances a class's __init__ binds generically before it is compiled

_SET = object.__setattr__


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FrozenInstanceError(AttributeError):
    """Assigning or deleting a field of a frozen record."""


class Field:
    """One field: its name, and its default or default factory (MISSING when it has none)."""

    __slots__ = ("name", "default", "default_factory")

    def __init__(self, name: str = "", default: Any = MISSING, default_factory: Any = MISSING):
        self.name, self.default, self.default_factory = name, default, default_factory

    @property
    def required(self) -> bool:
        return self.default is MISSING and self.default_factory is MISSING


def field(*, default: Any = MISSING, default_factory: Callable[[], Any] | Any = MISSING) -> Any:
    """A field's default or default factory, as `dataclasses.field` gives them."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot give both default and default_factory")
    return Field(default=default, default_factory=default_factory)


def field_names(value: Any) -> tuple[str, ...] | None:
    """The field names of a record or record class, in order; None for anything else."""
    return getattr(value, "_record_fields", None)


def replace(original: Any, /, **changes: Any) -> Any:
    """A copy of record `original` with `changes` to some fields (`dataclasses.replace`)."""
    names = field_names(original)
    if names is None:
        raise TypeError(f"replace() should be called on a record, not {type(original).__name__}")
    return original.__class__(**{**{name: getattr(original, name) for name in names}, **changes})


def _equality(names: tuple[str, ...]) -> dict[str, Callable]:
    """`__eq__` and `__hash__` of one record class: closures over its fields' getter (no class attribute read
    per call), comparing and hashing the fields' values as a tuple, as a dataclass does."""
    if len(names) == 1:
        get = attrgetter(names[0])

        def __eq__(self, other):
            if other.__class__ is self.__class__:
                return (get(self),) == (get(other),)
            return NotImplemented

        def __hash__(self):
            return hash((get(self),))

    else:
        values = _values_getter(names)

        def __eq__(self, other):
            if other.__class__ is self.__class__:
                return values(self) == values(other)
            return NotImplemented

        def __hash__(self):
            return hash(values(self))

    return {"__eq__": __eq__, "__hash__": __hash__}


def _ordering(names: tuple[str, ...]) -> dict[str, Callable]:
    """`__lt__`, `__le__`, `__gt__` and `__ge__` of one record class (`order=True`): its fields' values compared
    as tuples, and only with the same class."""
    values = _values_getter(names)

    def method(compare: Callable[[tuple, tuple], bool]) -> Callable:
        def comparison(self, other):
            if other.__class__ is self.__class__:
                return compare(values(self), values(other))
            return NotImplemented

        return comparison

    return {"__lt__": method(operator.lt), "__le__": method(operator.le), "__gt__": method(operator.gt),
            "__ge__": method(operator.ge)}


def _repr(self) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._record_fields)
    return f"{self.__class__.__qualname__}({shown})"


def _frozen_setattr(self, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _values_getter(names: tuple[str, ...]) -> Callable[[Any], tuple]:
    """The fields' values as a tuple (as a dataclass compares them)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _collect_fields(cls: type) -> tuple[Field, ...]:
    """The fields of `cls`: its base records' first, then its own annotations in order (one it annotates again
    keeps its place and takes the new default); each default left on the class, as a dataclass leaves it."""
    found: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get("_record_field_list", ()):
            found[f.name] = f
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
        if text.strip("'\"").split("[")[0].split(".")[-1] in ("ClassVar", "InitVar"):
            raise TypeError(f"record {cls.__qualname__}.{name}: ClassVar and InitVar are not supported")
        value = cls.__dict__.get(name, MISSING)
        f = Field(name, value.default, value.default_factory) if isinstance(value, Field) else Field(name, value)
        if f.default is not MISSING and type(f.default).__hash__ is None:
            raise ValueError(f"record {cls.__qualname__}.{name}: mutable default {type(f.default).__name__} "
                             "is not allowed: use field(default_factory=...)")
        if isinstance(value, Field):
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        found[name] = f
    fields = tuple(found.values())
    for before, after in zip(fields, fields[1:]):
        if after.required and not before.required:
            raise TypeError(f"record {cls.__qualname__}: field {after.name!r} without a default follows {before.name!r}")
    return fields


def _bind(cls: type, fields: tuple[Field, ...], self: Any, args: tuple, kwargs: dict) -> None:
    """Set each field of `self` from `args` and `kwargs` as the compiled __init__ would (same errors)."""
    name = f"{cls.__qualname__}.__init__()"
    if len(args) > len(fields):
        raise TypeError(f"{name} takes {len(fields) + 1} positional arguments but {len(args) + 1} were given")
    names = cls._record_fields
    for key in kwargs:
        if key not in names:
            raise TypeError(f"{name} got an unexpected keyword argument {key!r}")
        if names.index(key) < len(args):
            raise TypeError(f"{name} got multiple values for argument {key!r}")
    missing = [f.name for f in fields[len(args):] if f.required and f.name not in kwargs]
    if missing:
        raise TypeError(f"{name} missing {len(missing)} required argument(s): {', '.join(map(repr, missing))}")
    for f, value in zip(fields, args):
        _SET(self, f.name, value)
    for f in fields[len(args):]:
        if f.name in kwargs:
            value = kwargs[f.name]
        else:
            value = f.default if f.default_factory is MISSING else f.default_factory()
        _SET(self, f.name, value)


def _compiled_init(cls: type, fields: tuple[Field, ...]) -> Callable:
    """`cls.__init__`, compiled: each field set in order, then `__post_init__` where the class has one."""
    body = []
    defaults = []
    namespace: dict[str, Any] = {"_SET": _SET, "_FACTORY": _FACTORY}
    for f in fields:
        if f.default_factory is not MISSING:
            namespace[f"_factory_{f.name}"] = f.default_factory
            defaults.append(_FACTORY)
            body.append(f"    _SET(self, {f.name!r}, _factory_{f.name}() if {f.name} is _FACTORY else {f.name})")
        else:
            if f.default is not MISSING:
                defaults.append(f.default)
            body.append(f"    _SET(self, {f.name!r}, {f.name})")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    source = f"def __init__(self, {', '.join(f.name for f in fields)}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(source, namespace)  # noqa: S102 - text made above from the field names only
    init = namespace["__init__"]
    init.__defaults__ = tuple(defaults) or None
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init


_FACTORY = object()  # a compiled __init__'s default for a field with a default factory


def _adaptive_init(cls: type, fields: tuple[Field, ...]) -> Callable:
    built = 0
    post_init = hasattr(cls, "__post_init__")

    def __init__(self, *args, **kwargs):
        nonlocal built
        built += 1
        if built > COMPILE_AFTER:
            cls.__init__ = init = _compiled_init(cls, fields)
            init(self, *args, **kwargs)
            return
        _bind(cls, fields, self, args, kwargs)
        if post_init:
            self.__post_init__()

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _record(cls: T, frozen: bool, order: bool) -> T:
    fields = _collect_fields(cls)
    names = tuple(f.name for f in fields)
    cls._record_field_list = fields
    cls._record_fields = names
    if cls.__doc__ is None:
        cls.__doc__ = f"{cls.__name__}({', '.join(names)})"
    methods: dict[str, Any] = {
        "__init__": _adaptive_init(cls, fields),
        **_equality(names),
        "__repr__": _repr,
        "__match_args__": names,
        **(_ordering(names) if order else {}),
        **({"__setattr__": _frozen_setattr, "__delattr__": _frozen_delattr} if frozen else {}),
    }
    if not frozen:
        methods["__hash__"] = None  # equal by value and mutable: unhashable, as a dataclass
    for name, method in methods.items():
        if name not in cls.__dict__ or (name == "__hash__" and cls.__dict__[name] is None and frozen):
            setattr(cls, name, method)
    return cls


def _transform(function: Callable) -> Callable:
    """Tells type checkers that `record` makes dataclasses (typing.dataclass_transform, Python 3.11+)."""
    mark = getattr(typing, "dataclass_transform", None)
    return mark(frozen_default=True, field_specifiers=(field,))(function) if mark else function


@_transform
def record(cls: T | None = None, /, *, frozen: bool = True, order: bool = False) -> Any:
    """`@record` (frozen), `@record(frozen=False)` or `@record(order=True)`: see the module's docstring."""
    if cls is None:
        return lambda c: _record(c, frozen, order)
    return _record(cls, frozen, order)
