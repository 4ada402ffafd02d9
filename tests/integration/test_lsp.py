"""Diagnostics after every edit, against real language servers from PyPI (and misbehaving fakes)."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, text, tool_use
from tests.integration.helpers import make_session
from tui.lsp.servers import KNOWN, LspOptions, ServerSpec

BIN = Path(sys.executable).parent
SERVERS = {spec.name: spec for spec in KNOWN}
#: the real servers the test extra installs, by the command each is found by
REAL = {"pylsp": "pylsp", "ty": "ty", "basedpyright": "basedpyright-langserver"}
BROKEN = "def total(values):\n    return sum(values) + undefined_name\n"
FIXED = "def total(values):\n    return sum(values)\n"


def _path_with(tmp_path: Path, command: str | None) -> str:
    """A PATH holding only `command` (of this venv) and the system's basics: the server found is that one."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    if command is not None:
        if not (BIN / command).exists():
            pytest.skip(f"{command} is not installed (pip install -e '.[test]')")
        (folder / command).symlink_to(BIN / command)
    return f"{folder}{os.pathsep}/usr/bin{os.pathsep}/bin"


def _results(body: dict[str, Any]) -> list[str]:
    last = body["messages"][-1]["content"]
    out = []
    for block in last:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            content = block["content"]
            out.append(content if isinstance(content, str) else "\n".join(b.get("text", "") for b in content))
    return out


def _write_then_fix(project: Path) -> list[Any]:
    path = str(project / "calc.py")
    return [
        reply(tool_use("Write", {"file_path": path, "content": BROKEN}), stop_reason="tool_use"),
        reply(tool_use("Read", {"file_path": path}), stop_reason="tool_use"),
        reply(
            tool_use("Edit", {"file_path": path, "old_string": " + undefined_name", "new_string": ""}),
            stop_reason="tool_use",
        ),
        reply(text("done")),
    ]


def _session(monkeypatch: pytest.MonkeyPatch, api: FakeAPI, project: Path, **switches: Any) -> Any:
    session, recorder = make_session(
        monkeypatch,
        api.base_url,
        project,
        transcript=False,
        permission_mode="bypassPermissions",
        lsp=LspOptions((), {"diagnostics_timeout": 8.0, **switches}),
    )
    return session, recorder


@pytest.mark.parametrize("server", list(REAL))
def test_an_edit_that_breaks_the_file_gets_the_servers_diagnostic_and_the_fix_clears_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, server: str
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'calc'\nversion = '0'\n")
    monkeypatch.setenv("PATH", _path_with(tmp_path, REAL[server]))
    with FakeAPI(_write_then_fix(project)) as api:
        session, _ = _session(monkeypatch, api, project)
        try:
            assert [s.name for s in session.lsp.specs] == [server]
            session.run_turn("write calc.py")
            bodies = [r.body for r in api.message_requests]
        finally:
            session.close()
    written = _results(bodies[1])[0]
    assert "<diagnostics" in written and "calc.py:2:" in written and "undefined_name" in written
    assert " error " in written
    fixed = _results(bodies[3])[0]
    assert "<diagnostics" not in fixed  # a clean file adds nothing
    assert session.lsp.closed and all(s.state == "stopped" for s in session.lsp.servers.values())


def test_a_write_without_any_server_changes_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.setenv("PATH", _path_with(tmp_path, None))
    with FakeAPI(_write_then_fix(project)) as api:
        session, _ = _session(monkeypatch, api, project)
        try:
            assert session.lsp is None and "LSP" not in [t.name for t in session.tools]
            session.run_turn("write calc.py")
            written = _results(api.message_requests[1].body)[0]
        finally:
            session.close()
    assert written.startswith("File created successfully") and "<diagnostics" not in written


def _fake(tmp_path: Path, mode: str) -> ServerSpec:
    script = Path(__file__).resolve().parents[1] / "lsp_servers" / "misbehaving.py"
    return ServerSpec(f"fake-{mode}", sys.executable, (str(script), mode), {".py": "python"}, source="test")


