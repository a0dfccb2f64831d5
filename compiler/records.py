"""`@record`: a dataclass that costs little to define, for a compiler that starts cold on every command.

`@dataclass(frozen=True)` writes six methods as source text and compiles each when the class is defined (about
0.5-1 ms a class on CPython 3.11: some 80 ms over pipec's classes, most of which a given command never builds).
A record is a real dataclass (`dataclasses.fields`, `replace`, `asdict` and `is_dataclass` work on it, and
`__match_args__` is set) with the same behaviour, made differently:

- `__eq__`, `__hash__`, `__repr__`, the frozen `__setattr__`/`__delattr__` and, with `order=True`, the
  comparisons are functions shared by every record, reading the fields through one `operator.attrgetter`;
- `__init__` is compiled at the class's first instantiation (until then `inspect.signature` shows
  `(*args, **kwargs)`); it sets each field, calls a default factory where a field has one, then `__post_init__`.

A method the class body defines itself is kept. Fields with `init=False`, `kw_only` and `InitVar` are not
supported, nor are ClassVar annotations (a TypeError says so when the class is defined).
"""

from __future__ import annotations

import dataclasses
import typing
from operator import attrgetter
from typing import Any, Callable, TypeVar

T = TypeVar("T", bound=type)

_SET = object.__setattr__
_FACTORY = object()  # a parameter's default where the field has a default factory


def _eq(self, other):
    if other.__class__ is self.__class__:
        return self._record_values(self) == other._record_values(other)
    return NotImplemented


def _ordering(compare: Callable[[tuple, tuple], bool]) -> Callable:
    def method(self, other):
        if other.__class__ is self.__class__:
            return compare(self._record_values(self), other._record_values(other))
        return NotImplemented

    return method


def _hash(self) -> int:
    return hash(self._record_values(self))


def _repr(self) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._record_fields)
    return f"{self.__class__.__qualname__}({shown})"


def _frozen_setattr(self, name: str, value: Any) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


_ORDER = {
    "__lt__": _ordering(lambda a, b: a < b),
    "__le__": _ordering(lambda a, b: a <= b),
    "__gt__": _ordering(lambda a, b: a > b),
    "__ge__": _ordering(lambda a, b: a >= b),
}


def _values_getter(names: tuple[str, ...]) -> Callable[[Any], tuple]:
    """The fields' values as a tuple (as a dataclass compares them)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _checked_fields(cls: type) -> tuple[dataclasses.Field, ...]:
    found = dataclasses.fields(cls)
    if len(found) != len(cls.__dataclass_fields__):
        raise TypeError(f"record {cls.__qualname__}: ClassVar and InitVar annotations are not supported")
    defaulted = None
    for f in found:
        if not f.init or f.kw_only is True:
            raise TypeError(f"record {cls.__qualname__}.{f.name}: init=False and kw_only are not supported")
        has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        if defaulted and not has_default:
            raise TypeError(f"record {cls.__qualname__}: field {f.name!r} without a default follows {defaulted!r}")
        defaulted = f.name if has_default else defaulted
    return found


def _compiled_init(cls: type, found: tuple[dataclasses.Field, ...]) -> Callable:
    """`cls.__init__`, compiled: each field set in order, then `__post_init__` where the class has one."""
    names = [f.name for f in found]
    body = []
    defaults = []
    namespace: dict[str, Any] = {"_SET": _SET, "_FACTORY": _FACTORY}
    for f in found:
        if f.default_factory is not dataclasses.MISSING:
            namespace[f"_factory_{f.name}"] = f.default_factory
            defaults.append(_FACTORY)
            body.append(f"    _SET(self, {f.name!r}, _factory_{f.name}() if {f.name} is _FACTORY else {f.name})")
        else:
            if f.default is not dataclasses.MISSING:
                defaults.append(f.default)
            body.append(f"    _SET(self, {f.name!r}, {f.name})")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    source = f"def __init__(self, {', '.join(names)}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(source, namespace)  # noqa: S102 - text made above from the field names only
    init = namespace["__init__"]
    init.__defaults__ = tuple(defaults) or None
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init


def _init_on_first_use(cls: type, found: tuple[dataclasses.Field, ...]) -> Callable:
    def __init__(self, *args, **kwargs):
        init = _compiled_init(cls, found)
        cls.__init__ = init
        init(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _record(cls: T, frozen: bool, order: bool) -> T:
    if cls.__doc__ is None:  # else dataclass would ask inspect.signature for one
        cls.__doc__ = f"{cls.__name__}({', '.join(cls.__dict__.get('__annotations__', {}))})"
    dataclasses.dataclass(cls, init=False, repr=False, eq=False)
    found = _checked_fields(cls)
    methods: dict[str, Any] = {
        "__init__": _init_on_first_use(cls, found),
        "__eq__": _eq,
        "__hash__": _hash if frozen else None,
        "__repr__": _repr,
        **(_ORDER if order else {}),
        **({"__setattr__": _frozen_setattr, "__delattr__": _frozen_delattr} if frozen else {}),
    }
    cls._record_fields = tuple(f.name for f in found)
    cls._record_values = staticmethod(_values_getter(cls._record_fields))
    for name, method in methods.items():
        if name not in cls.__dict__ or (name == "__hash__" and cls.__dict__[name] is None and frozen):
            setattr(cls, name, method)
    return cls


def _transform(function: Callable) -> Callable:
    """Tells type checkers that `record` makes dataclasses (typing.dataclass_transform, Python 3.11+)."""
    mark = getattr(typing, "dataclass_transform", None)
    return mark(frozen_default=True, field_specifiers=(dataclasses.field,))(function) if mark else function


@_transform
def record(cls: T | None = None, /, *, frozen: bool = True, order: bool = False) -> Any:
    """`@record` (frozen), `@record(frozen=False)` or `@record(order=True)`: see the module's docstring."""
    if cls is None:
        return lambda c: _record(c, frozen, order)
    return _record(cls, frozen, order)
