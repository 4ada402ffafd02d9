"""Hook `if` conditions and background hooks through `-p`: only the matching call is blocked, nothing waits
for an async hook, an asyncRewake exit 2 wakes the model, and what is left running stops when -p ends."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply
from tests.integration.test_hooks import bash, results_of, write_project
from tui.cli.main import main


def _group(event: str, command: str, matcher: str | None = None, **fields: Any) -> dict[str, Any]:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **fields}]}
    if matcher:
        group["matcher"] = matcher
    return {event: [group]}


def _run(monkeypatch, project: Path, script: list[Any], *extra: str) -> tuple[int, list[dict[str, Any]]]:
    with FakeAPI(script) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        code = main(["-p", "go", "--cwd", str(project), "--allowedTools", "Bash", *extra])
        return code, [r.body for r in api.requests]


def test_a_pre_tool_use_hook_with_if_blocks_only_the_calls_its_rule_matches(monkeypatch, tmp_path, capsys):
    write_project(tmp_path, _group("PreToolUse", "echo no pushes >&2; exit 2", "Bash", **{"if": "Bash(git push *)"}))
    calls = reply(
        bash("echo hi", "toolu_a"), bash("ls && git push origin main", "toolu_b"), bash("FOO=1 git push", "toolu_c")
    )
    calls.stop_reason = "tool_use"
    code, requests = _run(monkeypatch, tmp_path, [calls, reply("Done.")])
    assert code == 0
    results = {r["tool_use_id"]: r for r in results_of(requests[1]) if r.get("type") == "tool_result"}
    assert not results["toolu_a"].get("is_error") and "hi" in json.dumps(results["toolu_a"]["content"])
    for blocked in ("toolu_b", "toolu_c"):
        assert results[blocked]["is_error"] and "no pushes" in json.dumps(results[blocked]["content"])


def test_an_async_hook_never_holds_the_turn_and_is_stopped_when_p_ends(monkeypatch, tmp_path, capsys):
    pidfile = tmp_path / "child"
    write_project(tmp_path, _group("Stop", f"sleep 60 & echo $! > {pidfile}; wait", **{"async": True}))
    started = time.monotonic()
    code, _ = _run(monkeypatch, tmp_path, [reply("Done.")])
    assert code == 0 and time.monotonic() - started < 50  # not the hook's 60 s (a bound for a loaded machine)
    if pidfile.exists() and pidfile.read_text().strip():  # it got as far as its child: that child is gone too
        pid = int(pidfile.read_text())
        try:
            os.kill(pid, 0)
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            assert stat == "Z", "the async hook's child outlived -p"
        except ProcessLookupError:
            pass


def test_a_first_line_of_async_true_is_not_invalid_json_and_does_not_hold_the_turn(monkeypatch, tmp_path, capsys):
    command = "echo '{\"async\": true}'; sleep 60"
    write_project(tmp_path, _group("Stop", command))
    started = time.monotonic()
    code, _ = _run(monkeypatch, tmp_path, [reply("Done.")])
    assert code == 0 and time.monotonic() - started < 50
    assert "invalid JSON" not in capsys.readouterr().err


def test_an_async_rewake_hook_exiting_2_wakes_the_model_with_its_stderr(monkeypatch, tmp_path, capsys):
    flag = tmp_path / "woke"
    command = f"[ -e {flag} ] && exit 0; touch {flag}; echo tests are failing >&2; exit 2"
    write_project(tmp_path, _group("Stop", command, asyncRewake=True))
    code, requests = _run(monkeypatch, tmp_path, [reply("Done."), reply("Fixed.")])
    assert code == 0
    assert len(requests) == 2
    woken = requests[1]["messages"][-1]
    text = woken["content"][0]["text"]
    assert woken["role"] == "user" and text.startswith("<system-reminder>\n")
    assert f"Stop hook feedback:\n[{command}]: tests are failing\n" in text
    assert capsys.readouterr().out.strip() == "Fixed."


def _recorder(log: Path) -> str:
    return f"cat >> {log}; echo >> {log}"


def test_instructions_loaded_fires_for_each_memory_file_with_claude_codes_fields(monkeypatch, tmp_path):
    log = tmp_path.parent / f"{tmp_path.name}-loaded.jsonl"
    (tmp_path / "CLAUDE.md").write_text("Use tabs.\n@docs/style.md\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "style.md").write_text("Short lines.\n")
    (tmp_path / "CLAUDE.local.md").write_text("Mine.\n")
    write_project(tmp_path, _group("InstructionsLoaded", _recorder(log), "session_start|include"))
    code, _ = _run(monkeypatch, tmp_path, [reply("Done.")])
    assert code == 0
    seen = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert [(Path(s["file_path"]).name, s["memory_type"], s["load_reason"]) for s in seen] == [
        ("CLAUDE.md", "Project", "session_start"),
        ("style.md", "Project", "include"),
        ("CLAUDE.local.md", "Local", "session_start"),
    ]
    assert seen[1]["parent_file_path"] == str(tmp_path / "CLAUDE.md")
    assert all(s["hook_event_name"] == "InstructionsLoaded" for s in seen)


def test_directory_added_fires_when_a_directory_is_added(monkeypatch, tmp_path):
    from tests.integration.helpers import make_session

    log = tmp_path.parent / f"{tmp_path.name}-added.jsonl"
    shared = tmp_path.parent / f"{tmp_path.name}-shared"
    shared.mkdir()
    write_project(tmp_path, _group("DirectoryAdded", _recorder(log)))
    session, _ = make_session(monkeypatch, "http://127.0.0.1:9", tmp_path)
    try:
        session.add_directory(shared)
    finally:
        session.close()
    seen = json.loads(log.read_text().splitlines()[0])
    assert (seen["hook_event_name"], seen["directory"], seen["source"]) == (
        "DirectoryAdded",
        str(shared),
        "slash_command",
    )
    assert session.options.add_dirs == [shared]


def test_with_stream_json_input_an_async_rewake_message_is_a_turn_of_its_own(tmp_path):
    import subprocess
    import sys

    flag = tmp_path / "woke"
    command = f"[ -e {flag} ] && exit 0; touch {flag}; echo tests are failing >&2; exit 2"
    write_project(tmp_path, _group("Stop", command, asyncRewake=True))
    line = json.dumps({"type": "user", "message": {"role": "user", "content": "go"}}) + "\n"
    with FakeAPI([reply("Done."), reply("Fixed.")]) as api:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
        env.update(ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="sk-test")
        argv = [
            sys.executable,
            "-m",
            "tui.cli.main",
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
        ]
        proc = subprocess.Popen(
            [*argv, "--verbose"], cwd=tmp_path, env=env, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(line)
        proc.stdin.flush()
        results = []
        for out in proc.stdout:  # the first turn's result, then the woken turn's
            if json.loads(out)["type"] == "result":
                results.append(json.loads(out)["result"])
                if len(results) == 2:
                    break
        proc.stdin.close()
        assert proc.wait(60) == 0
        bodies = [r.body for r in api.message_requests]
    assert results == ["Done.", "Fixed."]
    assert "Stop hook feedback:" in bodies[1]["messages"][-1]["content"][0]["text"]
