"""Model choice: ANTHROPIC_MODEL, --fallback-model on overload, ANTHROPIC_SMALL_FAST_MODEL for summaries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import http_error, reply
from tests.integration.helpers import make_session
from tests.integration.test_compaction import synthetic_history
from tests.integration.test_providers import new_project, run_p


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return new_project(tmp_path, 'model = "claude-opus-5-5"\nmax_retries = 0\n')


def key_env(api: FakeAPI, **extra: str) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-test", **extra}


def test_anthropic_model_wins_over_the_setting_and_model_over_both(project):
    with FakeAPI([reply("one"), reply("two")]) as api:
        first = run_p(["hi"], project, key_env(api, ANTHROPIC_MODEL="haiku"))
        second = run_p(["hi", "--model", "claude-sonnet-5-5"], project, key_env(api, ANTHROPIC_MODEL="haiku"))
        models = [r.body["model"] for r in api.message_requests]
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert models == ["claude-haiku-5-5", "claude-sonnet-5-5"]


def test_fallback_model_takes_over_after_an_overload_outlasts_the_retries(project):
    with FakeAPI([http_error(529), reply("from the fallback")]) as api:
        proc = run_p(["hi", "--fallback-model", "sonnet", "--output-format", "json"], project, key_env(api))
        models = [r.body["model"] for r in api.message_requests]
    assert proc.returncode == 0, proc.stderr
    assert models == ["claude-opus-5-5", "claude-sonnet-5-5"]
    assert json.loads(proc.stdout)["result"] == "from the fallback"
    assert "switched to the fallback model claude-sonnet-5-5" in proc.stderr


def test_fallback_is_used_once_and_not_for_other_errors(project):
    with FakeAPI([http_error(529), http_error(529), reply("never")]) as api:
        proc = run_p(["hi", "--fallback-model", "sonnet"], project, key_env(api))
        assert len(api.message_requests) == 2 and proc.returncode == 1
    with FakeAPI([http_error(400, "invalid_request_error", "bad"), reply("never")]) as api:
        proc = run_p(["hi", "--fallback-model", "sonnet"], project, key_env(api))
        assert len(api.message_requests) == 1 and proc.returncode == 1


def test_a_fallback_equal_to_the_model_is_refused(project):
    proc = run_p(["hi", "--model", "opus", "--fallback-model", "claude-opus-5-5"], project, {"ANTHROPIC_API_KEY": "k"})
    assert proc.returncode == 2 and "--fallback-model" in proc.stderr


def test_compaction_summaries_use_the_small_fast_model(monkeypatch, tmp_path):
    summaries = [reply("SUMMARY: reading a.py.")] * 3  # the history is larger than the window: three pieces
    with FakeAPI([*summaries, reply("carrying on")]) as api:
        session, _ = make_session(
            monkeypatch,
            api.base_url,
            tmp_path,
            context_window=8000,
            max_tokens=300,
            small_fast_model="claude-haiku-5-5",
        )
        session.messages = synthetic_history(12)
        session.run_turn("next step")
        models = [r.body["model"] for r in api.message_requests]
    assert models == ["claude-haiku-5-5"] * 3 + ["claude-sonnet-5-5"]


def test_small_fast_model_comes_from_the_environment_or_the_setting(monkeypatch, tmp_path):
    from tui.cli.main import options_from_args
    from tui.cli.parser import build_parser

    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    args = build_parser().parse_args(["--cwd", str(tmp_path)])
    assert options_from_args(args)[0].small_fast_model is None
    monkeypatch.setenv("ANTHROPIC_SMALL_FAST_MODEL", "haiku")
    assert options_from_args(args)[0].small_fast_model == "claude-haiku-5-5"
