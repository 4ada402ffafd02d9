"""lean_dataclass behaves as @dataclass does, with shared methods instead of generated ones."""

from __future__ import annotations

import dataclasses
from dataclasses import field

import pytest

from tui.config.lean_dataclass import lean_dataclass


@lean_dataclass(frozen=True)
class Point:
    """A frozen one."""

    x: int
    y: int = 0
    tags: tuple[str, ...] = ()
    note: str = field(default="", compare=False, repr=False)


@lean_dataclass
class Bag:
    """A plain one, with a field not in __init__ and a __post_init__."""

    name: str
    items: list[str] = field(default_factory=list)
    size: int = field(init=False, default=-1)

    def __post_init__(self) -> None:
        self.size = len(self.items)


def test_a_frozen_one_is_immutable_compared_and_hashed_by_value() -> None:
    a = Point(1, 2, note="a")
    assert a == Point(x=1, y=2, note="b") and a != Point(1, 3)
    assert hash(a) == hash(Point(1, 2)) and len({a, Point(1, 2)}) == 1
    assert repr(a) == "Point(x=1, y=2, tags=())"
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.x = 5  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del a.y  # type: ignore[misc]
    moved = dataclasses.replace(a, x=7)
    assert (moved.x, moved.y) == (7, 2) and dataclasses.asdict(moved)["x"] == 7


def test_a_plain_one_fills_factories_skips_init_false_fields_and_runs_post_init() -> None:
    bag, other = Bag("b", ["x", "y"]), Bag("c")
    assert (bag.size, other.items, other.size) == (2, [], 0)
    other.items.append("z")
    assert Bag("d").items == []
    bag.name = "renamed"
    assert bag != Bag("b", ["x", "y"])
    with pytest.raises(TypeError, match="unhashable"):
        hash(bag)


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {}, "missing 1 required argument: 'x'"),
        ((1,), {"x": 2}, "multiple values for argument 'x'"),
        ((1, 2, (), "n", 5), {}, "takes 4 positional arguments but 5 were given"),
        ((1,), {"z": 0}, "unexpected keyword argument 'z'"),
    ],
)
def test_wrong_arguments_fail_as_a_dataclass_would(args: tuple, kwargs: dict, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        Point(*args, **kwargs)


def test_init_false_fields_cannot_be_passed() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'size'"):
        Bag("b", size=3)  # type: ignore[call-arg]
