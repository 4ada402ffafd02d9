"""Settings: the typed model and the layered loader (user, project, local, flags).

Later layers win for scalar values; permission rule lists merge. A broken file or a bad
key becomes one line in `LoadedSettings.problems` ("path:line: key `x`: expected …")
and loading goes on: the app always starts. A folder's own allow rules (and a permissive
`defaultMode`) count only once the user has trusted the folder; its deny and ask rules
always count.
"""

from __future__ import annotations

import os
import re
from dataclasses import field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.config import rule_files
from tui.config.lean_dataclass import lean_dataclass
from tui.config.lsp_settings import LspConfig
from tui.config.paths import (
    claude_settings_files,
    local_settings_file,
    project_settings_file,
    user_config_dir,
    user_data_dir,
    user_settings_file,
)
from tui.config.plugin_settings import (
    MarketplaceEntry,
    PluginChoice,
)
from tui.config.rules import RULE_KINDS, RuleSource
from tui.config.sandbox_settings import SandboxSettings
from tui.config.settings_layers import Loader
from tui.config.settings_schema import (
    ALIASES,
    SCALAR_TYPES,
    check_value,
    closest_key,
)

if TYPE_CHECKING:  # the permission engine (~4 ms of imports) is not needed to read settings
    from tui.config.permissions import PermissionPolicy

__all__ = [
    "DEFAULT_MODEL",
    "LoadedSettings",
    "Settings",
    "build_policy",
    "is_trusted",
    "load_settings",
    "save_user_setting",
    "trust_folder",
    "user_config_dir",
    "user_data_dir",
]

DEFAULT_MODEL = "claude-sonnet-5-5"


@lean_dataclass
class Settings:
    """Every setting agent-tui reads, with its default."""

    model: str = DEFAULT_MODEL
    #: max_tokens sent with each request (None: the model's output limit)
    max_tokens: int | None = None
    #: run consecutive read-only tool calls in parallel
    parallel_tools: bool = True
    #: subagents (the Agent tool) running at once, and how deep they may nest (0: no Agent tool)
    max_parallel_subagents: int = 10
    max_subagent_depth: int = 3
    #: permission mode: default | acceptEdits | plan | bypassPermissions
    permission_mode: str = "default"
    #: the rules that count, merged from every layer (the full list is LoadedSettings.rules)
    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    ask: list[str] = field(default_factory=list)
    #: loop boundaries
    max_turns: int | None = None
    max_budget_tokens: int | None = None
    #: retries of failed API calls (the first attempt not counted)
    max_retries: int = 4
    #: seconds without a byte from the stream before it counts as stalled
    stream_idle_timeout: float = 90.0
    theme: str = "agent-tui-dark"
    #: automatic compaction at this share of the context window
    auto_compact_threshold: float = 0.8
    #: what reaching that share does: "auto" compacts, "ask" asks first, "off" never compacts on its own
    compaction: str = "auto"
    #: days a session's checkpoints are kept after it was last used (Claude Code's cleanupPeriodDays)
    cleanup_period_days: int = 30
    #: provider (anthropic | bedrock | vertex), model id overrides, key helper command, model for summaries
    provider: str | None = None
    model_ids: dict[str, str] = field(default_factory=dict)
    api_key_helper: str | None = None
    small_fast_model: str | None = None
    #: WebSearch (the API's server tool): searches per request and domain lists (allowed wins over blocked)
    web_search_max_uses: int = 8
    web_search_allowed_domains: list[str] = field(default_factory=list)
    web_search_blocked_domains: list[str] = field(default_factory=list)
    #: a background task's output file keeps its newest part past this many MB (0: no cap)
    background_output_limit_mb: int = 256
    #: the prompt's keys: "vim" for vi keys (insert and normal modes; /vim toggles it), "normal" otherwise
    editor_mode: str = "normal"
    #: an attached image's long edge is scaled down to this many pixels (64 to 8000; 1568 is what the API
    #: answers fastest for)
    image_max_edge: int = 1568
    #: `output_config.effort` for the session (Claude Code's `effortLevel`); --effort and /effort win over it
    effort: str | None = None
    #: `statusLine`: a command whose first stdout line shows in the footer (a folder's only once trusted)
    status_line: str | None = None
    #: folders whose own allow rules count (read from the user settings only)
    trusted_folders: list[str] = field(default_factory=list)
    #: folders whose trust the user declined when asked (not asked again; user settings only)
    declined_folders: list[str] = field(default_factory=list)
    #: the Bash sandbox (`[sandbox]`, Claude Code's `sandbox` block)
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    #: `[lsp]`: language servers and their switches (config/lsp_settings.py)
    lsp: LspConfig = field(default_factory=LspConfig)
    #: `[providers.NAME]` profiles as checked (config/provider_settings.py), and the file that set each last
    providers: dict[str, dict[str, Any]] = field(default_factory=dict)
    provider_sources: dict[str, str] = field(default_factory=dict)
    #: a notification when a dialog opens or a long turn ends while the terminal is not focused:
    #: auto (the terminal's own kind, else the bell) | osc | bell | off
    notifications: str = "auto"
    #: a turn that ran longer than this many seconds notifies when it ends
    notify_after: float = 10.0


