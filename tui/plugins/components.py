"""What one installed plugin brings, read from its folder with the loaders agent-tui already has.

Commands (`commands/**.md` -> `/plugin:name`), skills (`skills/<name>/SKILL.md` -> `/plugin:name`), agents
(`agents/**.md` -> `plugin:name`), hooks (`hooks/hooks.json`, `${CLAUDE_PLUGIN_ROOT}` replaced) and MCP servers
(`.mcp.json` -> `plugin_<plugin>_<server>`), plus the extra paths or inline values its manifest gives. A part
that cannot be used is one sentence naming the plugin and the file; the other parts still load.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.config.bounded_read import BoundedReadError, load_json_file, parse_json_text, read_bounded_text

from .manifest import PluginManifest

DEFAULT_FOLDERS = {"commands": "commands", "agents": "agents", "skills": "skills"}
DEFAULT_HOOKS = Path("hooks") / "hooks.json"
DEFAULT_MCP = Path(".mcp.json")
ROOT_VARIABLE = "${CLAUDE_PLUGIN_ROOT}"


@dataclass
class PluginParts:
    """One plugin's commands and skills, agents, hooks and MCP servers, and what could not be used."""

    commands: list[Any] = field(default_factory=list)  # tui.hooks.commands.CustomCommand
    agents: list[Any] = field(default_factory=list)  # tui.config.agent_files.AgentDefinition
    hooks: list[Any] = field(default_factory=list)  # tui.hooks.config.HookSpec
    mcp_servers: list[Any] = field(default_factory=list)  # tui.mcp.config.McpServerConfig
    #: language servers (`.lsp.json`, `lspServers`): (name, Claude Code's table with paths filled in, file)
    lsp_servers: list[tuple[str, dict[str, Any], str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def counts(self) -> str:
        """ "2 commands, 1 skill, 1 agent, 1 hook, 1 MCP server" ("nothing" when empty)."""
        from tui.text.wording import plural

        skills = sum(c.kind == "skill" for c in self.commands)
        parts = [
            (len(self.commands) - skills, "command"),
            (skills, "skill"),
            (len(self.agents), "agent"),
            (len(self.hooks), "hook"),
            (len(self.mcp_servers), "MCP server"),
        ]
        return ", ".join(plural(n, noun) for n, noun in parts if n) or "nothing agent-tui loads"


class _Reader:
    """Reads the parts of the plugin in `root` for `plugin_id`; `gated`: only the folder's trust lets its code run."""

    def __init__(self, plugin_id: str, root: Path, manifest: PluginManifest, gated: bool) -> None:
        self.plugin_id, self.root, self.manifest, self.gated = plugin_id, root, manifest, gated
        self.name = manifest.name
        self.parts = PluginParts()

    def say(self, text: str) -> None:
        self.parts.problems.append(f"Plugin {self.plugin_id}: {text}")

    def inside(self, value: Any, key: str) -> Path | None:
        """A manifest path resolved inside the plugin folder; None (with a sentence) when it is not usable."""
        if not isinstance(value, str) or not value:
            self.say(f'`{key}` entries must be paths such as "./{key}"; {value!r} was skipped.')
            return None
        path = (self.root / value).resolve()
        if path != self.root.resolve() and self.root.resolve() not in path.parents:
            self.say(f"`{key}` path {value} leaves the plugin folder; it was skipped.")
            return None
        if not path.exists():
            self.say(f"the {key} path {value} in its manifest does not exist; it was skipped.")
            return None
        return path

    def extra_paths(self, key: str) -> list[Path]:
        value = self.manifest.components.get(key)
        if value is None or (isinstance(value, dict) and key in ("commands",)):
            return []
        return [p for v in (value if isinstance(value, list) else [value]) if (p := self.inside(v, key)) is not None]

    def folders(self, key: str) -> list[Path]:
        default = self.root / DEFAULT_FOLDERS[key]
        found = [default] if default.is_dir() else []
        return found + [p for p in self.extra_paths(key) if p not in found]

    # --- commands and skills ---------------------------------------------------------------

    def command(self, name: str, path: Path, kind: str) -> None:
        from tui.hooks.commands import build_command, read_markdown

        full = f"{self.name}:{name}"
        problems: list[str] = []
        try:
            fields, body = read_markdown(path, self.root, problems=problems)
            command = build_command(full, path, "project" if self.gated else "plugin", fields, body, kind)
        except ValueError as exc:
            self.say(f"{path} {exc}; the {kind} /{full} was skipped.")
            return
        for problem in problems:
            self.say(problem)
        self.parts.commands.append(dataclasses.replace(command, plugin=self.plugin_id, plugin_root=str(self.root)))

    def commands(self) -> None:
        from tui.hooks.commands import command_name

        for folder in self.folders("commands"):
            files = [folder] if folder.is_file() else sorted(p for p in folder.rglob("*.md") if p.is_file())
            for path in files:
                relative = path.relative_to(folder).with_suffix("") if folder.is_dir() else Path(path.stem)
                if relative.name.upper() == "SKILL" and len(relative.parts) > 1:  # a skill kept under commands/
                    self.command(command_name(relative.parts[-2]), path, "skill")
                else:
                    self.command(":".join(command_name(p) for p in relative.parts), path, "command")
        inline = self.manifest.components.get("commands")
        if isinstance(inline, dict):  # {"name": {"source": "./x.md"}} maps names to files
            for name, entry in inline.items():
                source = entry.get("source") if isinstance(entry, dict) else None
                if (found := self.inside(source, "commands")) is not None and found.is_file():
                    self.command(command_name(str(name)), found, "command")

    def skills(self) -> None:
        from tui.hooks.commands import command_name
        from tui.hooks.skills import SKILL_FILE

        done: set[Path] = set()  # `skills: ["./skills/x"]` names a skill the default folder holds too
        for folder in self.folders("skills"):
            skill_dirs = (
                [folder] if (folder / SKILL_FILE).is_file() else sorted(p for p in folder.iterdir() if p.is_dir())
            )
            for skill_dir in skill_dirs:
                if skill_dir.resolve() in done:
                    continue
                done.add(skill_dir.resolve())
                if (skill_dir / SKILL_FILE).is_file():
                    self.command(command_name(skill_dir.name), skill_dir / SKILL_FILE, "skill")
                else:
                    self.say(f"{skill_dir} has no {SKILL_FILE}; the skill /{self.name}:{skill_dir.name} was skipped.")

    # --- agents --------------------------------------------------------------------------------

    def agents(self) -> None:
        from tui.config.agent_files import AgentFileError, agent_files, read_agent_file

        for folder in self.folders("agents"):
            for path in [folder] if folder.is_file() else agent_files(folder):
                try:
                    definition = read_agent_file(path, "plugin", self.root)
                except (OSError, AgentFileError) as exc:
                    self.say(f"the agent file {path} was not loaded: {str(exc).rstrip('.')}.")
                    continue
                self.parts.agents.append(dataclasses.replace(definition, name=f"{self.name}:{definition.name}"))

    # --- hooks ---------------------------------------------------------------------------------

    def hooks(self) -> None:
        blocks: list[tuple[Path, str, Any]] = []
        default = self.root / DEFAULT_HOOKS
        if default.exists():  # a FIFO or device is one sentence, not passed over
            blocks.append(self.hooks_file(default))
        value = self.manifest.components.get("hooks")
        for item in value if isinstance(value, list) else [] if value is None else [value]:
            if isinstance(item, dict):  # inline, in the manifest
                blocks.append((self.root / ".claude-plugin" / "plugin.json", "", item))
            elif (path := self.inside(item, "hooks")) is not None and path != default:
                blocks.append(self.hooks_file(path))
        for path, text, block in blocks:
            if block is not None:
                self.hook_block(path, text, block)

    def hooks_file(self, path: Path) -> tuple[Path, str, Any]:
        """(path, text, the `hooks` object) of a hooks.json; None as the object when it cannot be read."""
        try:
            text = read_bounded_text(path)
            data = parse_json_text(path, text)
        except OSError as exc:
            self.say(f"{path} cannot be read ({exc.strerror or exc}); its hooks were skipped.")
            return path, "", None
        except BoundedReadError as exc:
            self.say(f"{str(exc).rstrip('.')}; its hooks were skipped.")
            return path, "", None
        except json.JSONDecodeError as exc:
            self.say(f"{path}:{exc.lineno}:{exc.colno} is not valid JSON ({exc.msg}); its hooks were skipped.")
            return path, "", None
        if not isinstance(data, dict) or not isinstance(data.get("hooks"), dict):
            self.say(f'{path} must hold {{"hooks": {{EVENT: [...]}}}}; its hooks were skipped.')
            return path, text, None
        return path, text, data["hooks"]

    def hook_block(self, path: Path, text: str, block: Any) -> None:
        from tui.hooks.config import parse_hooks_block

        specs, problems = parse_hooks_block(path, text, block, project=self.gated)
        self.parts.problems += [f"Plugin {self.plugin_id}: {p}" for p in problems]
        from tui.hooks.shell_quote import substitute_quoted

        root = str(self.root)
        for spec in specs:
            command = substitute_quoted(spec.command, {"CLAUDE_PLUGIN_ROOT": root})  # a path is data, not code
            if (why := self.script_problem(command)) is not None:
                self.say(f"its {spec.event} hook `{spec.command}` was skipped: {why}.")
                continue
            self.parts.hooks.append(dataclasses.replace(spec, command=command, plugin=self.plugin_id, plugin_root=root))

    def script_problem(self, command: str) -> str | None:
        """Why the plugin's own script a hook runs cannot start (missing, not executable), else None."""
        try:
            words = shlex.split(command)
        except ValueError:
            return None
        program = words[0] if words else ""
        inside = program.startswith(str(self.root) + os.sep)
        if not inside:
            return None
        shown = program[len(str(self.root)) + 1 :]
        if not os.path.exists(program):
            return f"its script {shown} does not exist in the plugin"
        if not os.access(program, os.X_OK):
            return f"its script {shown} is not executable (chmod +x {program}, or reinstall the plugin)"
        return None

    # --- MCP servers ---------------------------------------------------------------------------

    def mcp(self) -> None:
        tables: list[tuple[str, Any]] = []
        default = self.root / DEFAULT_MCP
        if default.exists():
            tables.append(self.mcp_file(default))
        value = self.manifest.components.get("mcpServers")
        for item in value if isinstance(value, list) else [] if value is None else [value]:
            if isinstance(item, dict):
                tables.append((str(self.root / ".claude-plugin" / "plugin.json"), item))
            elif (path := self.inside(item, "mcpServers")) is not None and path != default:
                tables.append(self.mcp_file(path))
        for where, table in tables:
            if table is not None:
                self.servers(where, table)

    def mcp_file(self, path: Path) -> tuple[str, Any]:
        try:
            data = load_json_file(path)
        except OSError as exc:
            self.say(f"{path} cannot be read ({exc.strerror or exc}); its MCP servers were skipped.")
            return str(path), None
        except BoundedReadError as exc:
            self.say(f"{str(exc).rstrip('.')}; its MCP servers were skipped.")
            return str(path), None
        except json.JSONDecodeError as exc:
            self.say(f"{path}:{exc.lineno}:{exc.colno} is not valid JSON ({exc.msg}); its MCP servers were skipped.")
            return str(path), None
        table = data.get("mcpServers", data) if isinstance(data, dict) else data
        return str(path), table

    def servers(self, where: str, table: Any) -> None:
        from tui.mcp.config import McpConfigError, parse_server

        if not isinstance(table, dict):
            self.say(f"{where}: mcpServers must be an object of servers by name; no server was loaded from it.")
            return
        env = {**os.environ, "CLAUDE_PLUGIN_ROOT": str(self.root)}
        for server, entry in table.items():
            try:
                config = parse_server(str(server), entry, source="plugin", source_path=where, env=env)
            except McpConfigError as exc:
                self.say(str(exc))
                continue
            name = server_name(self.name, str(server))
            extra = {"CLAUDE_PLUGIN_ROOT": str(self.root), **config.env} if config.transport == "stdio" else config.env
            self.parts.mcp_servers.append(dataclasses.replace(config, name=name, env=extra))

    # --- language servers -------------------------------------------------------------------------

    def lsp(self) -> None:
        """`.lsp.json` at the plugin's root and `lspServers` in its manifest (a table, or a path to one)."""
        tables: list[tuple[str, Any]] = []
        default = self.root / ".lsp.json"
        if default.exists():  # a FIFO or device is one sentence, not passed over
            tables.append(self.lsp_file(default))
        value = self.manifest.components.get("lspServers")
        if isinstance(value, dict):
            tables.append((str(self.root / ".claude-plugin" / "plugin.json"), value))
        elif value is not None and (path := self.inside(value, "lspServers")) is not None and path != default:
            tables.append(self.lsp_file(path))
        root = str(self.root)
        for where, table in tables:
            if not isinstance(table, dict):
                if table is not None:
                    self.say(f"{where}: lspServers must be an object of servers by name; none was loaded from it.")
                continue
            for name, entry in table.items():
                if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
                    self.say(f"{where}: language server `{name}` needs a `command`; it was skipped.")
                    continue
                if not isinstance(entry.get("extensionToLanguage"), dict):
                    self.say(f"{where}: language server `{name}` needs `extensionToLanguage`; it was skipped.")
                    continue
                filled = json.loads(json.dumps(entry).replace("${CLAUDE_PLUGIN_ROOT}", json.dumps(root)[1:-1]))
                self.parts.lsp_servers.append((f"{self.name}:{name}", filled, where))

    def lsp_file(self, path: Path) -> tuple[str, Any]:
        try:
            data = load_json_file(path)
        except BoundedReadError as exc:
            self.say(f"{str(exc).rstrip('.')}; its language servers were skipped.")
            return str(path), None
        except (OSError, ValueError) as exc:
            self.say(f"{path} cannot be read as JSON ({exc}); its language servers were skipped.")
            return str(path), None
        return str(path), data.get("lspServers", data) if isinstance(data, dict) else data


def server_name(plugin: str, server: str) -> str:
    """`plugin_<plugin>_<server>` (Claude Code's tools: `mcp__plugin_<plugin>_<server>__<tool>`)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", f"plugin_{plugin}_{server}")


def read_parts(plugin_id: str, root: Path, manifest: PluginManifest, *, gated: bool) -> PluginParts:
    """Everything the plugin in `root` brings; `gated` when only a folder's settings enable it."""
    reader = _Reader(plugin_id, root, manifest, gated)
    reader.commands()
    reader.skills()
    reader.agents()
    reader.hooks()
    reader.mcp()
    reader.lsp()
    return reader.parts
