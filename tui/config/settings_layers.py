"""One settings file at a time into the settings being loaded (settings.py's `load_settings` reads the layers
in order): its scalars, permission rules, hooks, plugins, MCP, sandbox, LSP and provider tables, each problem one
sentence with its file and line."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.config import rule_files
from tui.config.paths import user_config_dir
from tui.config.plugin_settings import ENABLED_KEYS, PLUGIN_KEYS, read_enabled, read_marketplaces
from tui.config.rules import RULE_KINDS, RuleSource
from tui.config.settings_schema import ALIASES, SCALAR_TYPES, check_value, closest_key, find_line

if TYPE_CHECKING:
    from tui.config.settings import LoadedSettings

#: MCP keys (Claude Code's names for the project-server choices), read by tui/mcp/sources.py
MCP_KEYS = ("mcp_servers", "mcp", "enabledMcpjsonServers", "disabledMcpjsonServers", "enableAllProjectMcpServers")
#: the keys of Claude Code's settings.json files agent-tui reads here (the MCP ones in tui/mcp/sources.py)
CLAUDE_KEYS_READ = (
    "permissions",
    "apiKeyHelper",
    "hooks",
    "statusLine",
    "sandbox",
    "cleanupPeriodDays",
    "enabledPlugins",
    "extraKnownMarketplaces",
    "effortLevel",
)
#: how to trust a folder, after a sentence about something that waits for it
HOW_TO_TRUST = " (/trust in agent-tui, or trusted_folders in the user settings)"
#: modes a folder may not choose for itself before it is trusted
PERMISSIVE_MODES = {"acceptEdits", "bypassPermissions"}


class Loader:
    """Reads the layers in order into one Settings, collecting rules and problems."""

    def __init__(self, project_dir: Path, loaded: LoadedSettings) -> None:
        self.project_dir = Path(os.path.abspath(project_dir))
        self.values: dict[str, Any] = {}
        self.loaded = loaded  # empty: its Settings() holds the defaults

    def read(self, path: Path) -> tuple[dict[str, Any], str] | None:
        """The parsed file and its text; None (with a problem) when broken, silently when missing."""
        text, problem = rule_files.read_settings_text(path)
        if problem:
            self.loaded.problems.append(problem)
        if text is None:
            return None
        data, problem = rule_files.parse_settings_text(path, text)
        if problem:
            self.loaded.problems.append(problem)
            return None
        if not isinstance(data, dict):
            self.loaded.problems.append(f"{path}:1: the top level must be an object; the file was skipped.")
            return None
        self.loaded.files.append(path)
        return data, text

    def problem(self, path: Path, text: str, key: str, message: str, table: str | None = None) -> None:
        line = find_line(text, key, table, json_file=path.suffix == ".json")
        where = f"{path}:{line}" if line else str(path)
        shown = f"{table}.{key}" if table else key
        self.loaded.problems.append(f"{where}: key `{shown}`: {message}")

    def layer(self, path: Path, *, folder: bool, user: bool = False, claude: bool = False) -> None:
        """Merge one settings file; `folder` marks files that live in the project folder."""
        read = self.read(path)
        if read is None:
            return
        data, text = read
        if "disableAllHooks" in data:  # Claude Code's switch for every hook (a later layer may turn them on again)
            self.disable_hooks(path, text, data.pop("disableAllHooks"))
        base_dir = user_config_dir() if user else self.project_dir
        if claude:  # Claude Code's other keys (env, model, enabledPlugins …): named once, not silently dropped
            unused = [k for k in data if k not in CLAUDE_KEYS_READ and k not in MCP_KEYS and k != "$schema"]
            if unused:
                line = find_line(text, unused[0], None, json_file=True)
                self.loaded.problems.append(
                    f"{path}:{line}: not used by agent-tui: {', '.join(unused)}."
                    if line
                    else f"{path}: not used by agent-tui: {', '.join(unused)}."
                )
        for key, value in data.items():
            if claude and key not in CLAUDE_KEYS_READ:
                continue  # the MCP keys are read by tui/mcp/sources.py
            if key == "sandbox":
                from tui.config.sandbox_settings import merge as merge_sandbox

                merge_sandbox(self, path, text, value, folder=folder, base_dir=base_dir)
            elif key == "permissions":
                self.permissions(path, text, value, folder, base_dir)
            elif key == "lsp":
                from tui.config.lsp_settings import merge as merge_lsp

                merge_lsp(self, path, text, value, folder=folder)
            elif key == "providers":
                from tui.config.provider_settings import merge as merge_providers

                merge_providers(self, path, text, value, folder=folder)
            elif key == "hooks":
                self.hooks(path, text, value, folder)
            elif key in ("statusLine", "status_line"):
                self.status_line(path, text, key, value, folder)
            elif key in ("trusted_folders", "declined_folders", "projects") and user:
                self.user_only(path, text, key, value)
            elif key in MCP_KEYS:
                self.loaded.mcp_seen = True  # read by tui/mcp/sources.py
            elif key in PLUGIN_KEYS:
                self.plugins(path, text, key, value, folder, base_dir)
            elif key in SCALAR_TYPES or key in ALIASES:
                self.scalar(path, text, ALIASES.get(key, key), key, value, folder)
            elif key in ("trusted_folders", "declined_folders", "projects"):
                self.problem(path, text, key, "only the user settings may set this; ignored.")
            else:
                known = [
                    *SCALAR_TYPES,
                    *MCP_KEYS,
                    *PLUGIN_KEYS,
                    "permissions",
                    "hooks",
                    "statusLine",
                    "sandbox",
                    "providers",
                    "lsp",
                    "trusted_folders",
                    "declined_folders",
                    "projects",
                ]
                self.problem(path, text, key, f"unknown key{closest_key(key, known)}; ignored.")

    def scalar(
        self, path: Path, text: str, name: str, key: str, value: Any, folder: bool, table: str | None = None
    ) -> None:
        kind, nullable = SCALAR_TYPES[name]
        checked, problem = check_value(kind, value, nullable)
        if problem:
            self.problem(path, text, key, f"{problem}; ignored.", table)
        elif name == "permission_mode" and folder and checked in PERMISSIVE_MODES and not self.loaded.trusted:
            self.problem(path, text, key, f"`{checked}` is ignored until you trust this folder{HOW_TO_TRUST}.", table)
            self.loaded.withheld.append((key, str(checked), path))
        elif name == "api_key_helper" and folder and not self.loaded.trusted:  # it runs code from the folder
            self.problem(
                path, text, key, f"a key helper from this folder is ignored until you trust it{HOW_TO_TRUST}.", table
            )
            self.loaded.withheld.append((key, str(checked), path))
        else:
            self.values[name] = checked

    def plugins(self, path: Path, text: str, key: str, value: Any, folder: bool, base_dir: Path) -> None:
        """`enabled_plugins` or `extra_known_marketplaces`: kept as read, checked entry by entry."""
        if key in ENABLED_KEYS:
            choices, problems = read_enabled(value, path, folder)
            self.loaded.plugin_choices += choices
        else:
            entries, problems = read_marketplaces(value, path, folder, base_dir)
            self.loaded.marketplaces += entries
        for problem in problems:
            self.problem(path, text, key, problem)

    def disable_hooks(self, path: Path, text: str, value: Any) -> None:
        if not isinstance(value, bool):
            self.problem(path, text, "disableAllHooks", "expected true or false; ignored.")
        else:
            self.loaded.hooks_disabled_by = path if value else None

    def hooks(self, path: Path, text: str, block: Any, folder: bool) -> None:
        from tui.config.hooks_config import parse_hooks_block  # only when a file has hooks

        specs, problems = parse_hooks_block(path, text, block, project=folder)
        self.loaded.hooks.extend(specs)
        self.loaded.problems.extend(problems)

    def status_line(self, path: Path, text: str, key: str, value: Any, folder: bool) -> None:
        """`statusLine = {type = "command", command = "…"}` (Claude Code's shape) or a plain command string."""
        command = value.get("command") if isinstance(value, dict) else value
        kind = value.get("type", "command") if isinstance(value, dict) else "command"
        if kind != "command" or not isinstance(command, str) or not command.strip():
            self.problem(path, text, key, 'expected a table with type = "command" and command = "…"; ignored.')
        elif folder and not self.loaded.trusted:  # it runs code from the folder
            self.problem(
                path, text, key, f"a status line command from this folder is ignored until you trust it{HOW_TO_TRUST}."
            )
            self.loaded.withheld.append((key, command, path))
        else:
            self.values["status_line"] = command

    def permissions(self, path: Path, text: str, table: Any, folder: bool, base_dir: Path) -> None:
        if not isinstance(table, dict):
            self.problem(path, text, "permissions", "expected a table of allow/ask/deny lists; ignored.")
            return
        for key, value in table.items():
            if key in RULE_KINDS:
                self.rule_list(path, text, key, value, folder, base_dir, "permissions")
            elif key == "defaultMode":
                self.scalar(path, text, "permission_mode", key, value, folder, "permissions")
            elif key != "additionalDirectories":
                self.problem(
                    path,
                    text,
                    key,
                    f"unknown key{closest_key(key, [*RULE_KINDS, 'defaultMode'])}; ignored.",
                    "permissions",
                )

    def rule_list(
        self,
        path: Path,
        text: str,
        kind: str,
        value: Any,
        folder: bool,
        base_dir: Path,
        table: str,
        source: str | None = None,
    ) -> None:
        rules, problem = check_value("rules", value)
        if problem:
            self.problem(path, text, kind, f"{problem}; ignored.", table)
            return
        counts = not (folder and kind == "allow" and not self.loaded.trusted)
        for rule in rules:
            try:
                self.loaded.rules.append(RuleSource(rule, kind, source or str(path), counts, base_dir))  # type: ignore[arg-type]
            except ValueError as exc:
                self.problem(path, text, kind, f"{exc} Ignored.", table)

    def user_only(self, path: Path, text: str, key: str, value: Any) -> None:
        if key in ("trusted_folders", "declined_folders"):
            folders, problem = check_value("rules", value)
            if problem:
                self.problem(path, text, key, problem.replace("strings", "folder paths") + "; ignored.")
            else:
                setattr(self.loaded.settings, key, list(folders))
            return
        if not isinstance(value, dict):
            self.problem(path, text, key, "expected a table of project folders; ignored.")
            return
        for folder in dict.fromkeys([str(self.project_dir), os.path.realpath(self.project_dir)]):
            mine = value.get(folder)
            if not isinstance(mine, dict):
                continue
            self.loaded.mcp_seen = self.loaded.mcp_seen or "mcp_servers" in mine
            table = f'projects."{folder}"'
            for kind in RULE_KINDS:
                if kind in mine:
                    self.rule_list(path, text, kind, mine[kind], False, self.project_dir, table, f"{path} [{table}]")
