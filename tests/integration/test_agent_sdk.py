"""agent-tui as the CLI of the Claude Agent SDK for Python (`cli_path`), against the fake Messages API.

Every test runs twice: on a pinned, known-good version (PINNED) and on the newest on PyPI, so a release
upstream cannot turn CI red by itself (a failure names the version; when the newest is the pinned one, its
results are reused, not run again). The `claude-agent-sdk` is installed with pip into a temp folder placed first on the PYTHONPATH
of one child Python (as test_sdk2.py does for anthropic 2.x), built from its source distribution: the
platform wheels carry a 400 MB Claude Code binary this test never runs. That child runs every case of
agent_sdk_cases.py once (module fixture), each starting agent-tui through a wrapper script; the tests
below read what the SDK saw, what the fake API received and what is on disk. Skipped, with the reason,
only when pip cannot install the SDK; left out of the SDK 2.x run (test_sdk2.APP_TESTS). Set
AGENT_TUI_AGENT_SDK_SITE to a folder holding it already to skip the install.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import Step, reply, text, tool_use
from tests.integration import test_sdk2

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).with_name("agent_sdk_cases.py")
MODEL = "claude-sonnet-5-5"
#: the command the interrupt case stops (an odd length, so no other program's sleep is taken for it)
SLEEP = "sleep 59.875"
#: a version the cases passed on (bump it after the newest run passes on a newer one)
PINNED = "0.2.189"
#: the results by version: the newest run reuses the pinned run's when they are the same version
_RUNS: dict[str, dict[str, Any]] = {}
#: the longest one pip call may take before the test is skipped
PIP_SECONDS = 120
#: a folder where claude-agent-sdk is installed already (pip install --target): used instead of installing
SITE_VARIABLE = "AGENT_TUI_AGENT_SDK_SITE"

pytestmark = [
    pytest.mark.skipif(bool(os.environ.get(test_sdk2.INNER)), reason="not part of the SDK 2.x run"),
    pytest.mark.timeout(3 * PIP_SECONDS + 240),
]


def scripts(projects: Path) -> dict[str, Callable[[dict[str, Any], int], Step]]:
    """What the fake model answers in each case: by the number of its own replies so far in the conversation."""

    def steps(*items: Step) -> Callable[[dict[str, Any], int], Step]:
        return lambda body, n: items[min(n, len(items) - 1)]

    def interrupt(body: dict[str, Any], n: int) -> Step:
        if "and now?" in json.dumps(body["messages"][-1]):
            return reply(text("Back after the interrupt."))
        return reply(tool_use("Bash", {"command": SLEEP}), stop_reason="tool_use")

    writes = projects / "can_use_tool"
    return {
        "query": steps(
            reply(text("Looking."), tool_use("Glob", {"pattern": "*"}), stop_reason="tool_use"),
            reply(text("Query done.")),
        ),
        "max_turns": steps(
            reply(tool_use("Glob", {"pattern": "*"}), stop_reason="tool_use"), reply(text("One turn too many."))
        ),
        "multi_turn": steps(reply(text("First answer.")), reply(text("Second answer."))),
        "resume": steps(reply(text("Noted.")), reply(text("It was 7."))),
        "partial": steps(reply(text("Streamed in pieces, as the API sends it."))),
        "interrupt": interrupt,
        "can_use_tool": steps(
            reply(
                tool_use("Write", {"file_path": str(writes / "allowed.txt"), "content": "model\n"}),
                tool_use("Write", {"file_path": str(writes / "denied.txt"), "content": "no\n"}),
                stop_reason="tool_use",
            ),
            reply(text("Wrote what I could.")),
        ),
        "hook": steps(
            reply(tool_use("Bash", {"command": "touch hooked.txt"}), stop_reason="tool_use"),
            reply(text("The hook stopped it.")),
        ),
        "sdk_mcp": steps(
            reply(tool_use("mcp__calc__add", {"a": 2, "b": 3}), stop_reason="tool_use"), reply(text("It is 5."))
        ),
        "refused": steps(reply(text("This request should never be made."))),
    }


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def first_text(body: dict[str, Any]) -> str:
    content = body["messages"][0]["content"]
    return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)


def pip(*args: str) -> subprocess.CompletedProcess[str]:
    """pip in this Python; a pip that takes over PIP_SECONDS counts as one that failed (the registry is too slow)."""
    command = [sys.executable, "-m", "pip", *args, "--quiet", "--disable-pip-version-check"]
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=PIP_SECONDS)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(command, 1, "", f"pip took over {PIP_SECONDS} s")


def newest_sdk(work: Path) -> tuple[str, str]:
    """The newest claude-agent-sdk on the registry (metadata only) and "", or "" and why it is not known."""
    report = work / "pip-report.json"
    found = pip("install", "--dry-run", "--no-deps", "--ignore-installed", "--report", str(report), "claude-agent-sdk")
    if found.returncode != 0:
        return "", f"claude-agent-sdk could not be found: {found.stderr.strip().splitlines()[-1:]}"
    return json.loads(report.read_text())["install"][0]["metadata"]["version"], ""


def install_sdk(site: Path, version: str) -> str:
    """pip-install claude-agent-sdk `version` into `site`; "" when done, else why not.

    From its source distribution when it has one (no bundled Claude Code binary), else from its wheel.
    """
    for how in (["--no-binary", "claude-agent-sdk"], []):
        done = pip("install", "--target", str(site), *how, f"claude-agent-sdk=={version}")
        if done.returncode == 0:
            return ""
    return f"claude-agent-sdk {version} could not be installed: {done.stderr.strip().splitlines()[-1:]}"


@pytest.fixture(scope="module", params=["pinned", "newest"])
def sdk(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Install the SDK (pinned or newest), run every case once against one fake API; what each case saw and sent."""
    work = tmp_path_factory.mktemp("agent-sdk")
    site = work / "site"
    if os.environ.get(SITE_VARIABLE):  # an SDK installed already (a second run while working on this)
        site = Path(os.environ[SITE_VARIABLE])
        return run_cases(site, work)
    wanted, why = (PINNED, "") if request.param == "pinned" else newest_sdk(work)
    if why:
        pytest.skip(why)
    if wanted not in _RUNS:
        if reason := install_sdk(site, wanted):
            pytest.skip(reason)
        _RUNS[wanted] = run_cases(site, work)
    return _RUNS[wanted]


