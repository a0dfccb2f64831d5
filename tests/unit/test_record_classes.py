"""`@record` behaves as the dataclass it replaces: classes are defined both ways and every check asks both the same
question. Each test runs twice, with fresh record classes: their `__init__` binding generically (a class's first
instances) and compiled (after COMPILE_AFTER instances)."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from dataclasses import dataclass
from types import SimpleNamespace

import pytest

from pipec import dataclass_lite as records
from pipec.dataclass_lite import FrozenInstanceError, field, field_names, record, replace


@dataclass(frozen=True)
class FrozenD:
    name: str
    size: int = 3
    tags: tuple = ()


@dataclass(frozen=True, order=True)
class OrderedD:
    file: str
    line: int


@dataclass
class MutableD:
    items: list = dataclasses.field(default_factory=list)
    label: str = "x"


def _records() -> SimpleNamespace:
    @record
    class FrozenR:
        name: str
        size: int = 3
        tags: tuple = ()

    @record(order=True)
    class OrderedR:
        file: str
        line: int

    @record(frozen=False)
    class MutableR:
        items: list = field(default_factory=list)
        label: str = "x"

    @record
    class Empty:
        pass

    @record
    class Checked:
        """Normalises and checks in __post_init__, as compiler/types/sql.py does."""

        steps: tuple

        def __post_init__(self) -> None:
            object.__setattr__(self, "steps", tuple(self.steps))
            if not self.steps:
                raise ValueError("no steps")

    @record
    class Base:
        kind: str

    @record
    class Derived(Base):
        extra: int = 0

    return SimpleNamespace(**{k: v for k, v in locals().items() if isinstance(v, type)})


@pytest.fixture(params=["generic", "compiled"])
def R(request, monkeypatch) -> SimpleNamespace:
    monkeypatch.setattr(records, "COMPILE_AFTER", 10**9 if request.param == "generic" else 0)
    return _records()


def test_construction_positional_keyword_and_defaults(R):
    for cls in (FrozenD, R.FrozenR):
        assert cls("a").size == 3 and cls("a", 5).size == 5 and cls(name="a", tags=(1,)).tags == (1,)
        assert cls(size=4, name="b") == cls("b", 4)
        for args, kwargs in [((), {}), (("a", 1, (), 4), {}), (("a",), {"nope": 1}), (("a",), {"name": "b"}),
                             ((), {"size": 1})]:
            with pytest.raises(TypeError):
                cls(*args, **kwargs)


def test_equality_and_hash_by_value_and_class(R):
    FrozenR = R.FrozenR
    assert FrozenR("a", 1) == FrozenR("a", 1) and FrozenR("a", 1) != FrozenR("a", 2)
    assert hash(FrozenR("a", 1, (1, 2))) == hash(FrozenR("a", 1, (1, 2)))
    assert len({FrozenR("a"), FrozenR("a"), FrozenR("b")}) == 2
    assert FrozenR("a") != FrozenD("a")  # another class is never equal, as a dataclass
    assert (FrozenR("a") == ("a", 3, ())) is False
    nan = float("nan")
    assert FrozenR("a", nan) == FrozenR("a", nan) and FrozenD("a", nan) == FrozenD("a", nan)  # tuples: same object
    assert R.Empty() == R.Empty() and hash(R.Empty()) == hash(R.Empty())


def test_repr_as_a_dataclass_writes_it(R):
    assert repr(R.FrozenR("a", 2, (1,))) == repr(FrozenD("a", 2, (1,))).replace("FrozenD", "_records.<locals>.FrozenR")
    assert repr(R.Derived("k", 1)).endswith("Derived(kind='k', extra=1)")
    assert repr(R.Empty()).endswith("Empty()")


def test_frozen_refuses_assignment_and_deletion(R):
    r = R.FrozenR("a")
    for action in (lambda: setattr(r, "name", "b"), lambda: delattr(r, "name"), lambda: setattr(r, "other", 1)):
        with pytest.raises(FrozenInstanceError):
            action()
    assert r.name == "a" and issubclass(FrozenInstanceError, AttributeError)


def test_order(R):
    OrderedR = R.OrderedR
    for low, high in [(OrderedD("a", 2), OrderedD("a", 10)), (OrderedR("a", 2), OrderedR("a", 10))]:
        assert low < high and low <= high and high > low and high >= low and not high < low
    assert sorted([OrderedR("b", 1), OrderedR("a", 9), OrderedR("a", 1)]) == [OrderedR("a", 1), OrderedR("a", 9), OrderedR("b", 1)]
    with pytest.raises(TypeError):
        OrderedR("a", 1) < OrderedD("a", 1)
    with pytest.raises(TypeError):
        R.FrozenR("a") < R.FrozenR("b")  # no order unless asked, as a dataclass


def test_mutable_record_with_default_factory(R):
    MutableR = R.MutableR
    a, b = MutableR(), MutableR()
    a.items.append(1)
    assert b.items == [] and a == MutableR([1]) and a != b
    a.label = "y"
    assert a.label == "y"
    with pytest.raises(TypeError):
        hash(a)  # eq without frozen: unhashable, as a dataclass
    assert MutableD.__hash__ is None and MutableR.__hash__ is None
    assert not hasattr(MutableR, "items") and MutableR.label == "x"  # class attributes as a dataclass leaves them


def test_post_init_runs_after_the_fields_are_set(R):
    assert R.Checked(["x", "y"]).steps == ("x", "y")
    with pytest.raises(ValueError):
        R.Checked([])


def test_inherited_fields_come_first(R):
    Derived = R.Derived
    assert field_names(Derived) == ("kind", "extra") == Derived.__match_args__
    d = Derived("k", 2)
    assert (d.kind, d.extra) == ("k", 2) and d == Derived(kind="k", extra=2) and d != R.Base("k")
    assert R.Base("k").kind == "k" and field_names(d) == ("kind", "extra")


def test_replace_and_field_names(R):
    r = R.FrozenR("a", 1, (2,))
    assert field_names(r) == ("name", "size", "tags") and field_names("text") is None
    assert replace(r, size=9) == R.FrozenR("a", 9, (2,)) and r.size == 1
    assert replace(R.MutableR([1]), label="z") == R.MutableR([1], "z")

    @record
    class Named:
        value: int
        original: int = 0

    assert replace(Named(1), value=2, original=3) == Named(2, 3)  # any field name, as dataclasses.replace
    with pytest.raises(TypeError):
        replace(r, nope=1)
    with pytest.raises(TypeError):
        replace(FrozenD("a"), size=1)


def test_pattern_matching(R):
    match R.FrozenR("a", 4):
        case R.FrozenR(name, size):
            assert (name, size) == ("a", 4)
        case _:
            pytest.fail("no match")


def test_copy():
    for value in (_records().FrozenR("a", 1), _records().MutableR([1]), _records().Derived("k", 3)):
        assert copy.deepcopy(value) == value and copy.copy(value) == value


@record
class Picklable:
    name: str
    at: int = 0


def test_pickle():
    assert pickle.loads(pickle.dumps(Picklable("a", 2))) == Picklable("a", 2)


def test_init_is_compiled_after_its_first_instances(monkeypatch):
    monkeypatch.setattr(records, "COMPILE_AFTER", 3)

    @record
    class Fresh:
        a: int
        b: str = "x"

    first = Fresh.__init__
    built = [Fresh(i) for i in range(3)]
    assert Fresh.__init__ is first
    built.append(Fresh(3, b="y"))
    assert Fresh.__init__ is not first and str(inspect.signature(Fresh)) == "(a, b='x')"
    assert Fresh.__init__.__qualname__.endswith("Fresh.__init__")
    assert [(f.a, f.b) for f in built] == [(0, "x"), (1, "x"), (2, "x"), (3, "y")] and Fresh(4).b == "x"


def test_methods_of_the_class_body_are_kept():
    @record
    class Own:
        a: int

        def __repr__(self) -> str:
            return "own"

    assert repr(Own(1)) == "own"


def test_a_docstring_is_made_where_the_class_has_none():
    assert _records().Derived.__doc__ == "Derived(kind, extra)"


def test_unsupported_fields_are_refused_when_the_class_is_defined():
    with pytest.raises(TypeError, match="without a default follows"):

        @record
        class Bad:
            a: int = 1
            b: int

    with pytest.raises(ValueError, match="mutable default"):

        @record
        class Shared:
            a: list = []  # noqa: RUF012 - the mistake under test

    with pytest.raises(TypeError, match="not supported"):

        @record
        class Constant:
            a: "ClassVar[int]" = 1  # noqa: F821 - never evaluated

    with pytest.raises(ValueError):
        field(default=1, default_factory=list)
