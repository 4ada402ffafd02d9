"""Provider profiles end to end: two loopback Messages APIs, `NAME:MODEL` routed by `agent-tui -p`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import http_error, reply, text, tool_use
from tests.integration.test_providers import run_p, write_user_settings
from tests.ports import refusing_port

LOCAL = """
[providers.local]
base_url = "{url}"
models = ["qwen3-coder"]
price = {{ input = 0.0, output = 0.0 }}
"""


def _agent_file(home: Path) -> None:
    folder = home / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "scout.md").write_text(
        "---\nname: scout\ndescription: looks around cheaply\nmodel: local:qwen3-coder\n---\nYou look around.\n"
    )


def _home(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return {"HOME": str(home)}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "README.md").write_text("a project\n")
    return folder


def _closed_port_url() -> str:
    return f"http://127.0.0.1:{refusing_port()}"


def test_an_agent_file_model_goes_to_its_profile_and_the_main_loop_stays(project: Path, tmp_path: Path) -> None:
    env = _home(tmp_path)
    _agent_file(Path(env["HOME"]))

    def main(body: dict[str, Any]) -> Any:
        if len(body["messages"]) == 1:
            scout = {"description": "look", "prompt": "find the readme", "subagent_type": "scout"}
            return reply(text("Sending the scout."), tool_use("Agent", scout), stop_reason="tool_use")
        return reply(text("The scout found it."))

    with FakeAPI(main) as first, FakeAPI(lambda body: reply(text("README.md is there."))) as second:
        write_user_settings(LOCAL.format(url=second.base_url))
        env.update(ANTHROPIC_BASE_URL=first.base_url, ANTHROPIC_API_KEY="main-key")
        proc = run_p(["--output-format", "json", "send the scout"], project, env)
        assert proc.returncode == 0, proc.stderr
        main_models = {r.body["model"] for r in first.message_requests}
        local = second.message_requests
    assert main_models == {"claude-sonnet-5-5"} and len(local) == 1
    assert local[0].body["model"] == "qwen3-coder"
    assert local[0].api_key != "main-key"  # the main key stays with the main provider
    result = json.loads(proc.stdout)
    by_model = result["cost_breakdown"]["by_model"]
    assert set(by_model) == {"claude-sonnet-5-5", "local:qwen3-coder"}
    assert by_model["local:qwen3-coder"]["cost_usd"] == 0 and by_model["local:qwen3-coder"]["priced"] is True
    assert by_model["local:qwen3-coder"]["provider"] == "local"
    assert by_model["local:qwen3-coder"]["price_per_mtok"] == {
        "input": 0,
        "output": 0,
        "cache_write": 0,
        "cache_read": 0,
    }
    assert by_model["claude-sonnet-5-5"]["provider"] is None
    assert sum(m["cost_usd"] for m in by_model.values()) == pytest.approx(result["total_cost_usd"], abs=1e-6)


def test_model_flag_with_a_profile_sends_everything_there(project: Path, tmp_path: Path) -> None:
    env = _home(tmp_path)
    with FakeAPI([reply(text("hello from qwen"))]) as second:
        write_user_settings(LOCAL.format(url=second.base_url))
        proc = run_p(["--model", "local:qwen3-coder", "--output-format", "json", "hi"], project, env)
        requests = second.message_requests
    assert proc.returncode == 0, proc.stderr
    assert [r.body["model"] for r in requests] == ["qwen3-coder"]  # no key anywhere, yet not the offline demo
    result = json.loads(proc.stdout)
    assert result["result"] == "hello from qwen"
    assert list(result["cost_breakdown"]["by_model"]) == ["local:qwen3-coder"]


def test_an_unreachable_profile_is_one_sentence_naming_profile_url_and_model(project: Path, tmp_path: Path) -> None:
    env = _home(tmp_path)
    url = _closed_port_url()
    write_user_settings("max_retries = 1\n" + LOCAL.format(url=url))
    proc = run_p(["--model", "local:qwen3-coder", "hi"], project, env)
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if "local" in line]
    assert lines, proc.stderr
    assert f"provider `local` ({url}), model qwen3-coder" in lines[-1] and "2 attempts" in lines[-1]


def test_an_unknown_profile_name_is_one_sentence_at_start(project: Path, tmp_path: Path) -> None:
    proc = run_p(["--model", "nowhere:qwen3-coder", "hi"], project, _home(tmp_path))
    assert proc.returncode == 2
    assert "no `[providers.nowhere]` table defines it" in proc.stderr and "Traceback" not in proc.stderr


def test_a_profile_declared_without_tools_gets_no_tools(project: Path, tmp_path: Path) -> None:
    env = _home(tmp_path)
    with FakeAPI([reply(text("no tools here"))]) as second:
        write_user_settings(LOCAL.format(url=second.base_url) + 'supports = ["caching"]\n')
        proc = run_p(["--model", "local:qwen3-coder", "hi"], project, env)
        body = second.message_requests[0].body
    assert proc.returncode == 0, proc.stderr
    assert "tools" not in body and "no tools here" in proc.stdout


def test_a_profile_that_refuses_tools_is_learned_from_its_400(project: Path, tmp_path: Path) -> None:
    env = _home(tmp_path)

    def endpoint(body: dict[str, Any]) -> Any:
        if "tools" in body:
            return http_error(400, "invalid_request_error", "tools: this model does not support tool use")
        return reply(text("answered without tools"))

    with FakeAPI(endpoint) as second:
        write_user_settings(LOCAL.format(url=second.base_url))
        proc = run_p(["--model", "local:qwen3-coder", "hi"], project, env)
        sent = ["tools" in r.body for r in second.requests if r.path.endswith("/messages")]
    assert proc.returncode == 0, proc.stderr
    assert sent == [True, False] and "answered without tools" in proc.stdout


def test_a_profile_without_caching_gets_no_cache_marks(project: Path, tmp_path: Path) -> None:
    env = _home(tmp_path)
    with FakeAPI([reply(text("ok"))]) as second:
        write_user_settings(LOCAL.format(url=second.base_url) + 'supports = ["tools", "thinking", "images"]\n')
        proc = run_p(["--model", "local:qwen3-coder", "hi"], project, env)
        body = second.message_requests[0].body
    assert proc.returncode == 0, proc.stderr
    assert "cache_control" not in json.dumps(body) and body["tools"]


def test_a_profile_without_a_price_says_so(project: Path, tmp_path: Path) -> None:
    env = _home(tmp_path)
    with FakeAPI([reply(text("ok"))]) as second:
        write_user_settings(f'[providers.gw]\nbase_url = "{second.base_url}"\n')
        proc = run_p(["--model", "gw:some-model", "--output-format", "json", "hi"], project, env)
    assert proc.returncode == 0, proc.stderr
    breakdown = json.loads(proc.stdout)["cost_breakdown"]
    assert breakdown["unpriced_models"] == ["gw:some-model"]
    assert breakdown["by_model"]["gw:some-model"]["priced"] is False
    assert breakdown["by_model"]["gw:some-model"]["price_per_mtok"] is None


def test_the_fallback_model_may_be_another_profiles(project: Path, tmp_path: Path) -> None:
    env = _home(tmp_path)
    with (
        FakeAPI(lambda body: http_error(529)) as first,
        FakeAPI([reply(text("the local model took over"))]) as second,
    ):
        write_user_settings("max_retries = 1\n" + LOCAL.format(url=second.base_url))
        env.update(ANTHROPIC_BASE_URL=first.base_url, ANTHROPIC_API_KEY="main-key")
        proc = run_p(["--fallback-model", "local:qwen3-coder", "hi"], project, env)
        local = [r.body["model"] for r in second.message_requests]
    assert proc.returncode == 0, proc.stderr
    assert local == ["qwen3-coder"] and "the local model took over" in proc.stdout
    assert "switched to the fallback model local:qwen3-coder" in proc.stderr