def run_cases(site: Path, work: Path) -> dict[str, Any]:
    """Every case of agent_sdk_cases.py on the SDK in `site`, one child Python; what each case saw and sent."""
    projects, home = work / "projects", work / "home"
    home.mkdir()
    version = subprocess.run(
        [sys.executable, "-c", "import claude_agent_sdk as s; print(s.__version__)"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(site)},
        timeout=60,
    ).stdout.strip()
    wrapper = work / "agent-tui"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m tui.cli.main "$@"\n')
    wrapper.chmod(0o755)
    by_case = scripts(projects)
    bodies: dict[str, list[dict[str, Any]]] = {}

    def answer(body: dict[str, Any]) -> Step:
        found = re.search(r"case:(\w+)", first_text(body))
        case = found.group(1) if found else "?"
        bodies.setdefault(case, []).append(body)
        if case not in by_case:
            return reply(text(f"no script for {case!r}"))
        return by_case[case](body, sum(1 for m in body["messages"] if m["role"] == "assistant"))

    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
    with FakeAPI(answer) as api:
        env.update(
            PYTHONPATH=str(site),
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_DATA_HOME=str(home / ".local" / "share"),
            ANTHROPIC_BASE_URL=api.base_url,
            ANTHROPIC_API_KEY="sk-test",
            ANTHROPIC_MODEL=MODEL,
        )
        config = {"cli": str(wrapper), "projects": str(projects), "case_timeout": 60}
        started = time.monotonic()
        run = subprocess.run(
            [sys.executable, str(CASES), json.dumps(config)],
            capture_output=True,
            text=True,
            env=env,
            cwd=work,
            timeout=240,
        )
        seconds = time.monotonic() - started
        errors = list(api.errors)
    assert run.returncode == 0 and run.stdout.strip(), f"the cases did not run:\n{run.stderr[-3000:]}"
    results = json.loads(run.stdout.strip().splitlines()[-1])
    return {
        "results": results,
        "bodies": bodies,
        "projects": projects,
        "version": version,
        "seconds": seconds,
        "api_errors": errors,
        "stderr": run.stderr,
    }


def case(sdk: dict[str, Any], name: str) -> dict[str, Any]:
    result = sdk["results"][name]
    assert "error" not in result, (
        f"{name} failed on claude-agent-sdk {sdk['version']}: {result['error']}\n"
        f"{result.get('traceback', '')}\nagent-tui said: {result.get('stderr')}"
    )
    return result


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    content = body["messages"][-1]["content"]
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


def test_query_with_options(sdk):
    result = case(sdk, "query")
    kinds = [m["kind"] for m in result["messages"]]
    assert kinds[0] == "system" and kinds[-1] == "result"
    init = result["messages"][0]["data"]
    assert init["subtype"] == "init" and init["cwd"] == str(sdk["projects"] / "query")
    assert init["model"] == MODEL and init["permission_mode"] == init["permissionMode"] == "acceptEdits"
    final = result["messages"][-1]
    assert (final["subtype"], final["is_error"], final["result"], final["num_turns"]) == (
        "success",
        False,
        "Query done.",
        2,
    )
    first, second = sdk["bodies"]["query"]
    assert first["model"] == MODEL
    assert first["system"][0]["text"] == "You are the SDK test."  # replaces agent-tui's instructions
    assert not tool_results(second)[0].get("is_error")  # Glob was allowed by allowed_tools
    assert sdk["api_errors"] == []


