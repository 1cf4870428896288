"""`@datarecord`: a dataclass whose generated methods but `__init__` are shared by every record.

`@dataclass` writes those three methods out for each class it makes (source text, compiled:
~3.7 KiB of code per frozen class, and ~2.9 KiB more for a frozen one's `__setattr__` and
`__delattr__`, shared too), and a one-shot turn loads a hundred of them. A record
behaves exactly as `@dataclass(frozen=True)` (or `frozen=False`) would make it: the same
repr (fields with `repr=True`, `...` for a value that contains itself), the same equality
(same class, then the tuple of `compare=True` fields) and hash (the tuple of the fields
dataclasses hashes; None, unhashable, for a mutable record), read from the class's fields by
one function each. tests/core/test_records.py holds each beside `@dataclass`'s own.

A class that writes any of the three itself, or asks for `order`, `unsafe_hash` or `eq=False`,
is left to `@dataclass` whole.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from reprlib import recursive_repr
from types import FunctionType
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T", bound=type)

# On each record class: the names its repr shows, its equality compares and its hash reads,
# and all its fields (what a frozen one refuses to assign or delete).
_REPR, _COMPARE, _HASH = "__record_repr__", "__record_compare__", "__record_hash__"
_FIELDS = "__record_fields__"


@recursive_repr()
def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in getattr(self, _REPR))
    return f"{self.__class__.__qualname__}({shown})"


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        names = getattr(self, _COMPARE)
        return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(tuple(getattr(self, name) for name in getattr(self, _HASH)))


def _frozen_owner(self: Any) -> Any:
    """The record class whose frozen methods these are (a plain subclass may inherit them)."""
    return next(k for k in type(self).__mro__ if _is_shared(k.__dict__.get("__setattr__")))


def _is_shared(method: Any) -> bool:
    return getattr(method, "__code__", None) is _setattr.__code__


def _setattr(self: Any, name: str, value: Any) -> None:
    cls = _frozen_owner(self)
    if type(self) is cls or name in cls.__dict__[_FIELDS]:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
    super(cls, self).__setattr__(name, value)


def _delattr(self: Any, name: str) -> None:
    cls = _frozen_owner(self)
    if type(self) is cls or name in cls.__dict__[_FIELDS]:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
    super(cls, self).__delattr__(name)


def _can_share_frozen(cls: type) -> bool:
    """The shared __setattr__ and __delattr__ behave as @dataclass's own where no base class
    but object has its own (then @dataclass's call it through super())."""
    return not any(
        "__setattr__" in k.__dict__ or "__delattr__" in k.__dict__ for k in cls.__mro__[1:-1]
    )


def _share_frozen(cls: type, fields: tuple[dataclasses.Field, ...]) -> None:
    """The shared methods in place of those @dataclass wrote (where `_frozen_methods` could
    not answer @dataclass's question itself)."""
    if _is_shared(cls.__dict__.get("__setattr__")) or not _can_share_frozen(cls):
        return
    setattr(cls, _FIELDS, tuple(f.name for f in fields))
    cls.__setattr__ = _setattr  # type: ignore[method-assign,assignment]
    cls.__delattr__ = _delattr  # type: ignore[method-assign,assignment]


# @dataclass(frozen=True) compiles a __setattr__ and a __delattr__ from source for each class
# (two of the three `exec`s a record costs: ~10 ms of a one-shot turn's start, for methods
# replaced by the shared ones right after). On Python 3.11 and 3.12 it asks
# `_frozen_get_del_attr(cls, fields, globals)` for them: a record's class marked with _SHARE is
# answered there with new function objects over the shared methods' code (no compiling), any
# other class as before. Python 3.13 builds a class's methods in one `exec` and that helper
# takes other arguments: left alone there, and `_share_frozen` replaces them after.
_SHARE = "__record_share_frozen__"
_ASKED = getattr(dataclasses, "_frozen_get_del_attr", None)


def _frozen_methods(cls: type, fields: list[dataclasses.Field], globals: dict) -> Any:
    if not cls.__dict__.get(_SHARE):
        return _ASKED(cls, fields, globals)  # type: ignore[misc]
    setattr(cls, _FIELDS, tuple(f.name for f in fields))
    return tuple(
        FunctionType(shared.__code__, shared.__globals__, name)
        for shared, name in ((_setattr, "__setattr__"), (_delattr, "__delattr__"))
    )


if (
    sys.version_info[:2] in ((3, 11), (3, 12))
    and _ASKED is not None
    and _ASKED.__code__.co_varnames[: _ASKED.__code__.co_argcount] == ("cls", "fields", "globals")
):
    dataclasses._frozen_get_del_attr = _frozen_methods  # type: ignore[attr-defined]


def _make(cls: T, options: dict[str, Any]) -> T:
    options = {"frozen": True, **options}
    own = any(name in cls.__dict__ for name in ("__repr__", "__eq__", "__hash__"))
    if own or options.get("order") or options.get("unsafe_hash") or not options.get("eq", True):
        return dataclasses.dataclass(cls, **options)
    share = options["frozen"] and not options.get("slots") and _can_share_frozen(cls)
    if share:
        setattr(cls, _SHARE, True)  # read by `_frozen_methods` while @dataclass makes it
    try:
        cls = dataclasses.dataclass(cls, **{**options, "repr": False, "eq": False})
    finally:
        if share:
            delattr(cls, _SHARE)
    fields = dataclasses.fields(cls)
    if options.get("repr", True):
        setattr(cls, _REPR, tuple(f.name for f in fields if f.repr))
        cls.__repr__ = _repr  # type: ignore[method-assign]
    setattr(cls, _COMPARE, tuple(f.name for f in fields if f.compare))
    cls.__eq__ = _eq  # type: ignore[method-assign,assignment]
    if options["frozen"]:  # what @dataclass(frozen=True) hashes: compare fields unless hash=False
        hashed = (f.name for f in fields if (f.compare if f.hash is None else f.hash))
        setattr(cls, _HASH, tuple(hashed))
        cls.__hash__ = _hash  # type: ignore[method-assign]
        if not options.get("slots"):  # @dataclass makes a slotted class anew
            _share_frozen(cls, fields)
    else:  # a mutable dataclass with __eq__ is unhashable
        cls.__hash__ = None  # type: ignore[assignment]
    return cls


@overload
def datarecord(cls: T, /) -> T: ...
@overload
def datarecord(**options: Any) -> Callable[[T], T]: ...


@dataclass_transform(frozen_default=True)
def datarecord(cls: Any = None, /, **options: Any) -> Any:
    """`@datarecord` or `@datarecord(frozen=False, kw_only=True, …)`: `@dataclass(frozen=True, …)`
    with the shared methods."""
    if cls is None:
        return lambda cls: _make(cls, options)
    return _make(cls, options)
