"""`@record` behaves as the dataclass it replaces: each pair below defines the same class with `@dataclass` and
with `@record`, and every check asks both the same question."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from dataclasses import dataclass, field

import pytest

from compiler.records import record


@dataclass(frozen=True)
class FrozenD:
    name: str
    size: int = 3
    tags: tuple = ()


@record
class FrozenR:
    name: str
    size: int = 3
    tags: tuple = ()


@dataclass(frozen=True, order=True)
class OrderedD:
    file: str
    line: int


@record(order=True)
class OrderedR:
    file: str
    line: int


@dataclass
class MutableD:
    items: list = field(default_factory=list)
    label: str = "x"


@record(frozen=False)
class MutableR:
    items: list = field(default_factory=list)
    label: str = "x"


@record
class Empty:
    pass


@record
class Checked:
    """Normalises and checks in __post_init__, as compiler/types.py does."""

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


def test_construction_positional_keyword_and_defaults():
    for cls in (FrozenD, FrozenR):
        assert cls("a").size == 3 and cls("a", 5).size == 5 and cls(name="a", tags=(1,)).tags == (1,)
        with pytest.raises(TypeError):
            cls()
        with pytest.raises(TypeError):
            cls("a", 1, (), 4)
        with pytest.raises(TypeError):
            cls("a", nope=1)


def test_equality_and_hash_by_value_and_class():
    assert FrozenR("a", 1) == FrozenR("a", 1) and FrozenR("a", 1) != FrozenR("a", 2)
    assert hash(FrozenR("a", 1, (1, 2))) == hash(FrozenR("a", 1, (1, 2)))
    assert len({FrozenR("a"), FrozenR("a"), FrozenR("b")}) == 2
    assert FrozenR("a") != FrozenD("a")  # another class is never equal, as a dataclass
    assert (FrozenR("a") == ("a", 3, ())) is False
    nan = float("nan")
    assert FrozenR("a", nan) == FrozenR("a", nan) and FrozenD("a", nan) == FrozenD("a", nan)  # tuples: same object
    assert Empty() == Empty() and hash(Empty()) == hash(Empty())


def test_repr_as_a_dataclass_writes_it():
    assert repr(FrozenR("a", 2, (1,))) == repr(FrozenD("a", 2, (1,))).replace("FrozenD", "FrozenR")
    assert repr(Derived("k", 1)) == "Derived(kind='k', extra=1)"
    assert repr(Empty()) == "Empty()"


def test_frozen_refuses_assignment_and_deletion():
    r = FrozenR("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.name = "b"
    with pytest.raises(dataclasses.FrozenInstanceError):
        del r.name
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.other = 1
    assert r.name == "a"


def test_order():
    pairs = [(OrderedD("a", 2), OrderedD("a", 10)), (OrderedR("a", 2), OrderedR("a", 10))]
    for low, high in pairs:
        assert low < high and low <= high and high > low and high >= low and not high < low
    assert sorted([OrderedR("b", 1), OrderedR("a", 9), OrderedR("a", 1)]) == [OrderedR("a", 1), OrderedR("a", 9), OrderedR("b", 1)]
    with pytest.raises(TypeError):
        OrderedR("a", 1) < OrderedD("a", 1)
    with pytest.raises(TypeError):
        FrozenR("a") < FrozenR("b")  # no order unless asked, as a dataclass


def test_mutable_record_with_default_factory():
    a, b = MutableR(), MutableR()
    a.items.append(1)
    assert b.items == [] and a == MutableR([1]) and a != b
    a.label = "y"
    assert a.label == "y"
    with pytest.raises(TypeError):
        hash(a)  # eq without frozen: unhashable, as a dataclass
    assert MutableD.__hash__ is None and MutableR.__hash__ is None


def test_post_init_runs_after_the_fields_are_set():
    assert Checked(["x", "y"]).steps == ("x", "y")
    with pytest.raises(ValueError):
        Checked([])


def test_inherited_fields_come_first():
    assert [f.name for f in dataclasses.fields(Derived)] == ["kind", "extra"]
    d = Derived("k", 2)
    assert (d.kind, d.extra) == ("k", 2) and d == Derived(kind="k", extra=2) and d != Base("k")
    assert Base("k").kind == "k" and Derived.__match_args__ == ("kind", "extra")


def test_dataclasses_functions_work_on_records():
    r = FrozenR("a", 1, (2,))
    assert dataclasses.is_dataclass(r)
    assert [f.name for f in dataclasses.fields(r)] == ["name", "size", "tags"]
    assert dataclasses.replace(r, size=9) == FrozenR("a", 9, (2,))
    assert dataclasses.asdict(r) == {"name": "a", "size": 1, "tags": (2,)}
    assert dataclasses.astuple(r) == ("a", 1, (2,))


def test_pattern_matching():
    match FrozenR("a", 4):
        case FrozenR(name, size):
            assert (name, size) == ("a", 4)
        case _:
            pytest.fail("no match")


def test_pickle_and_copy():
    for value in (FrozenR("a", 1), OrderedR("f", 2), MutableR([1]), Derived("k", 3)):
        assert pickle.loads(pickle.dumps(value)) == value
        assert copy.deepcopy(value) == value and copy.copy(value) == value


def test_init_is_compiled_once_with_the_fields_signature():
    @record
    class Fresh:
        a: int
        b: str = "x"

    first = Fresh.__init__
    Fresh(1)
    assert Fresh.__init__ is not first and str(inspect.signature(Fresh)) == "(a, b='x')"
    assert Fresh.__init__.__qualname__.endswith("Fresh.__init__")


def test_methods_of_the_class_body_are_kept():
    @record
    class Own:
        a: int

        def __repr__(self) -> str:
            return "own"

    assert repr(Own(1)) == "own"


def test_unsupported_fields_are_refused_when_the_class_is_defined():
    with pytest.raises(TypeError, match="without a default follows"):

        @record
        class Bad:
            a: int = 1
            b: int

    with pytest.raises(TypeError, match="not supported"):

        @record
        class Hidden:
            a: int = field(init=False, default=0)

    with pytest.raises(TypeError, match="not supported"):

        @record
        class KeywordOnly:
            a: int = field(kw_only=True, default=0)
