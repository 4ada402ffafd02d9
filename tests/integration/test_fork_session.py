"""--fork-session with -c, and /resume's tree of forks and rewind branches."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakeapi.demo_project import make_demo_project
from tests.integration.test_headless import run_cli
from tui.agent.history.resume import list_sessions
from tui.agent.history.session_tree import session_tree
from tui.ui.screens.resume_screen import tree_row


def test_fork_session_continues_in_a_copy_and_resume_shows_it_as_a_tree(tmp_path: Path) -> None:
    project = make_demo_project(tmp_path / "proj")
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)}
    first = run_cli(["-p", "--offline", "--output-format", "json", "list the python files"], project, env)
    assert first.returncode == 0, first.stderr
    original = json.loads(first.stdout)["session_id"]
    sessions = tmp_path / "data" / "agent-tui" / "sessions"
    original_file = next(sessions.rglob(f"{original}.jsonl"))
    before = original_file.read_bytes()

    forked = run_cli(
        ["-p", "--offline", "-c", "--fork-session", "--output-format", "json", "explain the project"], project, env
    )
    assert forked.returncode == 0, forked.stderr
    fork_id = json.loads(forked.stdout)["session_id"]
    assert fork_id != original and original_file.read_bytes() == before  # the original is left as it was
    fork_file = original_file.with_name(f"{fork_id}.jsonl")
    header = json.loads(fork_file.read_text().splitlines()[0])
    assert header["forked_from"] == original
    assert "list the python files" in fork_file.read_text()  # the history was copied

    ignored = run_cli(["-p", "--offline", "--fork-session", "hello"], project, env)
    assert "--fork-session applies only with -c or -r; ignored." in ignored.stderr

    infos = list_sessions(project, sessions)
    rows = session_tree([i for i in infos if i.id in (original, fork_id)], project)
    assert [(r.info.id, r.depth) for r in rows] == [(original, 0), (fork_id, 1)]
    assert tree_row(rows[1]).startswith("   └ fork · ")


def test_rewind_branches_are_listed_under_their_session(tmp_path: Path) -> None:
    from tui.agent.history.checkpoints import Checkpoints
    from tui.agent.history.resume import SessionInfo

    folder = tmp_path / "sessions"
    folder.mkdir()
    info = SessionInfo("s1", folder / "s1.jsonl", "2026-01-01T10:00", "first", 2, 0, 0.0, "m")
    cps = Checkpoints(folder / "checkpoints", "s1", tmp_path)
    cps.keep_branch([{"role": "user", "content": "abandoned idea"}], "abandoned idea", 1)
    rows = session_tree([info], tmp_path)
    assert [r.branch is not None for r in rows] == [False, True]
    assert "rewind branch: abandoned idea (1 prompt)" in tree_row(rows[1])
