"""`-r`, `/resume` and ACP `session/load` take only the id of a session agent-tui saved: never a path, never a link.

Nothing outside the session store is opened for writing: the files named below keep their bytes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import RequestError

from tests.fakeapi.demo_project import make_demo_project
from tests.integration.acp_helpers import Client, agent
from tests.integration.test_resume_bad_input import REPLY, USER, header, session_file, write_lines
from tui.agent.history.resume import SessionNotFound, find_session
from tui.agent.history.session_ids import outside_store
from tui.cli.main import main


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_demo_project(tmp_path / "proj")


def transcript(path: Path, sid: str) -> bytes:
    """A well-formed session file at `path` (anywhere); its bytes, to compare afterwards."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_lines(path, [header(sid), {"type": "message", "message": USER}, {"type": "message", "message": REPLY}])
    return path.read_bytes()


def test_a_path_is_never_a_session_id(project: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "outside.jsonl"
    kept = transcript(outside, "20250101-000000-0e0e0e")
    transcript(session_file(project), "20250101-000000-abcdef")  # a real one, so an id would be found
    for target in ["../outside.jsonl", str(outside), "~/outside.jsonl", "..", "../x", "a/../../x", "abc\x00"]:
        assert main(["-r", target, "-p", "go on", "--cwd", str(project)]) == 2, target
        err = capfd.readouterr().err
        assert "is not a session id" in err and "never a path" in err and err.count("\n") == 1, err
        with pytest.raises(SessionNotFound, match="is not a session id"):
            find_session(project, target)
    assert outside.read_bytes() == kept


def test_a_link_in_the_session_store_is_not_followed(
    project: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "elsewhere" / "20250101-000000-0e0e0e.jsonl"
    kept = transcript(outside, "20250101-000000-1111aa")
    link = session_file(project, "20250101-000000-1111aa")
    link.symlink_to(outside)
    assert main(["-r", "20250101-000000-1111aa", "-p", "go on", "--cwd", str(project)]) == 2
    err = capfd.readouterr().err
    assert f"Skipped {link.name} in the sessions folder: it is a link, which agent-tui does not follow" in err
    assert "No saved session '20250101-000000-1111aa'" in err
    assert main(["-c", "-p", "go on", "--offline", "--cwd", str(project)]) == 0  # -c passes it over: a new one
    assert outside.read_bytes() == kept
    # and were it listed (a link made between the listing and the lookup), it is still refused
    assert outside_store(link, link.parent) == (
        f"The session file {link} is a link; agent-tui does not follow links in the session store."
    )
    assert outside.read_bytes() == kept and link.is_symlink()


def test_a_session_file_outside_the_store_given_as_a_path_is_continued_in_a_new_file(
    project: Path, tmp_path: Path
) -> None:
    from tui.agent.history.resume import project_sessions_dir
    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession

    outside = tmp_path / "outside.jsonl"
    kept = transcript(outside, "20250101-000000-0e0e0e")
    session = AgentSession(AgentOptions(project_dir=project.resolve(), offline=True))
    loaded = session.resume(outside)  # a Path: only agent-tui itself (or replay) passes one
    assert loaded.session_id != "20250101-000000-0e0e0e" and any("stays as it is" in n for n in loaded.notes)
    session.run_turn("go on")
    session.close()
    assert outside.read_bytes() == kept
    assert session.transcript_path.parent == project_sessions_dir(session.options)


async def test_acp_session_load_refuses_a_path(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    kept = transcript(outside, "20250101-000000-0e0e0e")
    refused = []
    async with agent(Client(), project, tmp_path, None) as (conn, _):
        for target in ["../../outside", str(outside), str(outside.with_suffix("")), "~/x"]:
            with pytest.raises(RequestError) as error:
                await conn.load_session(cwd=str(project), session_id=target, mcp_servers=[])
            refused.append(error.value)
    assert [e.code for e in refused] == [-32602] * 4
    assert all("is not a session id" in str(e) for e in refused), refused
    assert outside.read_bytes() == kept


def test_a_session_file_with_a_line_nested_200000_deep_is_listed_and_read(project: Path) -> None:
    from tui.agent.history.resume import list_sessions, load_session

    path = session_file(project)
    transcript(path, "20250101-000000-abcdef")
    with path.open("a") as out:
        out.write('{"type": "note", "x": ' + "[" * 200_000 + "]" * 200_000 + "}\n")
    assert [s.id for s in list_sessions(project)] == ["20250101-000000-abcdef"]
    assert len(load_session(path).messages) == 2
