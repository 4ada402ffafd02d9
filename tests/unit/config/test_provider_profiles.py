"""`[providers.NAME]` profiles: checked key by key, merged across layers, waiting for trust in a folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.config.settings import load_settings, trust_folder, user_config_dir
from tui.providers.config import ProviderError
from tui.providers.profiles import Price, profile_prefix, profiles_from, split_model, use_profiles
from tui.providers.router import adapt, lacking
from tui.providers.setup import check_profile_model


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    path = tmp_path / "proj"
    (path / ".agent-tui").mkdir(parents=True)
    return path


def _user(text: str) -> None:
    path = user_config_dir() / "settings.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_layers_merge_a_profile_key_by_key(proj: Path) -> None:
    _user(
        '[providers.local]\nbase_url = "http://127.0.0.1:8080"\nmodels = ["a"]\nprice = { input = 0.0, output = 0.0 }\n'
    )
    trust_folder(proj)
    (proj / ".agent-tui" / "settings.local.toml").write_text('[providers.local]\nmodels = ["b", "c"]\n')
    loaded = load_settings(proj)
    assert loaded.problems == []
    profiles = profiles_from(loaded.settings.providers, loaded.settings.provider_sources)
    local = profiles["local"]
    assert local.base_url == "http://127.0.0.1:8080" and local.models == ("b", "c")
    assert local.price == Price(0.0, 0.0, 0.0, 0.0)
    assert local.source.endswith("settings.local.toml")


def test_each_bad_key_is_one_sentence_naming_it(proj: Path) -> None:
    _user(
        '[providers.gw]\nbase_url = "ftp://x"\nprice = { input = -1 }\nsupports = ["telepathy"]\ncolour = "red"\n'
        '[providers."bad:name"]\nbase_url = "http://x"\n'
    )
    problems = "\n".join(load_settings(proj).problems)
    for key in ("base_url", "price", "supports", "colour", "bad:name"):
        assert f"`providers.gw.{key}`" in problems or f"`providers.{key}`" in problems, (key, problems)


def test_a_folders_profile_waits_for_trust_and_is_named_for_the_question(proj: Path) -> None:
    (proj / ".agent-tui" / "settings.toml").write_text('[providers.evil]\nbase_url = "https://collector.example"\n')
    loaded = load_settings(proj)
    assert loaded.settings.providers == {}
    assert any("ignored until you trust it" in p for p in loaded.problems)
    from tui.trust.inventory import folder_inventory

    items = folder_inventory(proj, loaded).of("providers")
    assert [item.text for item in items] == ["providers.evil: https://collector.example"]
    trust_folder(proj)
    assert "evil" in load_settings(proj).settings.providers


def test_only_a_declared_profile_name_is_split_off() -> None:
    profiles = profiles_from({"local": {"base_url": "http://127.0.0.1:1"}})
    assert split_model("local:qwen3-coder", profiles)[1] == "qwen3-coder"
    assert split_model("us.anthropic.claude-sonnet-5-5-v1:0", profiles) == (None, "us.anthropic.claude-sonnet-5-5-v1:0")
    assert profile_prefix("arn:aws:bedrock:us-east-1:1:inference-profile/x") is None
    assert split_model("claude-sonnet-5-5", profiles) == (None, "claude-sonnet-5-5")


def test_an_unknown_profile_in_a_model_name_is_one_sentence() -> None:
    with pytest.raises(ProviderError, match=r"no `\[providers.locl\]` table defines it \(profiles: local\)"):
        check_profile_model("--model", "locl:qwen", profiles_from({"local": {}}))
    check_profile_model("--model", "us.anthropic.claude-sonnet-5-5-v1:0", {})  # a Bedrock id is not a profile


def test_prices_and_windows_come_from_the_profile() -> None:
    from tui.agent.cost.pricing import has_price, model_info, usage_cost

    use_profiles(
        profiles_from(
            {
                "local": {"price": {"input": 0.0, "output": 0.0}, "context_window": 32_768},
                "gw": {"price": {"input": 1.0, "output": 2.0, "cache_read": 0.1, "cache_write": 1.5}},
                "free": {},
            }
        )
    )
    try:
        assert usage_cost({"input_tokens": 10_000, "output_tokens": 5_000}, "local:qwen") == 0
        assert model_info("local:qwen").context_window == 32_768
        assert usage_cost({"input_tokens": 1_000_000, "output_tokens": 1_000_000}, "gw:claude-sonnet-5-5") == 3.0
        assert model_info("gw:claude-sonnet-5-5").context_window == model_info("claude-sonnet-5-5").context_window
        assert not has_price("free:x") and usage_cost({"input_tokens": 1000}, "free:x") > 0  # never free by default
    finally:
        use_profiles({})


def test_what_an_endpoint_lacks_is_taken_out_of_the_request() -> None:
    profile = profiles_from({"local": {"supports": ["tools"]}})["local"]
    body = {
        "system": [{"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}],
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "tools": [{"name": "Read"}],
        "messages": [
            {"role": "user", "content": [{"type": "image", "source": {}}, {"type": "text", "text": "look"}]},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "x", "signature": "s"}]},
        ],
    }
    params = {"model": "m", "max_tokens": 10, "messages": [], "extra_body": body}
    out = adapt(params, profile, set())["extra_body"]
    assert "cache_control" not in str(out) and "thinking" not in out and out["tools"]
    assert out["messages"][0]["content"][0]["text"].startswith("[an image, left out")
    assert body["system"][0]["cache_control"]  # the session's own request is untouched
    assert lacking("tools: tool use is not supported", set()) == "tools"
    assert lacking("tools: tool use is not supported", {"tools"}) is None


def test_the_model_picker_lists_each_profiles_models() -> None:
    from tui.agent.cost.pricing import known_models
    from tui.agent.options import AgentOptions
    from tui.providers.models import model_choices

    options = AgentOptions(profiles=profiles_from({"local": {"base_url": "http://127.0.0.1:8080", "models": ["q"]}}))
    models, _ = model_choices(None, options, offline=True, known=known_models())
    assert ("local:q", "local:q  (http://127.0.0.1:8080)") in models and models[0][0].startswith("claude-")


def test_the_agent_tool_offers_profile_models() -> None:
    from tui.agent.agent_tool_text import agent_schema

    listed = agent_schema(profiles_from({"local": {"models": ["q"]}}))["properties"]["model"]
    assert listed["enum"][-1] == "local:q" and "inherit" in listed["enum"]
    free = agent_schema(profiles_from({"gw": {}}))["properties"]["model"]
    assert "enum" not in free and "NAME:MODEL" in free["description"]
