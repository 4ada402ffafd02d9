"""The app asks once per folder whether to trust its own allow rules."""

from __future__ import annotations

from pathlib import Path

from tui.config.settings import decline_folder, load_settings, should_ask_trust, trust_folder, untrusted_allow_rules


def _project_with_allow_rule(tmp_path: Path) -> Path:
    project = tmp_path / "repo"
    (project / ".agent-tui").mkdir(parents=True)
    (project / ".agent-tui" / "settings.toml").write_text('[permissions]\nallow = ["Bash(rm *)"]\n')
    return project


def test_a_folder_with_its_own_allow_rules_is_asked_about(tmp_path):
    project = _project_with_allow_rule(tmp_path)
    loaded = load_settings(project)
    assert [r.rule for r in untrusted_allow_rules(loaded)] == ["Bash(rm *)"]
    assert should_ask_trust(loaded)


def test_trusting_makes_the_rules_count_and_stops_asking(tmp_path):
    project = _project_with_allow_rule(tmp_path)
    trust_folder(project)
    loaded = load_settings(project)
    assert loaded.trusted and not should_ask_trust(loaded)
    assert untrusted_allow_rules(loaded) == []


def test_declining_is_remembered_and_the_rules_still_do_not_count(tmp_path):
    project = _project_with_allow_rule(tmp_path)
    decline_folder(project)
    loaded = load_settings(project)
    assert not should_ask_trust(loaded)
    assert not loaded.trusted and untrusted_allow_rules(loaded)


def test_a_folder_without_allow_rules_is_not_asked_about(tmp_path):
    assert not should_ask_trust(load_settings(tmp_path))