@pytest.mark.parametrize(
    ("mode", "says"), [("silent", None), ("mute", "did not answer `initialize`"), ("crash", "exited (code 3): fatal")]
)
def test_a_server_that_misbehaves_costs_the_edit_only_its_diagnostics(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, mode: str, says: str | None
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.setenv("PATH", _path_with(tmp_path, None))
    with FakeAPI(_write_then_fix(project)) as api:
        session, recorder = make_session(
            monkeypatch,
            api.base_url,
            project,
            transcript=False,
            permission_mode="bypassPermissions",
            lsp=LspOptions(
                (_fake(tmp_path, mode),), {"diagnostics_timeout": 0.5, "start_timeout": 1.5}, use_path=False
            ),
        )
        try:
            started = time.monotonic()
            session.run_turn("write calc.py")
            took = time.monotonic() - started
            written = _results(api.message_requests[1].body)[0]
            lines = session.lsp.status_lines()
        finally:
            session.close()
    assert written.startswith("File created successfully") and "<diagnostics" not in written
    assert took < 60  # three edits' worth of budgets, never the server's silence (a bound for a loaded machine)
    if says:
        assert any(says in line for line in lines), lines
        from tui.agent.events import Notice

        assert any(says in e.text for e in recorder.of(Notice))


@pytest.mark.parametrize(
    ("spawn_cap", "says"),
    [(30.0, "fake-mute did not answer `initialize` within 0.3 s"), (0.2, "fake-mute did not start within 0.2 s")],
)
def test_the_start_and_initialize_are_timed_apart(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, spawn_cap: float, says: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A start that outlasts start_timeout and the loop's margin (as on a loaded machine) is not "did not start"
    when the server did start and then kept quiet; one that outlasts the start's own cap is. The server stopped
    leaves no task of its connection pending when the loop closes."""
    import gc

    from tui.lsp import manager as lsp_manager

    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.setattr(lsp_manager, "LOOP_MARGIN", 0.1)
    monkeypatch.setattr(lsp_manager, "SPAWN_TIMEOUT", spawn_cap)
    launched = threading.Event()

    def slow_launch(root: str) -> dict[str, Any]:
        launched.wait(1.0)  # never set: a start that takes a second, past 0.3 + 0.1
        return {}

    told: list[str] = []
    settings = lsp_manager.LspSettings(start_timeout=0.3)
    manager = lsp_manager.LspManager(
        [_fake(tmp_path, "mute")], str(project), settings, launch=slow_launch, notify=told.append
    )
    path = project / "calc.py"
    path.write_text("x = 1\n")
    try:
        assert manager.after_edit(str(path), "", path.name) is None  # the edit goes on without diagnostics
    finally:
        manager.close()
    assert told == [says]
    for server in manager.servers.values():  # closed while their loop ran, not when collected after it
        process = server.client._server if server.client is not None else None
        assert process is None or process._transport.is_closing()
    unraisable: list[str] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: unraisable.append(f"{u.exc_type.__name__}: {u.exc_value}"))
    del manager
    gc.collect()  # a task left pending or a transport left open under the closed loop says so when collected
    assert not [r.getMessage() for r in caplog.records if "Task was destroyed" in r.getMessage()]
    assert not unraisable


def test_documents_are_closed_past_the_open_limit(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from tui.lsp import manager as lsp_manager

    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.setattr(lsp_manager, "MAX_OPEN", 2)
    monkeypatch.setenv("PATH", _path_with(tmp_path, "pylsp"))
    specs = [s for s in KNOWN if s.name == "pylsp"]
    manager = lsp_manager.LspManager(specs, str(project))
    try:
        for n in range(4):
            path = project / f"m{n}.py"
            path.write_text(f"x{n} = {n}\n")
            manager.after_edit(str(path), "", path.name)
        server = next(iter(manager.servers.values()))
        assert len(manager.open) == 2 and len(server.versions) == 2
    finally:
        manager.close()
    assert server.state == "stopped"


def test_the_lsp_tool_finds_a_definition(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The model asks for lib.py's symbols, then where `helper` (used in main.py) is defined: one call a request,
    as parallel calls against the real pylsp once answered no definition on a loaded machine in a full parallel
    run (never alone; our side of parallel calls is held by the strict fake server's test below)."""
    project = tmp_path / "proj"
    project.mkdir()
    (project / "lib.py").write_text("def helper():\n    return 1\n")
    (project / "main.py").write_text("from lib import helper\n\nprint(helper())\n")
    monkeypatch.setenv("PATH", _path_with(tmp_path, "pylsp"))
    steps = [
        reply(
            tool_use("LSP", {"operation": "documentSymbol", "filePath": str(project / "lib.py")}),
            stop_reason="tool_use",
        ),
        reply(
            tool_use(
                "LSP", {"operation": "goToDefinition", "filePath": str(project / "main.py"), "line": 3, "character": 7}
            ),
            stop_reason="tool_use",
        ),
        reply(text("found")),
    ]
    with FakeAPI(steps) as api:
        session, _ = _session(monkeypatch, api, project)
        try:
            session.run_turn("where is helper")
            symbols = _results(api.message_requests[1].body)
            definition = _results(api.message_requests[2].body)
            status = session.lsp.status_lines()  # what the server said, should the answer be wrong
            # pylsp answers [] ("No result") when a plugin raises, and logs the traceback to its stderr
            said = [line for server in session.lsp.servers.values() for line in server.stderr]
        finally:
            session.close()
    assert "function helper" in symbols[0], (symbols, status, said)
    assert definition == ["lib.py:1:5"], (definition, status, said)


def test_parallel_lsp_calls_each_ask_after_the_server_knows_their_document(tmp_path: Path) -> None:
    """Two LSP tool calls at once on a slow server: each request follows `initialized` and its own didOpen.

    The `strict` fake answers null for a document it was not told of, as pylsp would say "No result".
    """
    import threading

    from lsprotocol import types

    from tui.lsp.manager import LspManager

    project = tmp_path / "proj"
    project.mkdir()
    (project / "lib.py").write_text("def helper():\n    return 1\n")
    (project / "main.py").write_text("from lib import helper\n\nprint(helper())\n")
    manager = LspManager([_fake(tmp_path, "strict")], str(project))
    answers: dict[str, Any] = {}

    def definition() -> None:
        answers["definition"] = manager.ask(
            "textDocument/definition",
            str(project / "main.py"),
            lambda uri: types.DefinitionParams(types.TextDocumentIdentifier(uri), types.Position(2, 6)),
        )

    def symbols() -> None:
        answers["symbols"] = manager.ask(
            "textDocument/documentSymbol",
            str(project / "lib.py"),
            lambda uri: types.DocumentSymbolParams(types.TextDocumentIdentifier(uri)),
        )

    try:
        threads = [threading.Thread(target=f) for f in (symbols, definition)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    finally:
        manager.close()
    assert answers["definition"] and answers["definition"][0].uri.endswith("main.py"), answers
    assert answers["symbols"] and answers["symbols"][0].name == "helper", answers


def test_print_mode_write_gets_the_diagnostic_when_a_server_is_on_path(tmp_path: Path) -> None:
    from tests.integration.test_providers import run_p

    project = tmp_path / "proj"
    project.mkdir()
    env = {"PATH": _path_with(tmp_path, "pylsp"), "ANTHROPIC_API_KEY": "k"}
    with FakeAPI(_write_then_fix(project)[:1] + [reply(text("ok"))]) as api:
        env["ANTHROPIC_BASE_URL"] = api.base_url
        proc = run_p(["--permission-mode", "acceptEdits", "write calc.py"], project, env)
        written = _results(api.message_requests[1].body)[0]
    assert proc.returncode == 0, proc.stderr
    assert "undefined name 'undefined_name'" in written, written


def test_a_server_killed_mid_session_is_one_sentence_and_edits_go_on(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tui.lsp.manager import LspManager

    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.setenv("PATH", _path_with(tmp_path, "pylsp"))
    told: list[str] = []
    manager = LspManager([SERVERS["pylsp"]], str(project), notify=told.append)
    path = project / "calc.py"
    try:
        path.write_text(BROKEN)
        assert manager.after_edit(str(path), "", "calc.py").errors == 1
        server = next(iter(manager.servers.values()))
        server.kill()  # the server dies between two edits
        deadline = time.monotonic() + 60  # a bound for a loaded machine
        while server.state != "exited" and time.monotonic() < deadline:
            time.sleep(0.05)
        path.write_text(FIXED)
        assert manager.after_edit(str(path), BROKEN, "calc.py") is None  # no diagnostics, no error
    finally:
        manager.close()
    assert server.problem is not None and server.problem.startswith("pylsp exited")
    assert any("edits go on without its diagnostics" in t for t in told)
    assert any(line.startswith("pylsp: pylsp exited") for line in manager.status_lines())


def test_a_file_no_server_serves_starts_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.setenv("PATH", _path_with(tmp_path, "pylsp"))
    notes = str(project / "notes.txt")
    steps = [
        reply(tool_use("Write", {"file_path": notes, "content": "undefined_name\n"}), stop_reason="tool_use"),
        reply(text("ok")),
    ]
    with FakeAPI(steps) as api:
        session, _ = _session(monkeypatch, api, project)
        try:
            session.run_turn("write notes")
            written = _results(api.message_requests[1].body)[0]
            assert session.lsp is not None and session.lsp.servers == {}
        finally:
            session.close()
    assert "<diagnostics" not in written
