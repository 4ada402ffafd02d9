"""AgentOptions is a dataclass with shared methods (no generated code at import): it behaves as one."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tui.agent.options import AgentOptions


def test_defaults_are_filled_and_each_instance_gets_its_own_lists() -> None:
    a, b = AgentOptions(), AgentOptions()
    assert a.model == "claude-sonnet-5-5" and a.project_dir == Path.cwd()
    a.allowed_tools.append("Read")
    assert b.allowed_tools == []


def test_arguments_by_name_or_position_equality_repr_and_replace() -> None:
    a = AgentOptions(Path("/p"), "m", offline=True)
    assert (a.project_dir, a.model, a.offline) == (Path("/p"), "m", True)
    assert a == AgentOptions(project_dir=Path("/p"), model="m", offline=True)
    assert a != AgentOptions(project_dir=Path("/p"), model="m")
    assert repr(a).startswith("AgentOptions(project_dir=PosixPath('/p'), model='m', max_tokens=None,")
    changed = dataclasses.replace(a, model="other")
    assert (changed.model, changed.offline) == ("other", True)
    assert len(dataclasses.asdict(a)) == len(dataclasses.fields(AgentOptions))
    with pytest.raises(TypeError, match="unhashable"):
        hash(a)


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {"nope": 1}, "unexpected keyword argument 'nope'"),
        ((Path("/p"),), {"project_dir": Path("/q")}, "multiple values for argument 'project_dir'"),
        (tuple(range(100)), {}, "positional arguments but 100 were given"),
    ],
)
def test_wrong_arguments_fail_as_a_dataclass_would(args: tuple, kwargs: dict, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        AgentOptions(*args, **kwargs)
