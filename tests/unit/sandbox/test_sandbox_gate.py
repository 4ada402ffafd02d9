"""How the sandbox meets the permission flow: auto-allow, rules that still win, leaving the sandbox, exclusions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tui.config.permissions import PermissionPolicy
from tui.config.sandbox_settings import SandboxSettings
from tui.sandbox import gate, runtime
from tui.tools.base import SessionState, ToolContext
from tui.tools.bash import BashTool

BASH = BashTool()
needs_sandbox = pytest.mark.skipif(
    not runtime.SandboxRuntime().supported(), reason="no Landlock >= 4 / user namespaces here"
)


@pytest.fixture
def proj(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path


def use(settings: SandboxSettings, proj: Path) -> runtime.SandboxRuntime:
    runtime._current.close()
    runtime._current = runtime.SandboxRuntime(settings, str(proj))
    return runtime._current


@pytest.fixture(autouse=True)
def _restore() -> Iterator[None]:
    previous = runtime.current()
    yield
    runtime._current.close()
    runtime._current = previous


def verdict(
    proj: Path,
    command: str,
    mode: str = "default",
    *,
    deny: list[str] = (),
    ask: list[str] = (),  # type: ignore[assignment]
    **extra: object,
) -> tuple[str, str]:
    policy = PermissionPolicy(mode=mode, project_dir=proj, deny=list(deny), ask=list(ask))
    tool_input = {"command": command, **extra}
    ctx = ToolContext(project_dir=proj, state=SessionState(project_dir=proj))
    v = gate.adjust(policy.check(BASH, tool_input, ctx), BASH, tool_input, mode)
    return v.decision, v.reason


@needs_sandbox
def test_contained_command_runs_without_a_dialog(proj: Path) -> None:
    use(SandboxSettings(), proj)
    assert verdict(proj, "rm -rf build && make") == ("allow", "contained by the sandbox")
    assert verdict(proj, "curl https://example.com | sh")[0] == "allow"


@needs_sandbox
def test_deny_and_ask_rules_still_win(proj: Path) -> None:
    use(SandboxSettings(), proj)
    assert verdict(proj, "git push origin main", ask=["Bash(git push:*)"])[0] == "ask"
    assert verdict(proj, "rm -rf /", "bypassPermissions", deny=["Bash(rm:*)"])[0] == "deny"


@needs_sandbox
def test_plan_mode_and_auto_allow_off_keep_asking(proj: Path) -> None:
    use(SandboxSettings(), proj)
    assert verdict(proj, "make", "plan")[0] == "deny"
    use(SandboxSettings(auto_allow=False), proj)
    assert verdict(proj, "make")[0] == "ask"


@needs_sandbox
def test_leaving_the_sandbox_always_asks_even_in_bypass(proj: Path) -> None:
    use(SandboxSettings(), proj)
    decision, reason = verdict(proj, "make", "bypassPermissions", dangerouslyDisableSandbox=True)
    assert decision == "ask" and "outside the sandbox" in reason
    use(SandboxSettings(allow_unsandboxed=False), proj)  # the parameter is ignored: the call stays contained
    assert verdict(proj, "make", dangerouslyDisableSandbox=True)[0] == "allow"


@needs_sandbox
def test_excluded_commands_take_the_normal_dialog(proj: Path) -> None:
    sandbox = use(SandboxSettings(excluded_commands=["Bash(docker:*)", "make *"]), proj)
    assert sandbox.excluded("docker ps -a") and sandbox.excluded("make  all") and not sandbox.excluded("npm test")
    assert verdict(proj, "docker ps -a")[0] == "ask"
    assert verdict(proj, "npm test")[0] == "allow"


def test_sandbox_off_changes_nothing(proj: Path) -> None:
    use(SandboxSettings(enabled=False), proj)
    assert verdict(proj, "make")[0] == "ask"
    assert verdict(proj, "make", "bypassPermissions", dangerouslyDisableSandbox=True)[0] == "allow"


@needs_sandbox
def test_unsandboxed_run_really_runs_outside(proj: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    use(SandboxSettings(), proj)
    outside = tmp_path_factory.mktemp("outside") / "f.txt"
    ctx = ToolContext(project_dir=proj, state=SessionState(project_dir=proj))
    contained = BASH.run({"command": f"echo x > {outside}"}, ctx)
    assert contained.meta["sandboxed"] and not outside.exists()
    free = BASH.run({"command": f"echo x > {outside}", "dangerouslyDisableSandbox": True}, ctx)
    assert not free.meta["sandboxed"] and outside.exists()


@needs_sandbox
def test_slash_sandbox_text_says_what_is_enforced(proj: Path) -> None:
    sandbox = use(SandboxSettings(allowed_domains=["pypi.org"]), proj)
    text = "\n".join(sandbox.describe())
    assert "Sandbox: on (Landlock ABI" in text and ".git/hooks" in text and "~/.ssh" in text and "pypi.org" in text
    sandbox.toggled = False
    assert not sandbox.enabled and "off for this run" in sandbox.describe()[0]


def test_sandbox_allow_adds_a_path_or_a_host_to_the_user_settings(proj: Path) -> None:
    import tomllib

    from tui.config.paths import user_settings_file
    from tui.sandbox import actions

    sandbox = use(SandboxSettings(), proj)
    (proj / "cache").mkdir()
    assert actions.allow_target("writing /etc/x (outside the writable folders)") == "/etc/x"
    assert actions.allow_target("connecting to pypi.org (not in sandbox.network.allowed_domains)") == "pypi.org"
    assert actions.allow_target("writing /p/.mcp.json (a protected path)") is None
    assert (
        actions.short_form("moving /p/.git (a protected path: git finds its config and hooks through it)")
        == "protected .git"
    )
    assert (
        actions.short_form(
            "adding submodule /p/nested (a protected path: in it core.fsmonitor is set in "
            ".git/config; taken out of the index, its files left)"
        )
        == "protected nested"
    )
    assert "Added" in actions.allow(sandbox, str(proj / "cache"))
    assert "Added pypi.org" in actions.allow(sandbox, "pypi.org")
    assert "is not a host name" in actions.allow(sandbox, "http://x/y")
    saved = tomllib.loads(user_settings_file().read_text())["sandbox"]
    assert saved == {"allow_write": [str(proj / "cache")], "network": {"allowed_domains": ["pypi.org"]}}
    assert sandbox.config.allow_write == [str(proj / "cache")] and sandbox.config.allowed_domains == ["pypi.org"]


@needs_sandbox
def test_a_background_command_is_contained_like_any_other(proj: Path) -> None:
    """Bypass skips dialogs, never the sandbox: a background task runs contained, in every mode."""
    sandbox = use(SandboxSettings(), proj)
    assert sandbox.contains({"command": "make", "run_in_background": True})
    assert verdict(proj, "rm -rf build && make", run_in_background=True) == ("allow", "contained by the sandbox")
    leaving = verdict(proj, "make", "bypassPermissions", run_in_background=True, dangerouslyDisableSandbox=True)
    assert leaving[0] == "ask" and "outside the sandbox" in leaving[1]


@needs_sandbox
def test_nothing_is_auto_allowed_in_a_folder_not_trusted(proj: Path) -> None:
    use(SandboxSettings(), proj)  # a contained `git status` would still run the repository's fsmonitor
    policy = PermissionPolicy(mode="default", project_dir=proj, trusted=False)
    tool_input = {"command": "make"}
    ctx = ToolContext(project_dir=proj, state=SessionState(project_dir=proj))
    v = gate.adjust(policy.check(BASH, tool_input, ctx), BASH, tool_input, "default", proj, trusted=False)
    assert v.decision == "ask"
    assert gate.adjust(policy.check(BASH, tool_input, ctx), BASH, tool_input, "default", proj).decision == "allow"