@lean_dataclass
class LoadedSettings:
    """The merged settings, what went wrong while reading them, and every rule with its origin."""

    settings: Settings
    problems: list[str] = field(default_factory=list)
    rules: list[RuleSource] = field(default_factory=list)
    project_dir: Path = field(default_factory=Path.cwd)
    trusted: bool = False
    #: the settings files that exist and were read, in layer order
    files: list[Path] = field(default_factory=list)
    #: some file has MCP keys (tui/mcp is imported only then, or with --mcp-config or a .mcp.json)
    mcp_seen: bool = False
    #: hook handlers of every file (tui.config.hooks_config.HookSpec), read only when a file has `hooks`
    hooks: list[Any] = field(default_factory=list)
    #: `disableAllHooks` (Claude Code's key): the file that set it true last, else None
    hooks_disabled_by: Path | None = None
    #: values the folder's own files set that wait for trust: (key as written, value, file)
    withheld: list[tuple[str, str, Path]] = field(default_factory=list)
    #: `enabled_plugins` / `enabledPlugins` entries of every file, in layer order (the last one of an id wins)
    plugin_choices: list[PluginChoice] = field(default_factory=list)
    #: `extra_known_marketplaces` / `extraKnownMarketplaces` entries of every file, in layer order
    marketplaces: list[MarketplaceEntry] = field(default_factory=list)

    @property
    def plugins_seen(self) -> bool:
        """Some file names a plugin or a marketplace (tui/plugins is imported only then)."""
        return bool(self.plugin_choices or self.marketplaces)


def is_trusted(project_dir: Path, settings: Settings) -> bool:
    """Whether the user trusted `project_dir` (or a folder above it) in the user settings."""
    here = Path(os.path.realpath(project_dir))
    for folder in settings.trusted_folders:
        root = Path(os.path.realpath(os.path.expanduser(folder)))
        if here == root or root in here.parents:
            return True
    return False


def trust_folder(project_dir: Path) -> Path:
    """Add `project_dir` to `trusted_folders` in the user settings; returns the file written."""
    return _remember_folder("trusted_folders", project_dir)


def decline_folder(project_dir: Path) -> Path:
    """Record that the user declined to trust `project_dir`, so the app does not ask again."""
    return _remember_folder("declined_folders", project_dir)


def _remember_folder(key: str, project_dir: Path) -> Path:
    path = user_settings_file()
    data = rule_files.read_settings_file(path)
    folders = data.setdefault(key, [])
    if not isinstance(folders, list):
        raise rule_files.SettingsWriteError(f"{path}: `{key}` is not a list.")
    folder = os.path.realpath(project_dir)
    if folder not in folders:
        folders.append(folder)
        rule_files.write_settings_file(path, data)
    return path


def untrusted_allow_rules(loaded: LoadedSettings) -> list[RuleSource]:
    """The folder's own allow rules that do not count because the folder is not trusted."""
    return [r for r in loaded.rules if r.kind == "allow" and not r.counts]


