"""Routes, auth and the CLI, spoken to with plain urllib (no SDK)."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from tests.fakeapi import FakeAPI, reply, text
from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.script import Reply, ToolUse
from tests.fakeapi.scriptfile import load_script

ROOT = Path(__file__).resolve().parents[3]
HEADERS = {"content-type": "application/json", "anthropic-version": "2026-10-21"}


def call(url: str, body: dict | None = None, method: str = "POST", headers: dict | None = None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def test_routes_auth_and_count_tokens(fake_api):
    api = fake_api([reply(text("x"))])
    status, raw = call(api.base_url + "/v1/messages", {"model": "m"}, headers=HEADERS)
    assert status == 401 and json.loads(raw)["error"]["type"] == "authentication_error"
    keyed = {**HEADERS, "x-api-key": "sk-test"}
    body = {"model": "m", "messages": [{"role": "user", "content": "x" * 400}]}
    status, raw = call(api.base_url + "/v1/messages/count_tokens?beta=true", body, headers=keyed)
    assert status == 200 and 100 <= json.loads(raw)["input_tokens"] <= 110
    assert call(api.base_url + "/", method="HEAD")[0] == 200
    status, raw = call(api.base_url + "/v1/nothing", {}, headers=keyed)
    assert status == 404 and json.loads(raw)["type"] == "error"
    no_version = {"x-api-key": "sk-test", "content-type": "application/json"}
    assert call(api.base_url + "/v1/messages", body, headers=no_version)[0] == 400


def test_three_step_scenario_loads_with_project_paths(tmp_path):
    project = make_demo_project(tmp_path / "demo")
    assert "    # TODO: validate inputs\n" in (project / "a.py").read_text()
    assert (project / "b.py").read_text().count("TODO") == 2
    steps = load_script(ROOT / "tests/fakeapi/scenarios/three_step.json", project)
    assert [s.stop_reason for s in steps if isinstance(s, Reply)] == ["tool_use", "tool_use", "end_turn"]
    calls = [b for b in steps[0].blocks if isinstance(b, ToolUse)]
    assert [c.name for c in calls] == ["Read", "Read", "Grep"]
    assert calls[0].input["file_path"] == str(project.resolve() / "a.py")
    edit = steps[1].blocks[1]
    assert edit.input["old_string"] in (project / "a.py").read_text()


def test_cli_serves_a_script_and_logs_each_request(tmp_path):
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"http_error": {"status": 529}}]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakeapi", "--script", str(script), "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:")
        body = {"model": "m", "max_tokens": 5, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
        status, raw = call(base_url + "/v1/messages", body, headers={**HEADERS, "authorization": "Bearer k"})
        assert status == 529 and json.loads(raw)["error"]["type"] == "overloaded_error"
        assert "POST /v1/messages -> 529" in proc.stderr.readline()
    finally:
        proc.terminate()
        proc.wait(timeout=5)


def test_stop_releases_the_port():
    api = FakeAPI([])
    port = api.port
    api.stop()
    again = FakeAPI([], port=port)
    again.stop()


def test_keep_requests_holds_only_the_newest_requests() -> None:
    """A soak's fake API keeps a few requests, not every body of the day (the app's RSS is what is measured)."""
    keyed = {**HEADERS, "x-api-key": "sk-test"}
    with FakeAPI(lambda body: reply(text("ok")), validate=False, keep_requests=3) as api:
        for n in range(10):
            body = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": f"n{n}"}]}
            assert call(api.base_url + "/v1/messages", body, headers=keyed)[0] == 200
        assert [r.body["messages"][0]["content"] for r in api.requests] == ["n7", "n8", "n9"]
