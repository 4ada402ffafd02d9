"""The four front ends send a prompt through the one prompt pipeline (tui/agent/prompt/pipeline.py).

The same custom command (its arguments, an `@` text file and an `@` picture) with a UserPromptSubmit hook that
adds context, typed in the app (Pilot), given to `-p`, written as a stream-json input line and sent as an ACP
`session/prompt`: the first request carries the same first message each time.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI, reply, text
from tests.unit.tools.test_images import picture
from tui.config.settings import trust_folder

PROMPT = "/review the parser"
SCRIPT = [reply(text("Reviewed."), stop_reason="end_turn")]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = tmp_path / "proj"
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / "notes.txt").write_text("the parser must handle empty input\n")
    picture(project / "shot.png", (40, 30))
    (project / ".claude" / "commands" / "review.md").write_text(
        "---\ndescription: Review a part\n---\nReview $ARGUMENTS with @notes.txt in mind; it looks like @shot.png\n"
    )
    hook = {"hooks": [{"type": "command", "command": "echo 'branch: main'"}]}
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"UserPromptSubmit": [hook]}}))
    trust_folder(project)  # the folder's own command files and hooks apply
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))  # not the user's own ~/.claude
    return project


def _env(api: FakeAPI) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="sk-test")
    return env


def _first_message(api: FakeAPI) -> dict[str, Any]:
    assert api.message_requests, "no request was sent"
    first: dict[str, Any] = api.message_requests[0].body["messages"][0]
    return first


def _by_print(project: Path) -> dict[str, Any]:
    with FakeAPI(list(SCRIPT)) as api:
        proc = subprocess.run(
            [sys.executable, "-m", "tui.cli.main", "-p", PROMPT],
            cwd=project,
            env=_env(api),
            capture_output=True,
            text=True,
            timeout=90,
        )
        assert proc.returncode == 0, proc.stderr
        return _first_message(api)


def _by_stream_json(project: Path) -> dict[str, Any]:
    line = {"type": "user", "message": {"role": "user", "content": PROMPT}, "parent_tool_use_id": None}
    with FakeAPI(list(SCRIPT)) as api:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "tui.cli.main",
                "-p",
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
            ],
            cwd=project,
            env=_env(api),
            input=json.dumps(line) + "\n",
            capture_output=True,
            text=True,
            timeout=90,
        )
        assert proc.returncode == 0, proc.stderr
        return _first_message(api)


def _by_acp(project: Path) -> dict[str, Any]:
    from acp import text_block

    from tests.integration.acp_helpers import Client, agent

    home = Path(os.environ["XDG_CONFIG_HOME"]).parent  # where trust_folder wrote the user settings

    async def drive(base_url: str) -> None:
        async with agent(Client(), project, home, base_url) as (conn, _proc):
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            answer = await conn.prompt(session_id=session.session_id, prompt=[text_block(PROMPT)])
            assert answer.stop_reason == "end_turn"

    with FakeAPI(list(SCRIPT)) as api:
        asyncio.run(drive(api.base_url))
        return _first_message(api)


def _by_app(project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Any]:
    from tui.agent.options import AgentOptions
    from tui.ui.app import AgentApp

    async def drive() -> None:
        options = AgentOptions(project_dir=project, interactive=True, transcript=False, sessions_dir=tmp_path / "s")
        app = AgentApp(options, permission_grace_s=0)
        async with app.run_test(size=(120, 40)) as pilot:
            await app.submit_prompt(PROMPT)  # as typed and sent with Enter
            deadline = time.monotonic() + 60
            while not (api.message_requests and app.session.turn_count and not app.controller.busy):
                assert time.monotonic() < deadline, "the app's turn did not end"
                await pilot.pause(0.05)

    with FakeAPI(list(SCRIPT)) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        asyncio.run(drive())
        return _first_message(api)


def _texts(message: dict[str, Any]) -> str:
    return "\n".join(b.get("text", "") for b in message["content"] if b.get("type") == "text")


def test_the_app_print_stream_json_and_acp_send_the_same_first_message(
    project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pytest.importorskip("acp", reason="the ACP SDK (agent-client-protocol, in the test extra) is not installed")
    firsts = {
        "print": _by_print(project),
        "stream-json": _by_stream_json(project),
        "acp": _by_acp(project),
        "app": _by_app(project, monkeypatch, tmp_path),
    }
    sent = firsts["print"]
    assert sent["role"] == "user"
    words = _texts(sent)
    assert "Review the parser with @notes.txt in mind" in words  # the command, expanded with its arguments
    assert "the parser must handle empty input" in words  # its `@` text file, attached
    assert "branch: main" in words  # the UserPromptSubmit hook's context
    assert [b["type"] for b in sent["content"]].count("image") == 1  # its `@` picture, attached
    for name, message in firsts.items():
        assert message == sent, f"{name} sent another first message than -p"