def problem_for_display(problem: str, project_dir: Path) -> str:
    """A problem for a narrow toast: its file shortened (project-relative or `~`), `path:line:col` on a line of its own.

    A toast wraps at word boundaries and at hyphens, which would split the location a user
    copies into an editor; a short first line keeps it whole.
    """
    home = os.path.expanduser("~")
    for prefix, shown in ((str(project_dir), ""), (home, "~/")):
        if prefix not in ("", "/") and problem.startswith(prefix + os.sep):
            problem = shown + problem[len(prefix) + 1 :]
            break
    match = re.match(r"(\S+?(?::\d+){1,2}): (.*)", problem, re.S)
    return f"{match.group(1)}\n{match.group(2)}" if match else problem


def should_ask_trust(loaded: LoadedSettings) -> bool:
    """Ask once per folder: when it has allow rules of its own and the user has not answered yet."""
    if loaded.trusted or not untrusted_allow_rules(loaded):
        return False
    here = os.path.realpath(loaded.project_dir)
    return here not in {os.path.realpath(os.path.expanduser(f)) for f in loaded.settings.declined_folders}


def save_user_setting(key: str, value: Any) -> Path:
    """Set one top-level setting in the user settings file, keeping every other key.

    Raises SettingsWriteError (a ValueError with one sentence) for an unknown key, a value
    of the wrong type, or a user settings file that does not parse.
    """
    key = ALIASES.get(key, key)
    if key not in SCALAR_TYPES:
        raise rule_files.SettingsWriteError(f"`{key}` is not a setting{closest_key(key, list(SCALAR_TYPES))}.")
    kind, nullable = SCALAR_TYPES[key]
    checked, problem = check_value(kind, value, nullable)
    if problem:
        raise rule_files.SettingsWriteError(f"Setting `{key}`: {problem}.")
    path = user_settings_file()
    data = rule_files.read_settings_file(path)
    if checked is None:
        data.pop(key, None)
    else:
        data[key] = checked
    rule_files.write_settings_file(path, data)
    return path


def load_settings(project_dir: Path, cli: dict[str, Any] | None = None, extra: str | None = None) -> LoadedSettings:
    """Read every layer for `project_dir`, then `extra` (--settings), then `cli` (setting name -> value, None = unset).

    Never raises: problems are collected in `.problems` and the defaults fill the gaps.
    """
    loader = Loader(project_dir, LoadedSettings(Settings(), project_dir=Path(os.path.abspath(project_dir))))
    loaded = loader.loaded
    loader.layer(user_settings_file(), folder=False, user=True)
    loaded.trusted = is_trusted(loader.project_dir, loaded.settings)
    for claude_file in claude_settings_files(loader.project_dir):
        loader.layer(claude_file, folder=True, claude=True)
    loader.layer(project_settings_file(loader.project_dir), folder=True)
    loader.layer(local_settings_file(loader.project_dir), folder=True)
    if extra is not None:
        from tui.config.extra_settings import layer_extra

        layer_extra(loader, extra)
    for key, value in (cli or {}).items():
        if value is None:
            continue
        name = ALIASES.get(key, key)
        if name not in SCALAR_TYPES:
            loaded.problems.append(f"command line: unknown setting `{key}`{closest_key(key, list(SCALAR_TYPES))}.")
            continue
        checked, problem = check_value(SCALAR_TYPES[name][0], value, SCALAR_TYPES[name][1])
        if problem:
            loaded.problems.append(f"command line: `{key}`: {problem}.")
        else:
            loader.values[name] = checked
    known = {f.name for f in fields(Settings)}
    for name, value in loader.values.items():
        if name in known:
            setattr(loaded.settings, name, value)
    for kind in RULE_KINDS:
        setattr(loaded.settings, kind, [r.rule for r in loaded.rules if r.kind == kind and r.counts])
    return loaded


def build_policy(
    loaded: LoadedSettings,
    project_dir: Path,
    mode: str | None,
    cli_allowed: list[str],
    cli_disallowed: list[str],
) -> PermissionPolicy:
    """The policy for a session: the loaded rules plus the command line's, in `mode` (or the settings')."""
    from tui.config.permissions import PermissionPolicy

    return PermissionPolicy(
        mode=mode or loaded.settings.permission_mode,
        allow=list(cli_allowed),
        deny=list(cli_disallowed),
        project_dir=project_dir,
        rules=list(loaded.rules),
        trusted=loaded.trusted,
    )
