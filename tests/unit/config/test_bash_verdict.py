"""Issue 12 §1: the Bash verdict is never more permissive than Claude Code's (one test per class)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.unit.config.evil_git import make_evil_repo
from tests.unit.config.fakes import TOOLS, context, tool_input
from tui.config.git_safety import config_runs_programs, run_git
from tui.config.permissions import PermissionPolicy

ALLOW = ["Bash(ls *)", "Bash(git status *)", "Bash(git diff *)", "Bash(cat *)", "Bash(echo *)"]
DENY = ["Bash(git push *)", "Bash(rm *)"]


def verdict(project: Path, command: str, *, trusted: bool = True, allow: list[str] | None = None) -> str:
    policy = PermissionPolicy(allow=ALLOW if allow is None else allow, deny=DENY, project_dir=project, trusted=trusted)
    return policy.check(TOOLS["Bash"], tool_input("Bash", command), context(project)).decision


@pytest.mark.parametrize(
    "command",
    [
        "PATH=./bin:$PATH ls",
        "PATH=./bin2:/usr/bin:/bin ls",
        "PATH=bin ls",
        "LD_PRELOAD=./x.so ls",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=./hooks/x.sh git status",
        "GIT_EXTERNAL_DIFF=./x.sh git diff",
        "PYTHONPATH=./src ls",
        "BASH_ENV=./x.sh ls",
        "PAGER=./x git diff",
        "EDITOR=./x ls",
        "FOO=bar ls",
        "PATH=./bin; ls",
        "export PATH=./bin; ls",
        "IFS=/ ls",
    ],
)
def test_an_assignment_that_is_not_harmless_is_part_of_the_command(tmp_path: Path, command: str) -> None:
    assert verdict(tmp_path, command) == "ask"
    assert verdict(tmp_path, command, allow=[]) == "ask"  # and not read-only


@pytest.mark.parametrize(
    "command",
    [
        "LANG=C ls",
        "LC_ALL=C sort a.txt",
        "TZ=UTC date",
        "NO_COLOR=1 ls",
        "TERM=dumb ls",
        "COLUMNS=80 ls",
        'LANG="C" ls',
    ],
)
def test_harmless_variables_are_stripped(tmp_path: Path, command: str) -> None:
    assert verdict(tmp_path, command, allow=[]) == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "echo $'\\x6c\\x73'",
        "$'ls'",
        "ls $X",
        "$X",
        "echo $(ls)",
        "echo `ls`",
        "diff <(ls) <(ls)",
        "echo {a,b}",
        "echo a\\ b",
        "cat <<EOF\nhi\nEOF",
        "(ls)",
        "{ ls; }",
        "eval ls",
        "bash -c 'ls'",
        "sh -c 'cat a.txt'",
        "exec ls",
        "env ls",
        "env PATH=./bin ls",
        "sudo ls",
        "cat ./src/../a.txt",
    ],
)
def test_what_is_known_only_when_it_runs_asks(tmp_path: Path, command: str) -> None:
    assert verdict(tmp_path, command) == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "git -C . status",
        "git --exec-path=./hooks status",
        "git --git-dir=.git status",
        "git --work-tree=. status",
        "git -c core.pager=./x log -1",
        "git --no-pager log -1",
        "xargs ls",
        "xargs echo",
        "cat a.txt | xargs rg x",
        "timeout 5 ./x.sh",
        "nice ./x.sh",
        "./bin/ls",
        "/bin/ls",
        "command -v ls",
    ],
)
def test_wrappers_and_global_options_are_judged_by_what_runs(tmp_path: Path, command: str) -> None:
    assert verdict(tmp_path, command) == "ask"


@pytest.mark.parametrize(
    "command", ["timeout 5 ls", "nice -n 5 ls", "nohup ls", "time ls", "stdbuf -oL ls", "command ls"]
)
def test_harmless_wrappers_keep_allow_rules_but_not_the_read_only_set(tmp_path: Path, command: str) -> None:
    assert verdict(tmp_path, command) == "allow"
    assert verdict(tmp_path, command, allow=[]) == ("allow" if command == "command ls" else "ask")


@pytest.mark.parametrize(
    "command",
    [
        "git grep -O./x hello",
        "git grep --open-files-in-pager=./x hello",
        "sort --compress-program=./x a.txt",
        "sort -o out a.txt",
        "sort --output=out a.txt",
        "file -C -m ./magic",
        "file -m ./magic a.txt",
        "find . -exec ./x {} ;",
        "find . -execdir ./x {} +",
        "find . -ok ./x {} ;",
        "find . -okdir ./x {} ;",
        "find . -delete",
        "find . -fprint out",
        "find . -fls out",
        "rg --pre ./x hello",
        "rg --pre=./x hello",
        "less a.txt",
        "more a.txt",
        "man ls",
        "tar -tf x.tar",
        "git diff --ext-diff",
        "git diff --output=out",
        "git log --output=out",
        "git cat-file --textconv HEAD:a",
        "echo hi | tee /dev/null",
        "git remote show origin",
        "uniq a out",
    ],
)
def test_read_only_commands_with_flags_that_run_or_write_are_not_read_only(tmp_path: Path, command: str) -> None:
    assert verdict(tmp_path, command, allow=[]) == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "git push",
        "git -C . push",
        "git --no-pager push",
        "command git push",
        "\\git push",
        "/usr/bin/git push",
        "git -c x.y=1 push",
        "env git push",
        "timeout 5 git push",
        "LANG=C git push",
        "FOO=1 git push",
        "bash -c 'git push'",
        "echo $(git push)",
        "$'git' push",
        "xargs git push",
        "(git push)",
    ],
)
def test_a_deny_rule_is_not_escaped(tmp_path: Path, command: str) -> None:
    assert verdict(tmp_path, command) == "deny"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("sed -n '1,5p' a.txt", "allow"),
        ("sed -n 1p a.txt", "allow"),
        ("sed -n '1,2p' a.txt b.txt", "allow"),
        ("sed 's/a/b/' a.txt", "ask"),
        ("sed -n '1e ./x' a.txt", "ask"),
        ("sed -i -n 1p a.txt", "ask"),
        ("sed -n '1p;w out' a.txt", "ask"),
    ],
)
def test_sed_that_only_prints_lines_is_read_only(tmp_path: Path, command: str, expected: str) -> None:
    assert verdict(tmp_path, command, allow=[]) == expected


def _evil_repo(path: Path) -> Path:
    return make_evil_repo(path, path / "marker")


def test_the_evil_repo_really_runs_its_fsmonitor(tmp_path: Path) -> None:
    marker = _evil_repo(tmp_path)
    subprocess.run(["git", "status"], cwd=tmp_path, capture_output=True, check=True)
    assert marker.exists()


@pytest.mark.parametrize(
    "command", ["git status", "git status --short", "git diff", "git log -1", "cd . && git status"]
)
def test_untrusted_repo_config_that_names_a_program_makes_git_ask(tmp_path: Path, command: str) -> None:
    marker = _evil_repo(tmp_path)
    assert verdict(tmp_path, command, trusted=False, allow=[]) == "ask"
    assert verdict(tmp_path, command, trusted=True, allow=[]) == "allow"
    assert not marker.exists()


def test_untrusted_plain_repo_keeps_git_status_read_only(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert not config_runs_programs(tmp_path)
    assert verdict(tmp_path, "git status", trusted=False, allow=[]) == "allow"


def test_run_git_neutralises_the_repositorys_programs(tmp_path: Path) -> None:
    marker = _evil_repo(tmp_path)
    (tmp_path / "f").write_text("x\n")
    assert config_runs_programs(tmp_path)
    for args in (["status"], ["status", "--short"], ["diff"], ["log", "-1"]):
        run_git(args, tmp_path)
    assert not marker.exists()


@pytest.mark.parametrize(
    "command",
    [
        "ls /",
        "cat /etc/hostname",
        "ls ~",
        "ls ../",
        "cat ../x",
        "cd / && ls",
        "cd ~ && ls",
        "cd .. && ls",
        "grep x /etc/hosts",
        "find / -name x",
    ],
)
def test_file_commands_reaching_outside_the_project_ask_even_with_an_allow_rule(tmp_path: Path, command: str) -> None:
    project = tmp_path / "p"
    project.mkdir()
    assert verdict(project, command, allow=["Bash(ls *)", "Bash(cat *)", "Bash(grep *)", "Bash(find *)"]) == "ask"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("sort -u a.txt", "allow"),
        ("sort -k1 a.txt", "ask"),
        ("uniq a.txt", "allow"),
        ("uniq -c a.txt", "ask"),
        ("rg -n hello src", "allow"),
        ("rg -z hello", "ask"),
        ("rg --files", "ask"),
        ("git status --short", "allow"),
        ("git status -uno", "ask"),
        ("git log --show-signature -1", "ask"),
        ("git config --list", "ask"),
        ("git config --get user.name", "allow"),
        ("printenv HOME", "ask"),
        ("pushd src", "ask"),
        ("echo ~/x", "allow"),
    ],
)
def test_read_only_set_knows_its_flags(tmp_path: Path, command: str, expected: str) -> None:
    (tmp_path / "src").mkdir()
    assert verdict(tmp_path, command, allow=[]) == expected


@pytest.mark.parametrize(
    "command",
    [
        "jq -f a.txt -n",
        "jq --rawfile x a.txt -n",
        "jq --arg x 1 -n '$x'",
        "file -z a.txt",
        "git stash list --stat",
        "git log -L1,1:a.txt",
        "git grep -f a.txt",
        "grep -e '-x' a.txt",
        "cd src && git status",
        "cd src; git log -1",
    ],
)
def test_more_flags_and_folders_that_claude_code_asks_about(tmp_path: Path, command: str) -> None:
    (tmp_path / "src").mkdir()
    assert verdict(tmp_path, command) == "ask"


def test_untrusted_repo_config_that_names_a_program_asks_even_with_an_allow_rule(tmp_path: Path) -> None:
    marker = _evil_repo(tmp_path)
    assert verdict(tmp_path, "git status", trusted=False, allow=["Bash(git status *)", "Bash(git *)"]) == "ask"
    assert verdict(tmp_path, "timeout 5 git status", trusted=False, allow=["Bash(git status *)"]) == "ask"
    assert not marker.exists()


@pytest.mark.parametrize(
    "command",
    [
        "cat secret.txt",
        "head secret.txt",
        "grep x secret.txt",
        "cat ./secret.txt",
        "cat secret*",
        "cd src && cat ../secret.txt",
        "cp secret.txt out.txt",
    ],
)
def test_read_deny_rules_cover_file_commands(tmp_path: Path, command: str) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "secret.txt").write_text("s\n")
    policy = PermissionPolicy(allow=["Bash(cat *)", "Bash(cp *)"], deny=["Read(./secret.txt)"], project_dir=tmp_path)
    assert policy.check(TOOLS["Bash"], tool_input("Bash", command), context(tmp_path)).decision == "deny"


@pytest.mark.parametrize("command", ["cat /dev/stdin", "cat /dev/null", "diff a.txt /dev/null"])
def test_device_arguments_are_outside_the_project(tmp_path: Path, command: str) -> None:
    assert verdict(tmp_path, command, allow=[]) == "ask"
