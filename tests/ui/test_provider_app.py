"""The app on a cloud provider: a turn against the Bedrock and Vertex fakes, through the real engine."""

from __future__ import annotations

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import Reply, Text
from tui.agent.options import AgentOptions
from tui.ui.app import AgentApp
from tui.ui.screens.model_screen import ModelPicker

from .conftest import SIZE, type_prompt, wait_until


@pytest.mark.parametrize("provider", ["bedrock", "vertex"])
async def test_a_turn_on_a_cloud_provider_streams_into_the_app(provider, demo_project, tmp_path, monkeypatch) -> None:
    with FakeAPI([Reply([Text(f"hello from {provider}")])]) as api:
        if provider == "bedrock":
            env = {
                "CLAUDE_CODE_USE_BEDROCK": "1",
                "AWS_REGION": "us-east-1",
                "CLAUDE_CODE_SKIP_BEDROCK_AUTH": "1",
                "ANTHROPIC_BEDROCK_BASE_URL": api.base_url,
            }
        else:
            env = {
                "CLAUDE_CODE_USE_VERTEX": "1",
                "CLOUD_ML_REGION": "global",
                "ANTHROPIC_VERTEX_PROJECT_ID": "p",
                "CLAUDE_CODE_SKIP_VERTEX_AUTH": "1",
                "ANTHROPIC_VERTEX_BASE_URL": f"{api.base_url}/v1",
            }
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        options = AgentOptions(
            project_dir=demo_project, interactive=True, transcript=False, sessions_dir=tmp_path / "sessions"
        )
        app = AgentApp(options, permission_grace_s=0)
        async with app.run_test(size=SIZE) as pilot:
            await type_prompt(pilot, "hi")
            await wait_until(pilot, lambda: app.session.last_assistant_text() == f"hello from {provider}")
            await wait_until(pilot, lambda: not app.controller.busy)
            assert not app.session.offline and app.status.usage.get("output_tokens", 0) > 0
        [request] = api.message_requests
    expected = (
        "/model/us.anthropic.claude-sonnet-5-5-v1:0/invoke-with-response-stream"
        if provider == "bedrock"
        else "/v1/projects/p/locations/global/publishers/anthropic/models/claude-sonnet-5-5:streamRawPredict"
    )
    assert request.path == expected


async def test_model_lists_the_apis_models_and_switches_by_short_name(demo_project, tmp_path, monkeypatch) -> None:
    with FakeAPI([]) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        options = AgentOptions(
            project_dir=demo_project, interactive=True, transcript=False, sessions_dir=tmp_path / "sessions"
        )
        app = AgentApp(options, permission_grace_s=0)
        async with app.run_test(size=SIZE) as pilot:
            await type_prompt(pilot, "/model")
            await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker))
            shown = picker_lines(app)
            assert "▸ claude-sonnet-5-5" in shown and "  claude-opus-5-5" in shown and "  claude-haiku-5-5" in shown
            await pilot.press("escape")
            await type_prompt(pilot, "/model haiku")
            assert app.session.options.model == "claude-haiku-5-5" and app.status.model == "claude-haiku-5-5"


async def test_model_on_bedrock_shows_the_ids_the_short_names_map_to(fake_session, monkeypatch) -> None:
    for name, value in {"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "eu-central-1"}.items():
        monkeypatch.setenv(name, value)
    fake_session.offline = False
    fake_session.client = lambda: None  # Bedrock is not asked: the mapping is local
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/model")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker))
        assert "not listed here" in str(app.screen.query_one("#model-note").render())
        assert "  opus → eu.anthropic.claude-opus-5-5-v1:0" in picker_lines(app)
        assert "▸ sonnet → eu.anthropic.claude-sonnet-5-5-v1:0" in picker_lines(app)


def picker_lines(app: AgentApp) -> list[str]:
    """The model picker's entries as shown."""
    listing = app.screen.query_one("#model-list")
    return [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]


async def test_offline_the_model_picker_lists_the_known_models_and_the_status_names_the_demo(offline_options) -> None:
    app = AgentApp(offline_options(model="claude-opus-5-5"), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app._session is not None)
        assert app.status.model == "offline demo" and "claude-opus" not in str(app.query_one("#header").render())
        await type_prompt(pilot, "/model")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker))
        shown = picker_lines(app)
        assert "▸ claude-opus-5-5" in shown and "  claude-haiku-5-5" in shown and "  claude-sonnet-5-5" in shown
        assert "offline demo model answers until an API key is set" in str(app.screen.query_one("#model-note").render())
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, ModelPicker))
        assert app.session.options.model == shown[1][2:]
        assert app.status.model == "offline demo"  # what answers, not the model chosen
        assert any("The offline demo answers until an API key is set" in str(n.message) for n in app._notifications)
        assert "offline demo" in str(app.status.render())
