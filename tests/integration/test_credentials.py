"""The `api_key_helper` command and ANTHROPIC_CUSTOM_HEADERS, through `agent-tui -p` against the fake API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import HttpError, Reply, Text, ToolUse
from tests.integration.test_providers import new_project, run_p, write_user_settings

UNAUTHORIZED = HttpError(401, "authentication_error", "invalid x-api-key")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return new_project(tmp_path)


def counting_helper(folder: Path, body: str = 'echo "key-$n"') -> tuple[str, Path]:
    """A helper script that counts its runs in a file and prints `key-<run number>`."""
    count = folder / "runs"
    script = folder / "helper.sh"
    script.write_text(f'#!/bin/sh\nn=$(( $(cat "{count}" 2>/dev/null || echo 0) + 1 ))\necho $n > "{count}"\n{body}\n')
    script.chmod(0o755)
    return str(script), count


def runs(count: Path) -> int:
    return int(count.read_text()) if count.exists() else 0


def test_the_helper_key_is_sent_and_the_helper_runs_once(project, tmp_path):
    helper, count = counting_helper(tmp_path)
    write_user_settings(f"api_key_helper = {json.dumps(helper)}\n")
    script = [Reply([ToolUse("Glob", {"pattern": "*.py"})], stop_reason="tool_use"), Reply([Text("done")])]
    with FakeAPI(script) as api:
        proc = run_p(["hi"], project, {"ANTHROPIC_BASE_URL": api.base_url})
        keys = [r.api_key for r in api.message_requests]
    assert proc.returncode == 0, proc.stderr
    assert keys == ["key-1", "key-1"] and runs(count) == 1


def test_a_401_reruns_the_helper_exactly_once(project, tmp_path):
    helper, count = counting_helper(tmp_path)
    write_user_settings(f"api_key_helper = {json.dumps(helper)}\n")
    with FakeAPI([UNAUTHORIZED, Reply([Text("welcome back")])]) as api:
        proc = run_p(["hi"], project, {"ANTHROPIC_BASE_URL": api.base_url})
        keys = [r.api_key for r in api.message_requests]
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "welcome back"
    assert keys == ["key-1", "key-2"] and runs(count) == 2


def test_a_second_401_is_not_refreshed_again(project, tmp_path):
    helper, count = counting_helper(tmp_path)
    write_user_settings(f"api_key_helper = {json.dumps(helper)}\n")
    with FakeAPI([UNAUTHORIZED, UNAUTHORIZED, Reply([Text("never")])]) as api:
        proc = run_p(["hi"], project, {"ANTHROPIC_BASE_URL": api.base_url})
        sent = len(api.message_requests)
    assert proc.returncode != 0 and "401" in proc.stderr
    assert sent == 2 and runs(count) == 2


def test_the_helper_reruns_when_its_key_is_older_than_the_ttl(project, tmp_path):
    helper, count = counting_helper(tmp_path)
    write_user_settings(f"api_key_helper = {json.dumps(helper)}\n")
    script = [Reply([ToolUse("Glob", {"pattern": "*.py"})], stop_reason="tool_use"), Reply([Text("done")])]
    with FakeAPI(script) as api:
        proc = run_p(["hi"], project, {"ANTHROPIC_BASE_URL": api.base_url, "CLAUDE_CODE_API_KEY_HELPER_TTL_MS": "0"})
        keys = [r.api_key for r in api.message_requests]
    assert proc.returncode == 0, proc.stderr
    assert keys == ["key-2", "key-3"] and runs(count) == 3  # start-up, then before each request


@pytest.mark.parametrize(
    ("body", "env", "says"),
    [
        ("echo broken >&2; exit 3", {}, "failed with exit status 3: broken"),
        ("true", {}, "printed no key"),
        ("sleep 30", {"AGENT_TUI_API_KEY_HELPER_TIMEOUT": "0.5"}, "did not finish within 0.5 s"),
    ],
)
def test_a_broken_helper_is_one_sentence_and_exit_2(project, tmp_path, body, env, says):
    helper, _ = counting_helper(tmp_path, body)
    write_user_settings(f"api_key_helper = {json.dumps(helper)}\n")
    with FakeAPI([Reply([Text("never")])]) as api:
        proc = run_p(["hi"], project, {"ANTHROPIC_BASE_URL": api.base_url, **env})
        assert api.message_requests == []
    assert proc.returncode == 2
    assert "`api_key_helper`" in proc.stderr and says in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_a_folder_helper_runs_only_once_the_folder_is_trusted(project, tmp_path):
    helper, count = counting_helper(tmp_path)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"apiKeyHelper": helper}))
    with FakeAPI([Reply([Text("offline?")])]) as api:
        proc = run_p(["hi"], project, {"ANTHROPIC_BASE_URL": api.base_url})
        assert proc.returncode == 0, proc.stderr
        assert runs(count) == 0 and "ignored until you trust it" in proc.stderr
        write_user_settings(f"trusted_folders = [{json.dumps(str(project))}]\n")
        api._script.append(Reply([Text("trusted")]))
        proc = run_p(["hi"], project, {"ANTHROPIC_BASE_URL": api.base_url})
        keys = [r.api_key for r in api.message_requests]
    assert proc.returncode == 0, proc.stderr
    assert keys == ["no-key-set", "key-1"] and runs(count) == 1


def test_custom_headers_are_sent_and_a_bad_line_is_named(project):
    with FakeAPI([Reply([Text("ok")])]) as api:
        env = {
            "ANTHROPIC_BASE_URL": api.base_url,
            "ANTHROPIC_API_KEY": "sk-test",
            "ANTHROPIC_CUSTOM_HEADERS": "X-Team: infra\nX-Trace-Id:  abc 123\n",
        }
        proc = run_p(["hi"], project, env)
        [request] = api.message_requests
    assert proc.returncode == 0, proc.stderr
    assert request.headers["x-team"] == "infra" and request.headers["x-trace-id"] == "abc 123"
    proc = run_p(["hi"], project, {**env, "ANTHROPIC_CUSTOM_HEADERS": "X-Team infra"})
    assert proc.returncode == 2 and "ANTHROPIC_CUSTOM_HEADERS line 1" in proc.stderr


def test_a_helper_that_fails_on_a_later_refresh_stops_the_turn_in_one_sentence(project, tmp_path):
    helper, count = counting_helper(
        tmp_path, 'if [ "$n" -gt 1 ]; then echo "token expired" >&2; exit 4; fi\necho key-$n'
    )
    write_user_settings(f"api_key_helper = {json.dumps(helper)}\n")
    with FakeAPI([Reply([Text("never")])]) as api:
        proc = run_p(["hi"], project, {"ANTHROPIC_BASE_URL": api.base_url, "CLAUDE_CODE_API_KEY_HELPER_TTL_MS": "0"})
        assert api.message_requests == []
    assert proc.returncode == 2 and runs(count) == 2  # a credential error: exit 2, as at start
    assert "`api_key_helper`" in proc.stderr and "exit status 4: token expired" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def _running(pid_file: Path) -> bool:
    """Whether the pid written in `pid_file` still runs (a zombie does not)."""
    from tui.tools.processes import read_stat

    info = read_stat(int(pid_file.read_text()))
    return info is not None and info.state != "Z"


def test_a_helper_that_leaves_a_child_holding_stdout_is_judged_by_its_own_exit(project, tmp_path):
    child = tmp_path / "child.pid"
    helper, count = counting_helper(tmp_path, f'setsid sleep 60 & echo $! > "{child}"\necho key-$n')
    write_user_settings(f"api_key_helper = {json.dumps(helper)}\n")
    with FakeAPI([Reply([Text("done")])]) as api:
        proc = run_p(["hi"], project, {"ANTHROPIC_BASE_URL": api.base_url})  # the default 10 s timeout
        keys = [r.api_key for r in api.message_requests]
    assert proc.returncode == 0, proc.stderr  # main: "did not finish within 10 s", after waiting for the child
    assert keys == ["key-1"] and runs(count) == 1
    assert not _running(child)  # killed with the helper's tree, not orphaned


def test_a_helper_past_its_timeout_ends_with_its_setsid_child(project, tmp_path):
    """The helper starts a child in a session of its own, then outlasts its timeout: the child ends with it.

    The test means a helper killed after its child started. On a loaded machine the helper's shell can take
    longer than a short timeout to get that far (it was killed before it wrote the pid: nothing was tested),
    so the run is repeated with a longer timeout until the child had started.
    """
    child = tmp_path / "child.pid"
    started = f'setsid sleep 60 & echo $! > "{child}.new" && mv "{child}.new" "{child}"\nsleep 60'
    helper, _ = counting_helper(tmp_path, started)
    write_user_settings(f"api_key_helper = {json.dumps(helper)}\n")
    for limit in ("0.5", "2", "8", "30"):
        with FakeAPI([Reply([Text("never")])]) as api:
            proc = run_p(
                ["hi"], project, {"ANTHROPIC_BASE_URL": api.base_url, "AGENT_TUI_API_KEY_HELPER_TIMEOUT": limit}
            )
            assert api.message_requests == []  # run_p's 60 s timeout: main waited here for the child for good
        assert proc.returncode == 2 and f"did not finish within {limit} s" in proc.stderr
        if child.exists():
            break
    assert child.exists(), "the helper never started its child, even with 30 s"
    assert not _running(child)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (
            "head -c 3000000 /dev/zero | tr '\\0' k",
            "printed a first line of more than 262,144 characters, more than any key",
        ),
        ("printf 'sk-\\033[31mred\\n'", "printed a first line that holds a space or a control character"),
    ],
)
def test_a_helper_printing_what_cannot_be_a_key_is_refused_before_sending(project, tmp_path, body, says):
    helper, _ = counting_helper(tmp_path, body)
    write_user_settings(f"api_key_helper = {json.dumps(helper)}\n")
    with FakeAPI([Reply([Text("never")])]) as api:
        proc = run_p(["hi"], project, {"ANTHROPIC_BASE_URL": api.base_url})
        assert api.message_requests == []  # never sent: no 431 page from the server
    assert proc.returncode == 2
    assert proc.stderr.startswith("agent-tui: The `api_key_helper` command (") and says in proc.stderr
    assert "it must print the key alone." in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert "kkkk" not in proc.stderr and "red" not in proc.stderr  # the output itself is never shown


def test_an_environment_key_no_header_can_carry_is_named_at_start(project):
    with FakeAPI([Reply([Text("never")])]) as api:
        proc = run_p(["hi"], project, {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-ключ"})
        assert api.requests == []
    assert proc.returncode == 2
    assert proc.stderr == (
        "agent-tui: ANTHROPIC_API_KEY holds a character that is not ASCII, which no key has: set it to the key alone.\n"
    )
