"""Telemetry in the app: what the user decides in the permission dialog is exported; a refusing collector is one toast."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.otlp import OtlpReceiver
from tests.ports import refusing_port
from tui.cli.main import start_telemetry
from tui.ui.app import AgentApp
from tui.ui.screens.permission_dialog import PermissionDialog

from .conftest import SIZE, notices, type_prompt, wait_for_dialog, wait_until

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def telemetry_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    for name in (
        "OTEL_METRICS_EXPORTER",
        "OTEL_LOGS_EXPORTER",
        "OTEL_TRACES_EXPORTER",
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        "OTEL_LOG_USER_PROMPTS",
        "OTEL_LOG_TOOL_DETAILS",
        "OTEL_RESOURCE_ATTRIBUTES",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("CLAUDE_CODE_ENABLE_TELEMETRY", "1")
    monkeypatch.setenv("CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS", "30000")
    return monkeypatch


async def test_the_app_exports_the_turn_and_the_users_answer_to_the_dialog(offline_options, telemetry_env) -> None:
    with OtlpReceiver() as otlp:
        for name in ("OTEL_METRICS_EXPORTER", "OTEL_LOGS_EXPORTER", "OTEL_TRACES_EXPORTER"):
            telemetry_env.setenv(name, "otlp")
        telemetry_env.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", otlp.endpoint)
        options = offline_options()
        telemetry = start_telemetry(options, print_mode=False)
        app = AgentApp(options, permission_grace_s=0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*"find the TODOs and fix one", "enter")
            await wait_for_dialog(pilot, PermissionDialog)
            await pilot.press("enter")  # yes, once
            await wait_until(pilot, lambda: not app.controller.busy)
            session_id = app.session.session_id
        assert telemetry is not None
        telemetry.close()
    assert otlp.total("claude_code.session.count") == 1
    prompt = otlp.records("claude_code.user_prompt")[0].attributes
    assert prompt["prompt"] == "<REDACTED>" and prompt["session.id"] == session_id
    edit = next(r.attributes for r in otlp.records("claude_code.tool_decision") if r.attributes["tool_name"] == "Edit")
    assert (edit["decision"], edit["source"]) == ("accept", "user_temporary")
    assert (
        otlp.total("claude_code.code_edit_tool.decision", decision="accept", source="user_temporary", language="Python")
        == 1
    )
    assert otlp.total("claude_code.active_time.total", type="user") > 0
    (blocked,) = otlp.spans("claude_code.tool.blocked_on_user")
    edit_span = next(s for s in otlp.spans("claude_code.tool") if s.attributes["tool_name"] == "Edit")
    assert blocked.parent_span_id == edit_span.span_id and blocked.attributes["decision"] == "accept"
    assert otlp.points("claude_code.session.count")[0].attributes.get("app.entrypoint") is None


async def test_a_refusing_collector_is_one_toast_and_the_app_keeps_working(offline_options, telemetry_env) -> None:
    port = refusing_port()
    telemetry_env.setenv("OTEL_LOGS_EXPORTER", "otlp")
    telemetry_env.setenv("OTEL_LOGS_EXPORT_INTERVAL", "10")  # export the first event at once
    telemetry_env.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{port}")
    options = offline_options()
    telemetry = start_telemetry(options, print_mode=False)
    app = AgentApp(options)
    said = "Telemetry could not be sent: the OTLP endpoint"
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await type_prompt(pilot, "hello")
        await wait_until(pilot, lambda: any(said in n for n in notices(app)))
        await wait_until(pilot, lambda: not app.controller.busy)
        await type_prompt(pilot, "hello again")
        await wait_until(pilot, lambda: app.session.turn_count == 2 and not app.controller.busy)
        toasts = [n for n in notices(app) if said in n]
    assert toasts == [
        f"{said} http://127.0.0.1:{port}/v1/logs refused the connection; the session goes on, and what "
        "it records may not reach the collector."
    ]
    assert telemetry is not None
    telemetry.close()


def test_app_start_with_telemetry_off_imports_no_opentelemetry(demo_project: Path, tmp_path: Path) -> None:
    code = (
        "import asyncio, sys\n"
        "from tui.agent.options import AgentOptions\n"
        "from tui.cli.main import start_telemetry\n"
        "from tui.ui.app import AgentApp\n"
        "options = AgentOptions(offline=True, offline_delay=0, interactive=True, project_dir=sys.argv[1],\n"
        "                       transcript=False, sessions_dir=sys.argv[2])\n"
        "assert start_telemetry(options, print_mode=False) is None\n"
        "async def main():\n"
        "    app = AgentApp(options)\n"
        "    async with app.run_test() as pilot:\n"
        "        app.query_one('#prompt').insert('hello')\n"
        "        await pilot.press('enter')\n"
        "        while app.session.turn_count < 1 or app.controller.busy:\n"
        "            await pilot.pause(0.05)\n"
        "asyncio.run(main())\n"
        "loaded = [m for m in sys.modules if m.startswith(('opentelemetry', 'tui.telemetry'))]\n"
        "assert not loaded, loaded\n"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "CLAUDE_CODE_ENABLE_TELEMETRY": "0",
        "OTEL_METRICS_EXPORTER": "otlp",
    }
    proc = subprocess.run(
        [sys.executable, "-c", code, str(demo_project), str(tmp_path / "sessions")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