def test_partial_messages_arrive_as_stream_events(sdk):
    result = case(sdk, "partial")
    events = [m["event"] for m in result["messages"] if m["kind"] == "stream_event"]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop" and kinds.count("content_block_delta") > 1
    pieces = "".join(e["delta"].get("text", "") for e in events if e["type"] == "content_block_delta")
    assert pieces == result["messages"][-1]["result"] == "Streamed in pieces, as the API sends it."


def test_max_turns_ends_the_run_with_an_error_result(sdk):
    result = case(sdk, "max_turns")
    final = result["messages"][-1]
    assert final["kind"] == "result" and final["subtype"] == "error_max_turns" and final["is_error"]
    assert len(sdk["bodies"]["max_turns"]) == 1
    assert result["raised"] and "max" in result["raised"].lower()  # the SDK's ResultError, as for Claude Code


def test_a_client_holds_several_turns_in_one_process(sdk):
    result = case(sdk, "multi_turn")
    first, second = result["turns"]
    assert first[-1]["result"] == "First answer." and second[-1]["result"] == "Second answer."
    assert first[-1]["session_id"] == second[-1]["session_id"] and isinstance(result["pid"], int)
    later = sdk["bodies"]["multi_turn"][1]["messages"]
    assert [m["role"] for m in later] == ["user", "assistant", "user"]  # one conversation


def test_resume_goes_on_with_a_saved_conversation(sdk):
    result = case(sdk, "resume")
    assert result["second"][-1]["result"] == "It was 7."
    later = sdk["bodies"]["resume"][1]["messages"]
    assert [m["role"] for m in later] == ["user", "assistant", "user"] and "remember 7" in json.dumps(later[0])


def test_interrupt_ends_the_running_turn_and_the_next_one_runs(sdk):
    result = case(sdk, "interrupt")
    first = result["first"][-1]
    assert first["kind"] == "result" and first["is_error"] and first["stop_reason"] == "interrupted"
    assert result["seconds_after_interrupt"] < 50  # not the 60 s of the sleep (a bound for a loaded machine)
    assert result["second"][-1]["result"] == "Back after the interrupt."
    still = [p.name for p in Path("/proc").iterdir() if p.name.isdigit() and _cmdline(p).startswith(SLEEP)]
    assert still == []  # the interrupted command ended with its turn


def test_can_use_tool_allows_with_an_updated_input_and_denies_with_a_message(sdk):
    result = case(sdk, "can_use_tool")
    folder = sdk["projects"] / "can_use_tool"
    assert (folder / "allowed.txt").read_text() == "written as the SDK said\n"  # the input the callback gave
    assert not (folder / "denied.txt").exists()
    assert [a["tool"] for a in result["asked"]] == ["Write", "Write"]
    assert result["asked"][0]["suggestions"][0]["type"] == "addRules"
    allowed, denied = tool_results(sdk["bodies"]["can_use_tool"][1])
    assert not allowed.get("is_error")
    assert denied["is_error"] and "The SDK host says: not this file." in json.dumps(denied["content"])
    assert result["messages"][-1]["result"] == "Wrote what I could."


def test_a_python_pre_tool_use_hook_blocks_the_call(sdk):
    result = case(sdk, "hook")
    assert not (sdk["projects"] / "hook" / "hooked.txt").exists()
    (call,) = result["calls"]
    assert call["input"]["hook_event_name"] == "PreToolUse" and call["input"]["tool_name"] == "Bash"
    assert call["input"]["tool_input"] == {"command": "touch hooked.txt"} and call["tool_use_id"]
    (blocked,) = tool_results(sdk["bodies"]["hook"][1])
    assert blocked["is_error"] and "Bash is off in this test." in json.dumps(blocked["content"])


def test_an_sdk_mcp_tool_is_called_and_its_result_reaches_the_model(sdk):
    result = case(sdk, "sdk_mcp")
    assert result["calls"] == [{"a": 2, "b": 3}]
    first, second = sdk["bodies"]["sdk_mcp"]
    assert "mcp__calc__add" in [t["name"] for t in first["tools"]]
    (answer,) = tool_results(second)
    assert "The sum is 5." in json.dumps(answer["content"]) and not answer.get("is_error")
    assert result["messages"][-1]["result"] == "It is 5."


def test_a_prompt_agent_tui_cannot_send_ends_in_an_error_not_a_hang(sdk):
    result = case(sdk, "bad_prompt")
    assert result["messages"][0]["kind"] == "system" and result["messages"][0]["subtype"] == "init"
    final = result["messages"][-1]
    assert final["kind"] == "result" and final["is_error"] and "image" in final["result"]
    assert "The message was not sent" in (result["raised"] or "")
    assert "?" not in sdk["bodies"]  # no request without a case: the image never reached the model


def test_an_option_agent_tui_cannot_honour_is_one_sentence_the_sdk_raises(sdk):
    result = case(sdk, "refused")
    assert "--setting-sources=project cannot be honoured" in (result["raised"] or "")
    assert "refused" not in sdk["bodies"]  # never reached the model
