"""Checkpoints and /rewind on a real session against the fake API: code, conversation, branches, bad input."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.demo_project import DEMO_FILES, make_demo_project
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.helpers import make_session
from tui.agent.events import CheckpointSaved
from tui.agent.history.checkpoints import Checkpoints
from tui.agent.history.rewind import code_steps, rewind, rewind_entries


def turn(name: str, marker: str) -> list:
    return [
        reply(tool_use("Read", {"file_path": "a.py"}), stop_reason="tool_use"),
        reply(
            text("Editing."),
            tool_use(
                "Edit", {"file_path": "a.py", "old_string": "return a + b", "new_string": f"return a + b  # {marker}"}
            ),
            tool_use("Write", {"file_path": name, "content": f"{marker}\n"}),
            tool_use("Bash", {"command": f"echo {marker} > bash-{marker}.txt && chmod 600 a.py && rm -f gone.txt"}),
            stop_reason="tool_use",
        ),
        reply(f"done {marker}"),
    ]


@pytest.fixture(scope="module")
def two_turns(tmp_path_factory: pytest.TempPathFactory):
    """A project after two turns that edit, create and delete files, and its saved session."""
    monkeypatch = pytest.MonkeyPatch()
    project = make_demo_project(tmp_path_factory.mktemp("rw") / "proj")
    (project / "gone.txt").write_bytes(b"\x00binary\xff")
    os.chmod(project / "a.py", 0o755)
    sessions = project.parent / "sessions"
    with FakeAPI(turn("one.txt", "first") + turn("two.txt", "second")) as api:
        session, events = make_session(
            monkeypatch,
            api.base_url,
            project,
            permission_mode="bypassPermissions",
            transcript=True,
            sessions_dir=sessions,
        )
        session.run_turn("first change")
        session.run_turn("second change")
        assert api.errors == []
    session.close()
    yield project, session, events
    monkeypatch.undo()


def reopen(session, project: Path):
    """The session as `-c` finds it after the process was killed: a new object reading the files."""
    from tui.agent.session import AgentSession

    fresh = AgentSession(
        session.options.__class__(
            project_dir=project, transcript=True, offline=True, sessions_dir=session.options.sessions_dir
        ),
        tools=[],
    )
    fresh.resume(session.session_id)
    return fresh


def test_checkpoints_are_written_before_prompts_and_changes(two_turns) -> None:
    _project, session, events = two_turns
    saved = events.of(CheckpointSaved)
    assert [e.reason for e in saved if e.reason == "prompt"] == ["prompt", "prompt"]
    assert {"edit", "Bash"} <= {e.reason for e in saved}
    manifest = Path(session.options.sessions_dir).glob(f"projects/*/checkpoints/{session.session_id}.manifest")
    assert next(manifest).stat().st_size > 0


def test_rewind_after_a_restart_restores_bytes_modes_and_removes_new_files(two_turns, tmp_path) -> None:
    project, session, _ = two_turns
    fresh = reopen(session, project)
    entries = rewind_entries(fresh)
    assert [e.prompt for e in entries] == ["first change", "second change"]
    files = {name: (plus, minus) for name, plus, minus in entries[1].files}
    assert files["a.py"] == (1, 1) and files["two.txt"] == (1, 0) and "bash-second.txt" in files

    result = rewind(fresh, entries[0], "both")
    assert result.prompt == "first change"
    # agent-tui never saw the file Bash deleted, so it says it cannot bring it back, and restores the rest
    assert result.unrestored == ["gone.txt"]
    assert result.lines[0] == "1 file could not be restored: gone.txt; the rest were."
    assert "could not restore gone.txt: its content before Bash changed it was not recorded" in result.lines
    assert (project / "a.py").read_text() == DEMO_FILES["a.py"]
    assert (project / "a.py").stat().st_mode & 0o777 == 0o755
    for name in ("one.txt", "two.txt", "bash-first.txt", "bash-second.txt"):
        assert not (project / name).exists(), name
    assert fresh.messages == []

    # the abandoned branch is kept: going back to it brings the code and the conversation back
    entries = rewind_entries(fresh)
    assert [e.is_branch for e in entries] == [True]
    rewind(fresh, entries[0], "both")
    assert "# second" in (project / "a.py").read_text() and (project / "two.txt").read_text() == "second\n"
    assert (project / "a.py").stat().st_mode & 0o777 == 0o600 and not (project / "gone.txt").exists()
    assert fresh.messages == session.messages
    fresh.close()


def test_conversation_only_and_code_only(two_turns) -> None:
    project, session, _ = two_turns
    fresh = reopen(session, project)
    before = (project / "a.py").read_bytes()
    second = next(e for e in rewind_entries(fresh) if e.prompt == "second change")
    rewind(fresh, second, "conversation")
    assert (project / "a.py").read_bytes() == before and len(fresh.messages) == second.msg
    second = [e for e in rewind_entries(fresh) if e.prompt == "second change"]
    assert second == []  # the prompt left the conversation; its turn is a branch now

    first = next(e for e in rewind_entries(fresh) if e.prompt == "first change")
    messages = list(fresh.messages)
    rewind(fresh, first, "code")
    assert fresh.messages == messages and (project / "a.py").read_text() == DEMO_FILES["a.py"]
    branch = next(e for e in rewind_entries(fresh) if e.is_branch)
    rewind(fresh, branch, "both")  # back where the tests started
    assert (project / "a.py").read_bytes() == before
    fresh.close()


def test_an_outside_edit_is_a_conflict_kept_unless_overwritten(two_turns) -> None:
    project, session, _ = two_turns
    fresh = reopen(session, project)
    (project / "two.txt").write_text("edited by hand\n")
    first = rewind_entries(fresh)[0]
    steps = code_steps(fresh.checkpoints, first.pos)
    assert [Path(s.path).name for s in steps if s.conflict] == ["two.txt"]
    result = rewind(fresh, first, "code", steps, overwrite=False)
    assert "kept two.txt as it is (changed outside agent-tui)" in result.lines
    assert (project / "two.txt").read_text() == "edited by hand\n"
    assert (project / "a.py").read_text() == DEMO_FILES["a.py"]
    branchless = rewind_entries(fresh)
    rewind(fresh, branchless[-1], "code")  # the newest prompt: code as it was after turn two
    fresh.close()


def test_a_missing_or_damaged_blob_names_the_file_and_restores_the_rest(tmp_path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    cps = Checkpoints(tmp_path / "cp", "s", project)
    cps.prompt(1, "go", 0)
    for name in ("a.txt", "b.txt", "c.txt"):
        cps.before_write(project / name, f"old {name}\n".encode(), f"new {name}\n".encode())
        (project / name).write_text(f"new {name}\n")
    objects = tmp_path / "cp" / "objects"
    old_a = cps.changes[0].before
    (objects / old_a[:2] / old_a[2:]).unlink()
    old_b = cps.changes[1].before
    (objects / old_b[:2] / old_b[2:]).write_bytes(b"Fgarbage")
    from tui.agent.history.rewind import apply_code

    result = apply_code(cps, code_steps(cps, 0))
    assert result.unrestored == ["a.txt", "b.txt"]
    assert f"could not restore a.txt: checkpoint blob {old_a[:12]} is missing" in result.lines
    assert f"could not restore b.txt: checkpoint blob {old_b[:12]} is damaged" in result.lines
    assert (project / "c.txt").read_text() == "old c.txt\n"


def test_a_read_only_file_says_so(tmp_path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    cps = Checkpoints(None, "s", project)
    cps.prompt(1, "go", 0)
    target = project / "ro.txt"
    cps.before_write(target, b"old\n", b"new\n")
    target.write_text("new\n")
    target.chmod(0o444)
    project.chmod(0o555)
    try:
        if os.access(target, os.W_OK):
            pytest.skip("running as root: read-only files are writable")
        from tui.agent.history.rewind import apply_code

        result = apply_code(cps, code_steps(cps, 0))
        assert result.lines == ["could not restore ro.txt: Permission denied"]
    finally:
        project.chmod(0o755)


def test_a_session_from_before_checkpoints_rewinds_its_conversation(tmp_path) -> None:
    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession

    session = AgentSession(AgentOptions(project_dir=tmp_path, transcript=False, offline=True), tools=[])
    session.messages = [
        {"role": "user", "content": [{"type": "text", "text": "old prompt"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "old answer"}]},
    ]
    entries = rewind_entries(session)
    assert [(e.prompt, e.pos) for e in entries] == [("old prompt", None)]
    result = rewind(session, entries[0], "both")
    assert session.messages == [] and result.prompt == "old prompt"


def test_a_project_too_big_to_scan_says_bash_was_not_tracked(tmp_path, monkeypatch) -> None:
    import tui.agent.history.checkpoint_bash as checkpoint_bash

    monkeypatch.setattr(checkpoint_bash, "SCAN_LIMIT", 3)
    for n in range(5):
        (tmp_path / f"f{n}").write_text("x")
    cps = Checkpoints(None, "s", tmp_path)
    cps.prompt(1, "go", 0)
    finished = checkpoint_bash.watch_command(cps)
    (tmp_path / "f0").write_text("changed")
    finished()
    assert cps.changes == [] and "more than 3 files" in cps.untracked[1]


def test_blobs_are_deltas_that_read_back_exactly(tmp_path) -> None:
    import random

    from tui.agent.history.blobstore import BlobStore, _common_prefix, _common_suffix

    rng = random.Random(5)
    for _ in range(300):
        a = bytes(rng.getrandbits(2) for _ in range(rng.choice([0, 5, 4096, 4097, 9000])))
        i = rng.randint(0, len(a))
        j = rng.randint(i, len(a))
        b = a[:i] + bytes(rng.getrandbits(2) for _ in range(rng.randint(0, 5))) + a[j:]
        prefix = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
        assert _common_prefix(a, b) == prefix
        limit = min(len(a), len(b)) - prefix
        suffix = next((k for k in range(limit) if a[-1 - k] != b[-1 - k]), limit)
        assert _common_suffix(a, b, limit) == suffix
    store = BlobStore(tmp_path)
    versions = [bytes(range(256)) * 400]
    for n in range(40):  # past the depth bound: a whole copy is stored again
        versions.append(versions[-1][: n * 97] + b"edit %d" % n + versions[-1][n * 97 :])
    names = [store.put(versions[0])]
    for old, new in itertools.pairwise(versions):
        names.append(store.put(new, old))
    assert [store.get(n) for n in names] == versions
    assert sum(f.stat().st_size for f in tmp_path.rglob("*") if f.is_file()) < len(versions[0]) * 3


def test_checkpoints_of_sessions_unused_for_the_cleanup_period_are_pruned(tmp_path) -> None:
    import time

    from tui.agent.history.checkpoint_gc import prune

    folder = tmp_path / "sessions" / "checkpoints"
    old, young = Checkpoints(folder, "old", tmp_path), Checkpoints(folder, "young", tmp_path)
    old.prompt(1, "old", 0)
    old.before_write(tmp_path / "a.txt", b"only the old session had this\n" * 20, b"old edit\n" * 20)
    young.prompt(1, "young", 0)
    base = b"shared base content\n" * 40
    young.before_write(tmp_path / "b.txt", base, base + b"one more line\n")  # a delta on `base`
    (tmp_path / "sessions" / "young.jsonl").write_text("{}\n")
    month_ago = time.time() - 31 * 86_400
    for path in [*folder.rglob("*"), tmp_path / "sessions" / "young.jsonl"]:
        os.utime(path, (month_ago, month_ago))
    os.utime(tmp_path / "sessions" / "young.jsonl")  # used today
    assert prune(folder, 30) == (1, 2)  # the old log, and its two blobs
    kept = Checkpoints(folder, "young", tmp_path)
    assert kept.blobs.get(kept.changes[0].after) == base + b"one more line\n"
    assert not (folder / "old.manifest").exists()


def test_cleanup_period_days_is_a_setting(tmp_path) -> None:
    from tui.config.settings import load_settings

    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text('{"cleanupPeriodDays": 7}')
    assert load_settings(tmp_path).settings.cleanup_period_days == 7
