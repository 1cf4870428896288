"""A record behaves as the @dataclass it replaces: repr, equality, hash, frozenness."""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field

import pytest

from hermes_tui.core.records import datarecord


def twins(frozen: bool = True):
    """The same class made by @dataclass and by @datarecord."""

    def body(decorate):
        @decorate
        class Item:
            name: str
            size: int = 0
            secret: str = field(default="s", repr=False)
            note: str = field(default="", compare=False)
            tag: str = field(default="t", hash=False)
            parts: list = field(default_factory=list, hash=False)

        return Item

    return body(dataclass(frozen=frozen)), body(datarecord(frozen=frozen))


def test_repr_shows_the_same_fields_in_the_same_way() -> None:
    plain, ours = twins()
    for args in [("a",), ("x\x1b[31m", 3, "hidden", "n", "u", [1, "2"])]:
        assert repr(ours(*args)) == repr(plain(*args)).replace(
            plain.__qualname__, ours.__qualname__
        )
    assert "hidden" not in repr(ours("x", 1, "hidden"))


def test_a_value_that_contains_itself_is_shown_as_dots() -> None:
    plain, ours = twins(frozen=False)
    a, b = plain("a"), ours("a")
    a.parts.append(a)
    b.parts.append(b)
    assert repr(b).endswith("parts=[...])") and repr(a).endswith("parts=[...])")


def test_equality_compares_the_same_fields_and_only_the_same_class() -> None:
    plain, ours = twins()
    assert ours("a", 1, note="x") == ours("a", 1, note="y")
    assert ours("a", 1) != ours("a", 2)
    assert ours("a", secret="1") != ours("a", secret="2")  # repr=False still compares
    assert ours("a").__eq__(plain("a")) is NotImplemented
    assert ours("a") != plain("a")

    class Sub(ours):
        pass

    assert Sub("a") != ours("a") and Sub("a") == Sub("a")


def test_hash_reads_what_dataclass_hashes() -> None:
    plain, ours = twins()
    for a, b in [(("a", 1, "s", "n", "t1"), ("a", 1, "s", "m", "t2"))]:
        assert (hash(ours(*a)) == hash(ours(*b))) == (hash(plain(*a)) == hash(plain(*b)))
    assert hash(ours("a", 1, "s", "n", "t", [])) == hash(plain("a", 1, "s", "n", "t", []))
    assert len({ours("a"), ours("a", note="other"), ours("b")}) == 2


def test_a_mutable_record_is_unhashable_like_a_mutable_dataclass() -> None:
    _, ours = twins(frozen=False)
    item = ours("a")
    item.size = 5
    assert item == ours("a", 5)
    with pytest.raises(TypeError, match="unhashable"):
        hash(item)


def test_a_record_is_frozen_and_still_a_dataclass() -> None:
    _, ours = twins()
    item = ours("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        item.size = 2  # type: ignore[misc]
    assert dataclasses.is_dataclass(item)
    assert dataclasses.replace(item, size=3) == ours("a", 3)
    assert dataclasses.asdict(item)["secret"] == "s"


def test_frozen_refuses_what_dataclass_refuses_in_the_same_words() -> None:
    for made in twins():
        item = made("a")
        refused = []
        for change, name in ((setattr, "size"), (setattr, "other"), (delattr, "name")):
            # "other" is not a field: refused on the class itself all the same
            with pytest.raises(dataclasses.FrozenInstanceError) as caught:
                change(item, name, 2) if change is setattr else change(item, name)
            refused.append(str(caught.value))
        assert refused == [
            "cannot assign to field 'size'",
            "cannot assign to field 'other'",
            "cannot delete field 'name'",
        ]

        class Plain(made):  # a plain subclass may hold more, never change a field
            pass

        sub = Plain("a")
        sub.extra = 1
        del sub.extra
        with pytest.raises(dataclasses.FrozenInstanceError):
            sub.name = "b"

        @datarecord
        class Child(made):  # a record below a record keeps working (dataclass's own methods)
            more: int = 0

        with pytest.raises(dataclasses.FrozenInstanceError):
            Child("a").more = 1
        child = Child("a")
        assert child == Child("a") and repr(child).endswith("more=0)")


def test_a_class_with_its_own_methods_keeps_them() -> None:
    @datarecord
    class Shown:
        name: str

        def __repr__(self) -> str:
            return "mine"

    @datarecord(order=True)
    class Ordered:
        rank: int

    assert repr(Shown("a")) == "mine" and Shown("a") == Shown("a")
    assert Ordered(1) < Ordered(2) and hash(Ordered(1)) == hash(Ordered(1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        Ordered(1).rank = 3  # type: ignore[misc]


def test_a_record_costs_less_code_than_a_dataclass() -> None:
    plain, ours = twins()
    generated = {"__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"}
    assert all(getattr(plain, name).__code__ is not None for name in generated)
    twin_plain, twin_ours = twins()
    for name in generated:  # one code for every record; a fresh function per dataclass
        assert getattr(ours, name).__code__ is getattr(twin_ours, name).__code__
        assert getattr(plain, name) is not getattr(twin_plain, name)
    assert ours.__setattr__.__qualname__ == f"{ours.__qualname__}.__setattr__"


def test_a_frozen_record_compiles_only_its_init(monkeypatch: pytest.MonkeyPatch) -> None:
    # @dataclass compiles each method it writes with `exec`: a record's frozen methods are not.
    compiled: list[str] = []
    create = dataclasses._create_fn  # type: ignore[attr-defined]

    def counted(name, *args, **kwargs):
        compiled.append(name)
        return create(name, *args, **kwargs)

    monkeypatch.setattr(dataclasses, "_create_fn", counted)
    twins()
    if sys.version_info[:2] in ((3, 11), (3, 12)):
        # @dataclass(frozen=True): __init__, __repr__, __eq__, __hash__, __setattr__, __delattr__
        assert sorted(compiled) == sorted(
            ["__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"]
            + ["__init__"]
        )
