"""The app on a cloud provider: a turn against the Bedrock and Vertex fakes, through the real engine."""

from __future__ import annotations

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import Reply, Text
from tui.agent.options import AgentOptions
from tui.ui.app import AgentApp

from .conftest import SIZE, type_prompt, wait_until
from .test_app_pilot import markers


@pytest.mark.parametrize("provider", ["bedrock", "vertex"])
async def test_a_turn_on_a_cloud_provider_streams_into_the_app(provider, demo_project, tmp_path, monkeypatch) -> None:
    with FakeAPI([Reply([Text(f"hello from {provider}")])]) as api:
        if provider == "bedrock":
            env = {"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "us-east-1", "CLAUDE_CODE_SKIP_BEDROCK_AUTH": "1",
                   "ANTHROPIC_BEDROCK_BASE_URL": api.base_url}
        else:
            env = {"CLAUDE_CODE_USE_VERTEX": "1", "CLOUD_ML_REGION": "global", "ANTHROPIC_VERTEX_PROJECT_ID": "p",
                   "CLAUDE_CODE_SKIP_VERTEX_AUTH": "1", "ANTHROPIC_VERTEX_BASE_URL": f"{api.base_url}/v1"}
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        options = AgentOptions(project_dir=demo_project, interactive=True, transcript=False,
                               sessions_dir=tmp_path / "sessions")
        app = AgentApp(options, permission_grace_s=0)
        async with app.run_test(size=SIZE) as pilot:
            await type_prompt(pilot, "hi")
            await wait_until(pilot, lambda: app.session.last_assistant_text() == f"hello from {provider}")
            await wait_until(pilot, lambda: not app.controller.busy)
            assert not app.session.offline and app.status.usage.get("output_tokens", 0) > 0
        [request] = api.message_requests
    expected = ("/model/us.anthropic.claude-sonnet-5-5-v1:0/invoke-with-response-stream" if provider == "bedrock" else
                "/v1/projects/p/locations/global/publishers/anthropic/models/claude-sonnet-5-5:streamRawPredict")
    assert request.path == expected


async def test_model_lists_the_apis_models_and_switches_by_short_name(demo_project, tmp_path, monkeypatch) -> None:
    with FakeAPI([]) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        options = AgentOptions(project_dir=demo_project, interactive=True, transcript=False,
                               sessions_dir=tmp_path / "sessions")
        app = AgentApp(options, permission_grace_s=0)
        async with app.run_test(size=SIZE) as pilot:
            await type_prompt(pilot, "/model")
            await wait_until(pilot, lambda: any("claude-haiku-5-5" in m for m in markers(app)))
            assert "▸ claude-sonnet-5-5" in markers(app) and "  claude-opus-5-5" in markers(app)
            await type_prompt(pilot, "/model haiku")
            assert app.session.options.model == "claude-haiku-5-5"


async def test_model_on_bedrock_shows_the_ids_the_short_names_map_to(fake_session, monkeypatch) -> None:
    for name, value in {"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "eu-central-1"}.items():
        monkeypatch.setenv(name, value)
    fake_session.offline = False
    fake_session.client = lambda: None  # Bedrock is not asked: the mapping is local
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/model")
        await wait_until(pilot, lambda: any("not listed here" in m for m in markers(app)))
        assert "  opus → eu.anthropic.claude-opus-5-5-v1:0" in markers(app)
