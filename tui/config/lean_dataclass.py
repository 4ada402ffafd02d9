"""`lean_dataclass`: a dataclass whose methods are shared functions, not methods generated from source.

@dataclass compiles each method it generates (`__init__`, `__repr__`, `__eq__`; a frozen class also
`__setattr__`, `__delattr__`, `__hash__`) with exec, ~60 µs each: the options and settings classes built
before the app's first frame cost ~9 ms that way (54 fields of AgentOptions alone ~2 ms). A lean dataclass
is still a dataclass (`fields`, `replace`, `asdict` work) and type checkers see the generated signature
(dataclass_transform). Its `__init__` takes the same arguments (positional in field order or by name),
fills defaults and factories the same way, runs `__post_init__`, and raises the same TypeErrors; a frozen
one refuses assignment with FrozenInstanceError and hashes by value. A construction costs ~10 µs more:
for classes built a few times a session (settings, options, a provider's profile), not per token.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, FrozenInstanceError, dataclass, field, fields
from typing import Any, TypeVar, dataclass_transform, overload

_C = TypeVar("_C")


@overload
def lean_dataclass(cls: type[_C], /) -> type[_C]: ...


@overload
def lean_dataclass(*, frozen: bool = False) -> Callable[[type[_C]], type[_C]]: ...


@dataclass_transform(field_specifiers=(field,))
def lean_dataclass(cls: type[_C] | None = None, /, *, frozen: bool = False) -> Any:
    """`@dataclass` or `@dataclass(frozen=True)`, with shared methods (give the class a docstring: dataclass would
    otherwise build one from `inspect.signature`, which costs more than it saves)."""

    def make(target: type[_C]) -> type[_C]:
        lean: Any = dataclass(init=False, repr=False, eq=False)(target)
        methods: dict[str, Any] = {"__init__": _init, "__repr__": _repr, "__eq__": _eq, "__hash__": None}
        if frozen:
            names = frozenset(f.name for f in fields(lean))

            def refuse(self: Any, name: str, *args: Any) -> None:
                if type(self) is lean or name in names:
                    raise FrozenInstanceError(f"cannot assign to field {name!r}")
                (object.__setattr__ if args else object.__delattr__)(self, name, *args)

            methods.update(__setattr__=refuse, __delattr__=refuse, __hash__=_hash)
        for name, method in methods.items():
            setattr(lean, name, method)
        return lean  # type: ignore[no-any-return]

    return make if cls is None else make(cls)


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    every = [f for f in fields(self) if f.init]
    name = type(self).__name__
    if len(args) > len(every):
        raise TypeError(f"{name}() takes {len(every)} positional arguments but {len(args)} were given")
    for f, value in zip(every, args, strict=False):
        if f.name in kwargs:
            raise TypeError(f"{name}() got multiple values for argument {f.name!r}")
        kwargs[f.name] = value
    for f in fields(self):
        if f.init and f.name in kwargs:
            value = kwargs.pop(f.name)
        elif f.default is not MISSING:
            value = f.default
        elif f.default_factory is not MISSING:
            value = f.default_factory()
        elif f.init:
            raise TypeError(f"{name}() missing 1 required argument: {f.name!r}")
        else:
            continue
        object.__setattr__(self, f.name, value)
    if kwargs:
        raise TypeError(f"{name}() got an unexpected keyword argument {next(iter(kwargs))!r}")
    post_init = getattr(self, "__post_init__", None)
    if post_init is not None:
        post_init()


def _repr(self: Any) -> str:
    inner = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.repr)
    return f"{type(self).__name__}({inner})"


def _values(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, f.name) for f in fields(self) if f.compare)


def _eq(self: Any, other: Any) -> Any:
    if type(other) is not type(self):
        return NotImplemented
    return _values(self) == _values(other)


def _hash(self: Any) -> int:
    return hash(tuple(getattr(self, f.name) for f in fields(self) if (f.compare if f.hash is None else f.hash)))
