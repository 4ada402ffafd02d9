"""`agent-tui -p` with Claude Code's telemetry switches, against a real OTLP/HTTP receiver on loopback.

The fake Messages API answers through the real SDK; the receiver decodes what the OpenTelemetry SDK sends
with opentelemetry-proto. Names and attributes are Claude Code's (its monitoring documentation).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.demo_project import make_demo_project
from tests.fakeapi.script import http_error, reply, text, tool_use
from tests.otlp import OtlpGrpcReceiver, OtlpReceiver
from tests.ports import refusing_port

ROOT = Path(__file__).resolve().parents[2]
GIT_ID = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = make_demo_project(tmp_path / "proj")
    env = {**os.environ, **GIT_ID}
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "start"]):
        subprocess.run(command, cwd=root, env=env, check=True, capture_output=True)
    return root


def telemetry_env(tmp_path: Path, endpoint: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OTEL_", "CLAUDE_CODE_"))}
    gh = tmp_path / "bin" / "gh"  # GitHub's CLI as far as `gh pr create` goes: it prints the new PR's URL
    gh.parent.mkdir(exist_ok=True)
    gh.write_text("#!/bin/sh\necho https://github.com/example/demo/pull/7\n")
    gh.chmod(0o755)
    env["PATH"] = f"{gh.parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(
        GIT_ID,
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        CLAUDE_CODE_ENABLE_TELEMETRY="1",
        OTEL_METRICS_EXPORTER="otlp",
        OTEL_LOGS_EXPORTER="otlp",
        OTEL_TRACES_EXPORTER="otlp",
        OTEL_EXPORTER_OTLP_PROTOCOL="http/protobuf",
        OTEL_EXPORTER_OTLP_ENDPOINT=endpoint,
        CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS="30000",
    )
    env.update(extra)
    return env


#: the tests read telemetry: no language server starts on the edited .py file (one that dies on a loaded machine
#: would say so on stderr, which these tests read)
NO_LSP = ["--settings", '{"lsp": {"enabled": false}}']


def run_p(args: list[str], project: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui.cli.main", "-p", *NO_LSP, *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def edit_and_commit(project: Path) -> list[Any]:
    return [
        reply(tool_use("Read", {"file_path": str(project / "a.py")}), stop_reason="tool_use"),
        reply(
            text("Fixing it."),
            tool_use(
                "Edit",
                {
                    "file_path": str(project / "a.py"),
                    "old_string": "    # TODO: validate inputs\n",
                    "new_string": "    if a is None or b is None:\n        raise ValueError('missing')\n",
                },
            ),
            stop_reason="tool_use",
        ),
        reply(
            tool_use("Bash", {"command": "git commit -am 'validate inputs'", "description": "commit"}),
            stop_reason="tool_use",
        ),
        reply(
            tool_use("Bash", {"command": "gh pr create --fill", "description": "open a pull request"}),
            stop_reason="tool_use",
        ),
        reply(
            text("Committed."),
            stop_reason="end_turn",
            usage={
                "cache_read_input_tokens": 40,
                "cache_creation_input_tokens": 7,  # the breakdown agrees, as the API's does
                "cache_creation": {"ephemeral_5m_input_tokens": 7, "ephemeral_1h_input_tokens": 0},
            },
        ),
    ]


def test_print_mode_exports_claude_codes_metrics_events_and_spans(project: Path, tmp_path: Path) -> None:
    with OtlpReceiver() as otlp, FakeAPI(edit_and_commit(project)) as api:
        env = telemetry_env(
            tmp_path,
            otlp.endpoint,
            ANTHROPIC_BASE_URL=api.base_url,
            ANTHROPIC_API_KEY="sk-test",
            OTEL_RESOURCE_ATTRIBUTES="team.id=platform,cost_center=eng%20123",
            OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer t0ken",
        )
        proc = run_p(
            [
                "fix the TODO in a.py and commit",
                "--permission-mode",
                "acceptEdits",
                "--allowedTools",
                "Bash",
                "--output-format",
                "json",
            ],
            project,
            env,
        )
        assert proc.returncode == 0, proc.stderr
        # the scripted usage has no cache reads where a cache was written: the cost ledger names that miss
        assert [line for line in proc.stderr.splitlines() if not line.startswith("agent-tui: cache miss")] == []
    assert {h.get("authorization") for _, _, h in otlp.requests} == {"Bearer t0ken"}
    result = json.loads(proc.stdout)
    session_id = result["session_id"]
    usage = result["usage"]
    # metrics, by Claude Code's names, each point with the standard attributes
    assert otlp.total("claude_code.session.count") == 1
    for kind, key in (
        ("input", "input_tokens"),
        ("output", "output_tokens"),
        ("cacheRead", "cache_read_input_tokens"),
        ("cacheCreation", "cache_creation_input_tokens"),
    ):
        assert otlp.total("claude_code.token.usage", type=kind, model="claude-sonnet-5-5") == usage[key], kind
    assert otlp.total("claude_code.cost.usage") == pytest.approx(result["total_cost_usd"], rel=1e-4)
    assert otlp.total("claude_code.lines_of_code.count", type="added") == 2
    assert otlp.total("claude_code.lines_of_code.count", type="removed") == 1
    assert otlp.total("claude_code.commit.count") == 1 and otlp.total("claude_code.pull_request.count") == 1
    assert (
        otlp.total(
            "claude_code.code_edit_tool.decision",
            tool_name="Edit",
            decision="accept",
            source="config",
            language="Python",
        )
        == 1
    )
    assert otlp.total("claude_code.active_time.total", type="cli") > 0
    point = otlp.points("claude_code.token.usage")[0]
    assert point.unit == "tokens" and point.scope == "com.anthropic.claude_code"
    assert point.attributes["session.id"] == session_id and len(point.attributes["user.id"]) == 64
    assert point.attributes["team.id"] == "platform" and point.attributes["cost_center"] == "eng 123"
    assert "app.version" not in point.attributes and "prompt.id" not in point.attributes
    assert point.resource["service.name"] == "agent-tui" and point.resource["team.id"] == "platform"
    assert {"os.type", "host.arch", "service.version"} <= point.resource.keys()
    # events: log records whose body is the event's name
    prompt = otlp.records("claude_code.user_prompt")
    assert len(prompt) == 1 and prompt[0].scope == "com.anthropic.claude_code.events"
    attrs = prompt[0].attributes
    assert attrs["event.name"] == "user_prompt" and attrs["prompt_length"] == str(
        len("fix the TODO in a.py and commit")
    )
    assert attrs["prompt"] == "<REDACTED>" and attrs["session.id"] == session_id
    requests = otlp.records("claude_code.api_request")
    assert len(requests) == 5
    assert sum(r.attributes["input_tokens"] for r in requests) == usage["input_tokens"]
    assert (
        requests[-1].attributes["cache_read_tokens"] == 40 and requests[-1].attributes["model"] == "claude-sonnet-5-5"
    )
    assert {r.attributes["prompt.id"] for r in otlp.records()} == {attrs["prompt.id"]}
    decisions = [r.attributes for r in otlp.records("claude_code.tool_decision")]
    assert [(d["tool_name"], d["decision"], d["source"]) for d in decisions] == [
        ("Read", "accept", "config"),
        ("Edit", "accept", "config"),
        ("Bash", "accept", "config"),
        ("Bash", "accept", "config"),
    ]
    results = [r.attributes for r in otlp.records("claude_code.tool_result")]
    assert [(r["tool_name"], r["success"]) for r in results] == [
        ("Read", "true"),
        ("Edit", "true"),
        ("Bash", "true"),
        ("Bash", "true"),
    ]
    assert all(int(r["duration_ms"]) >= 0 and int(r["tool_result_size_bytes"]) > 0 for r in results)
    assert not any("tool_input" in r or "tool_parameters" in r for r in results)  # OTEL_LOG_TOOL_DETAILS is off
    sequence = [r.attributes["event.sequence"] for r in otlp.records()]
    assert sorted(sequence) == list(range(len(sequence)))
    # traces: the turn, its five requests and four tool calls inside it
    (turn,) = otlp.spans("claude_code.interaction")
    assert turn.attributes["user_prompt"] == "<REDACTED>" and turn.attributes["interaction.sequence"] == 1
    llm = otlp.spans("claude_code.llm_request")
    tools = otlp.spans("claude_code.tool")
    assert len(llm) == 5 and len(tools) == 4
    assert all(s.parent_span_id == turn.span_id and s.trace_id == turn.trace_id for s in [*llm, *tools])
    assert [s.attributes["stop_reason"] for s in sorted(llm, key=lambda s: s.start_ns)] == ["tool_use"] * 4 + [
        "end_turn"
    ]
    executions = otlp.spans("claude_code.tool.execution")
    assert sorted(s.parent_span_id for s in executions) == sorted(s.span_id for s in tools)
    assert not any("tool_input" in s.attributes or s.events for s in [*tools, *executions])  # OTEL_LOG_TOOL_CONTENT
    assert all(turn.start_ns <= s.start_ns <= s.end_ns <= turn.end_ns for s in [*llm, *tools])


def test_prompts_and_tool_details_are_exported_only_when_asked(project: Path, tmp_path: Path) -> None:
    with OtlpReceiver() as otlp, FakeAPI(edit_and_commit(project)) as api:
        env = telemetry_env(
            tmp_path,
            otlp.endpoint,
            ANTHROPIC_BASE_URL=api.base_url,
            ANTHROPIC_API_KEY="sk-test",
            OTEL_LOG_USER_PROMPTS="1",
            OTEL_LOG_TOOL_DETAILS="1",
            OTEL_LOG_TOOL_CONTENT="1",
            OTEL_METRICS_INCLUDE_SESSION_ID="0",
            OTEL_METRICS_INCLUDE_VERSION="1",
        )
        proc = run_p(
            ["fix the TODO in a.py and commit", "--permission-mode", "acceptEdits", "--allowedTools", "Bash"],
            project,
            env,
        )
        assert proc.returncode == 0, proc.stderr
    assert otlp.records("claude_code.user_prompt")[0].attributes["prompt"] == "fix the TODO in a.py and commit"
    assert otlp.spans("claude_code.interaction")[0].attributes["user_prompt"] == "fix the TODO in a.py and commit"
    bash = next(r.attributes for r in otlp.records("claude_code.tool_result") if r.attributes["tool_name"] == "Bash")
    params = json.loads(bash["tool_parameters"])
    assert params["bash_command"] == "git" and params["full_command"] == "git commit -am 'validate inputs'"
    assert len(params["git_commit_id"]) >= 7
    assert json.loads(bash["tool_input"])["description"] == "commit"
    point = otlp.points("claude_code.token.usage")[0]
    assert "session.id" not in point.attributes and point.attributes["app.version"]
    read = next(s for s in otlp.spans("claude_code.tool") if s.attributes["tool_name"] == "Read")
    assert json.loads(read.attributes["tool_input"])["file_path"].endswith("a.py")
    outputs = [e for s in otlp.spans("claude_code.tool.execution") for e in s.events if e[0] == "tool.output"]
    assert any("TODO: validate inputs" in attrs["output"] for _, attrs in outputs)


def test_a_subagents_requests_and_tools_nest_under_its_agent_call(project: Path, tmp_path: Path) -> None:
    def script(body: dict[str, Any]) -> Any:
        first = body["messages"][0]["content"]
        prompt = first if isinstance(first, str) else " ".join(b.get("text", "") for b in first)
        if prompt.startswith("look at a.py"):  # the subagent
            if len(body["messages"]) == 1:
                return reply(tool_use("Read", {"file_path": "a.py"}), stop_reason="tool_use")
            return reply(text("a.py adds two numbers."))
        if len(body["messages"]) == 1:
            return reply(
                tool_use("Agent", {"description": "read a.py", "prompt": "look at a.py"}), stop_reason="tool_use"
            )
        return reply(text("It adds numbers."))

    with OtlpReceiver() as otlp, FakeAPI(script) as api:
        env = telemetry_env(tmp_path, otlp.endpoint, ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="sk-test")
        proc = run_p(["what does a.py do?"], project, env)
        assert proc.returncode == 0, proc.stderr
    (turn,) = otlp.spans("claude_code.interaction")
    tools = {s.attributes["tool_name"]: s for s in otlp.spans("claude_code.tool")}
    agent, read = tools["Agent"], tools["Read"]
    assert agent.parent_span_id == turn.span_id and read.parent_span_id == agent.span_id
    llm = otlp.spans("claude_code.llm_request")
    inside = [s for s in llm if s.parent_span_id == agent.span_id]
    assert len(llm) == 4 and len(inside) == 2
    assert all(s.attributes["agent_id"] and s.attributes["query_source"] == "agent" for s in inside)
    assert all(s.parent_span_id == turn.span_id and "agent_id" not in s.attributes for s in llm if s not in inside)
    assert all(agent.start_ns <= s.start_ns <= s.end_ns <= agent.end_ns for s in [*inside, read])
    assert len(otlp.records("claude_code.api_request")) == 4  # the subagent's requests count too
    assert len(otlp.records("claude_code.user_prompt")) == 1  # its prompt is the model's, not the user's


def test_otlp_over_grpc_reaches_a_grpc_receiver(project: Path, tmp_path: Path) -> None:
    with OtlpGrpcReceiver() as otlp:
        env = telemetry_env(tmp_path, otlp.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL="grpc")
        proc = run_p(["hello", "--offline"], project, env)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert otlp.total("claude_code.session.count") == 1
    assert otlp.records("claude_code.user_prompt") and otlp.spans("claude_code.interaction")


def test_a_failed_request_is_an_api_error_event_and_a_failed_span(project: Path, tmp_path: Path) -> None:
    with OtlpReceiver() as otlp, FakeAPI([http_error(500), reply(text("Fine now."))]) as api:
        env = telemetry_env(tmp_path, otlp.endpoint, ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="sk-test")
        proc = run_p(["hello"], project, env)
        assert proc.returncode == 0, proc.stderr
    (error,) = otlp.records("claude_code.api_error")
    assert error.attributes["status_code"] == "500" and error.attributes["attempt"] == 1
    assert error.attributes["model"] == "claude-sonnet-5-5" and error.attributes["error"]
    assert len(otlp.records("claude_code.api_request")) == 1
    first, second = sorted(otlp.spans("claude_code.llm_request"), key=lambda s: s.start_ns)
    assert first.status == 2 and first.attributes["success"] is False  # STATUS_CODE_ERROR
    assert second.attributes["success"] is True and second.attributes["attempt"] == 2


def closed_port() -> int:
    """A port where a connection is refused (see tests/ports.py)."""
    return refusing_port()


REFUSALS = {
    "connection refused": "refused the connection",
    "HTTP 401": "answered HTTP 401",
    "no scheme": "is not a URL agent-tui can send to",
}


@pytest.mark.parametrize("refusal", list(REFUSALS))
def test_an_endpoint_that_refuses_is_one_sentence_and_the_run_goes_on(
    project: Path, tmp_path: Path, refusal: str
) -> None:
    with OtlpReceiver(status=401) as otlp, FakeAPI([reply(text("Still answered."))]) as api:
        endpoint = {
            "connection refused": f"http://127.0.0.1:{closed_port()}",
            "HTTP 401": otlp.endpoint,
            "no scheme": f"127.0.0.1:{closed_port()}",
        }[refusal]
        env = telemetry_env(
            tmp_path,
            endpoint,
            ANTHROPIC_BASE_URL=api.base_url,
            ANTHROPIC_API_KEY="sk-test",
            CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS="60000",
        )
        proc = run_p(["hello"], project, env)
    assert proc.returncode == 0 and proc.stdout.strip() == "Still answered."
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"agent-tui: Telemetry could not be sent: the OTLP endpoint {endpoint}/v1/")
    assert REFUSALS[refusal] in lines[0]
    assert "Traceback" not in proc.stderr


def test_missing_otel_extra_is_one_sentence_naming_the_extra(project: Path, tmp_path: Path) -> None:
    # the extra is the SDK and its exporters; opentelemetry-api may be there anyway (anthropic 2.x requires it)
    code = (
        "import sys\nsys.modules['opentelemetry.sdk'] = None  # as if the otel extra were not installed\n"
        "from tui.cli.main import main\nsys.exit(main(['-p', 'hello', '--offline']))\n"
    )
    env = telemetry_env(tmp_path, "http://127.0.0.1:9")
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and proc.stdout.strip()
    lines = [line for line in proc.stderr.splitlines() if "elemetry" in line]
    assert lines == [
        "agent-tui: Telemetry is on (CLAUDE_CODE_ENABLE_TELEMETRY) but OpenTelemetry is not installed (it comes "
        f"with agent-tui: {sys.executable} -m pip install agent-tui-loop installs it again); the session goes on "
        "without telemetry."
    ]


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        (
            "OTEL_METRICS_EXPORTER",
            "otlp,prometheus",
            "OTEL_METRICS_EXPORTER=prometheus is not an exporter agent-tui has",
        ),
        (
            "OTEL_METRIC_EXPORT_INTERVAL",
            "soon",
            "OTEL_METRIC_EXPORT_INTERVAL must be a positive number of milliseconds",
        ),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json", "OTEL_EXPORTER_OTLP_PROTOCOL=http/json is not available"),
    ],
)
def test_a_bad_switch_is_one_sentence_and_the_rest_is_exported(
    project: Path, tmp_path: Path, variable: str, value: str, said: str
) -> None:
    with OtlpReceiver() as otlp:
        env = telemetry_env(tmp_path, otlp.endpoint, **{variable: value})
        proc = run_p(["hello", "--offline"], project, env)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"agent-tui: {said}"), proc.stderr
    assert otlp.total("claude_code.session.count") == 1 and otlp.records("claude_code.user_prompt")


def test_telemetry_off_imports_no_opentelemetry(project: Path, tmp_path: Path) -> None:
    code = (
        "import sys\nfrom tui.cli.main import main\nrc = main(['-p', 'hello', '--offline'])\n"
        # the OpenTelemetry SDK and exporters (the extra) and our own; anthropic 2.x imports the API itself
        "loaded = [m for m in sys.modules if m.startswith(('opentelemetry.sdk', 'opentelemetry.exporter', "
        "'tui.telemetry'))]\n"
        "assert rc == 0 and not loaded, (rc, loaded)\n"
    )
    env = telemetry_env(tmp_path, "http://127.0.0.1:9", CLAUDE_CODE_ENABLE_TELEMETRY="0")
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
