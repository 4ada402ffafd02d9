"""A `cd` in a compound command asks as Claude Code 2.1.332 does (tests/differential, results/latest.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.config.fakes import TOOLS, context, tool_input
from tui.config.bash_cd import MULTI_CD, READ_AFTER_CD, REDIRECT_AFTER_CD, WRITE_AFTER_CD, read_paths
from tui.config.permissions import PermissionPolicy, Verdict

#: the differential run's rules (tests/differential/commands.py)
ALLOW = ["Bash(ls *)", "Bash(cat *)", "Bash(echo *)", "Bash(git status *)", "Bash(touch out.txt)"]
READ_DENY = ["Bash(rm *)", "Read(./secret.txt)"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("print('m')\n")
    return tmp_path


def check(
    project: Path, command: str, *, deny: list[str] = READ_DENY, mode: str = "default", cwd: Path | None = None
) -> Verdict:
    policy = PermissionPolicy(mode=mode, allow=ALLOW, deny=deny, project_dir=project)
    ctx = context(project)
    ctx.state.bash_cwd = cwd
    return policy.check(TOOLS["Bash"], tool_input("Bash", command), ctx)


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("cd src && ls", "ls"),
        ("cd .. && ls", "ls"),
        ("cd src; ls", "ls"),
        ("cd src && cat m.py", "cat"),
        ("ls && cd src", "ls"),
        ("cd src || ls", "ls"),
        ("cd src | ls", "ls"),
        ("cd src && grep -r x", "grep"),
        ("cd src && find", "find"),
        ("cd src && wc -l m.py", "wc"),
        ("cd - && ls", "ls"),
    ],
)
def test_a_relative_read_after_a_cd_asks_while_a_read_deny_rule_is_configured(
    project: Path, command: str, name: str
) -> None:
    found = check(project, command)
    assert (found.decision, found.reason) == ("ask", READ_AFTER_CD.format(name=name))


@pytest.mark.parametrize("command", ["cd src && ls", "cd src; ls", "cd src && cat m.py", "ls && cd src"])
def test_without_a_read_deny_rule_a_read_after_a_cd_runs(project: Path, command: str) -> None:
    assert check(project, command, deny=["Bash(rm *)"]).decision == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "cd src",
        "cd src && pwd",
        "cd src && echo hi",
        "cd src && cat",
        "cd src && tree",
        "cd ./src && ls",
        "cd . && ls",
        "cd {p}/src && cat m.py",
        "cd src && ls {p}",
        "cd src && cat {p}/src/m.py",
    ],
)
def test_what_claude_code_runs_despite_the_cd(project: Path, command: str) -> None:
    """No path read, only absolute ones, or a leading `cd ./DIR &&`/`cd /abs &&` the checker can follow."""
    assert check(project, command.replace("{p}", str(project))).decision == "allow"


@pytest.mark.parametrize("command", ["cd ./src; ls", "cd ./src || ls", "cd ../x && ls", "FOO=1 cd ./src && ls"])
def test_a_leading_cd_is_sure_only_when_plain_and_joined_by_and(project: Path, command: str) -> None:
    assert check(project, command).decision == "ask"


@pytest.mark.parametrize("command", ["cd src && touch out.txt", "cd src && mkdir d", "cd src && tee x.txt"])
def test_a_write_after_a_cd_asks_whatever_the_rules_say(project: Path, command: str) -> None:
    for deny in (READ_DENY, []):
        found = check(project, command, deny=deny)
        assert (found.decision, found.reason) == ("ask", WRITE_AFTER_CD)
    assert check(project, "touch out.txt").decision == "allow"  # the allow rule alone lets it run


def test_a_redirection_after_a_cd_asks_even_in_accept_edits(project: Path) -> None:
    found = check(project, "cd src && echo x > a.txt", mode="acceptEdits")
    assert (found.decision, found.reason) == ("ask", REDIRECT_AFTER_CD)
    assert check(project, "cd src && echo x > /dev/null", deny=[]).decision == "allow"
    assert check(project, "cd ./src && echo x > a.txt", mode="acceptEdits").decision == "allow"


def test_an_input_redirection_from_a_relative_file_after_a_cd_asks(project: Path) -> None:
    found = check(project, "cd src && cat < m.py", deny=[])
    assert found.decision == "ask"
    assert found.reason.startswith("Input redirection from 'm.py' requires manual approval")


def test_two_changes_of_folder_ask(project: Path) -> None:
    found = check(project, "cd src && ls && cd ..", deny=[])
    assert (found.decision, found.reason) == ("ask", MULTI_CD)


def test_deny_rules_still_win_and_bypass_still_runs(project: Path) -> None:
    assert check(project, "cd src && rm x").decision == "deny"
    assert check(project, "cd src && cat ../secret.txt").decision == "deny"
    assert check(project, "cd src && ls", mode="bypassPermissions").decision == "allow"


def test_cd_up_from_the_folder_the_last_command_left_asks_for_the_cd_not_the_folder(project: Path) -> None:
    """Why `cd .. && ls` ran in the differential: `cd src && ls` ran before it, and the shell stayed in src.

    From src, `..` is the project folder (inside); with a Read deny rule it asks for the cd as Claude Code.
    """
    assert check(project, "cd .. && ls", deny=[], cwd=project / "src").decision == "allow"
    assert check(project, "cd .. && ls", deny=[]).decision == "ask"  # from the project: outside it
    assert check(project, "cd .. && ls", cwd=project / "src").decision == "ask"


@pytest.mark.parametrize(
    ("name", "args", "paths"),
    [
        ("ls", [], ["."]),
        ("ls", ["-la"], ["."]),
        ("find", [".", "-name", "x"], ["."]),
        ("find", ["-name", "x"], ["."]),
        ("grep", ["x", "m.py"], ["m.py"]),
        ("grep", ["-e", "x", "m.py"], ["m.py"]),
        ("grep", ["x"], []),
        ("grep", ["-r", "x", "/abs"], ["/abs"]),
        ("rg", ["-r", "y", "x", "/abs"], ["/abs"]),
        ("rg", ["x"], ["."]),
        ("head", ["-n", "5", "/abs"], ["5", "/abs"]),  # Claude Code reads `5` as a path too
        ("cat", ["--", "m.py"], ["m.py"]),
        ("jq", [".", "x.json"], ["x.json"]),
        ("tr", ["a", "b"], []),
    ],
)
def test_the_paths_a_reading_command_is_given(name: str, args: list[str], paths: list[str]) -> None:
    assert read_paths(name, args) == paths


def test_a_search_given_only_absolute_files_after_a_cd_runs(project: Path) -> None:
    assert check(project, f"cd src && grep -r -m 1 x {project}/src", deny=READ_DENY).decision == "allow"
