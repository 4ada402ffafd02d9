"""The [sandbox] settings and Claude Code's sandbox block: merging, trust, and one clear sentence per bad value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui.config.sandbox_settings import host_problem
from tui.config.settings import load_settings, trust_folder, user_config_dir


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    path = tmp_path / "proj"
    (path / ".agent-tui").mkdir(parents=True)
    (path / ".claude").mkdir()
    return path


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_defaults_on_with_the_secrets_list(proj: Path) -> None:
    sandbox = load_settings(proj).settings.sandbox
    assert sandbox.enabled is None and sandbox.auto_allow and sandbox.allow_unsandboxed
    home = str(proj.parent / "home")
    assert {
        f"{home}/.ssh",
        f"{home}/.aws",
        f"{home}/.gnupg",
        f"{home}/.config/gcloud",
        f"{home}/.kube",
        f"{home}/.netrc",
        f"{home}/.docker/config.json",
    } <= set(sandbox.deny_read)
    assert str(user_config_dir() / "credentials.json") in sandbox.deny_read


def test_user_toml_keys(proj: Path, tmp_path: Path) -> None:
    (tmp_path / "cache").mkdir()
    write(
        user_config_dir() / "settings.toml",
        f"""
[sandbox]
enabled = false
auto_allow = false
excluded_commands = ["docker *"]
allow_write = ["{tmp_path / "cache"}"]
deny_read = ["~/private"]
[sandbox.network]
allowed_domains = ["pypi.org", "*.github.com", "localhost:8080"]
""",
    )
    loaded = load_settings(proj)
    s = loaded.settings.sandbox
    assert loaded.problems == []
    assert (s.enabled, s.auto_allow, s.excluded_commands) == (False, False, ["docker *"])
    assert s.allow_write == [str(tmp_path / "cache")] and str(tmp_path / "home" / "private") in s.deny_read
    assert s.allowed_domains == ["pypi.org", "*.github.com", "localhost:8080"]


def test_claude_code_block_is_mapped(proj: Path) -> None:
    trust_folder(proj)
    (proj / "build").mkdir()
    write(
        proj / ".claude" / "settings.json",
        json.dumps(
            {
                "sandbox": {
                    "enabled": True,
                    "autoAllowBashIfSandboxed": False,
                    "allowUnsandboxedCommands": False,
                    "excludedCommands": ["Bash(docker:*)"],
                    "network": {"allowedDomains": ["registry.npmjs.org"]},
                    "filesystem": {"allowWrite": ["build"], "denyRead": ["~/.secret"], "denyWrite": ["vendor"]},
                }
            }
        ),
    )
    loaded = load_settings(proj)
    s = loaded.settings.sandbox
    assert loaded.problems == []
    assert (s.enabled, s.auto_allow, s.allow_unsandboxed) == (True, False, False)
    assert s.excluded_commands == ["Bash(docker:*)"] and s.allowed_domains == ["registry.npmjs.org"]
    assert s.allow_write == [str(proj / "build")] and s.deny_write == [str(proj / "vendor")]


def test_bad_values_each_get_one_sentence_naming_file_and_key(proj: Path) -> None:
    write(
        user_config_dir() / "settings.toml",
        f"""
[sandbox]
allow_write = ["/no/such/folder"]
deny_read = ["{proj.parent}"]
auto_allow = "yes"
[sandbox.network]
allowed_domains = ["https://pypi.org/simple", "bad host", "a..b", "ok.org"]
""",
    )
    loaded = load_settings(proj)
    problems = "\n".join(loaded.problems)
    path = str(user_config_dir() / "settings.toml")
    assert f"{path}:3: key `sandbox.allow_write`: `/no/such/folder` does not exist; ignored." in problems
    assert f"{path}:4: key `sandbox.deny_read`: `{proj.parent}` covers the project folder itself" in problems
    assert f"{path}:5: key `sandbox.auto_allow`: expected true or false; ignored." in problems
    assert "key `sandbox.network.allowed_domains`: `https://pypi.org/simple` is not a host name" in problems
    assert "`bad host` is not a host name" in problems and "`a..b` is not a host name" in problems
    assert len(loaded.problems) == 6 and "Traceback" not in problems
    assert loaded.settings.sandbox.allowed_domains == ["ok.org"]  # the rest is kept


def test_untrusted_folder_cannot_loosen_its_own_sandbox(proj: Path) -> None:
    write(
        proj / ".agent-tui" / "settings.toml",
        """
[sandbox]
enabled = false
excluded_commands = ["curl *"]
deny_read = ["~/.extra"]
[sandbox.network]
allowed_domains = ["evil.example"]
""",
    )
    loaded = load_settings(proj)
    s = loaded.settings.sandbox
    assert s.enabled is None and s.excluded_commands == [] and s.allowed_domains == []
    assert any(
        p.endswith("`sandbox.enabled`: a folder's own sandbox exceptions count only once you trust it; ignored.")
        for p in loaded.problems
    )
    assert any(p.endswith(".extra") for p in s.deny_read)  # tightening always counts
    trust_folder(proj)
    s = load_settings(proj).settings.sandbox
    assert s.enabled is False and s.allowed_domains == ["evil.example"]


@pytest.mark.parametrize(
    "pattern", ["pypi.org", "*.github.com", "localhost", "127.0.0.1", "host.example:8443", "Pypi.Org."]
)
def test_host_patterns_accepted(pattern: str) -> None:
    assert host_problem(pattern) is None


@pytest.mark.parametrize(
    "pattern", ["http://x.org", "x.org/path", "a b", "-x.org", "x..org", "x.org:0", "x.org:http", ""]
)
def test_host_patterns_refused(pattern: str) -> None:
    assert host_problem(pattern)
