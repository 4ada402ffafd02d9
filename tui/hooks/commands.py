"""Custom slash commands: Markdown files in `.claude/commands/`, `.agent-tui/commands/` and `~/.claude/commands/`.

A file `frontend/review.md` is the command `/frontend:review`; `fix issue.md` is `/fix-issue`. Its frontmatter (`description`,
`argument-hint`, `allowed-tools`, `model`, `disable-model-invocation`) and body become a
`CustomCommand`; skills (skills.py) are loaded into the same type, so the prompt, the palette,
`-p` and the Skill tool treat both alike, as Claude Code does since it merged them.
A broken file is one sentence in `Catalog.problems`, naming the file; every other file still loads.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.config.declared_files import DeniedCheck, LinkedOutside, Roots, declaring_root, read_declared
from tui.config.frontmatter import (
    FrontmatterError,
    as_bool,
    as_list,
    as_text,
    body_after_frontmatter,
    split_frontmatter,
)
from tui.config.paths import PROJECT_DIR_NAME, user_config_dir

#: a command or skill file larger than this is refused (a prompt template is never this big)
MAX_FILE_BYTES = 256 * 1024
#: Claude Code caps each listed description at this many characters
MAX_DESCRIPTION_CHARS = 1536


@dataclass(frozen=True)
class CustomCommand:
    """One command or skill: where it came from, what its frontmatter says, and its body."""

    name: str
    description: str
    body: str
    path: Path
    #: "project" (from the project folder) or "user" (from the user's own folders)
    source: str
    kind: str = "command"  # or "skill"
    argument_hint: str = ""
    allowed_tools: tuple[str, ...] = ()
    model: str | None = None
    disable_model_invocation: bool = False
    #: named positional arguments (`arguments:` in a skill)
    arguments: tuple[str, ...] = ()
    #: the plugin it comes from (`name@marketplace`) and that plugin's folder (`${CLAUDE_PLUGIN_ROOT}`)
    plugin: str = ""
    plugin_root: str = ""
    #: whether the frontmatter gave a description (Claude Code lists only such skills as `skills` in its init line)
    described: bool = True

    @property
    def from_project(self) -> bool:
        """From the folder's own files, or from a plugin only the folder's settings enable: trust gates its `!` lines."""
        return self.source == "project"

    @property
    def folder(self) -> Path:
        """The skill's folder (`${CLAUDE_SKILL_DIR}`), or the command file's folder."""
        return self.path.parent

    @property
    def label(self) -> str:
        """`(project)` / `(user)` / the plugin and the kind, for the palette and completion."""
        return f"plugin {self.plugin.partition('@')[0]} {self.kind}" if self.plugin else f"{self.source} {self.kind}"


@dataclass
class Catalog:
    """Every custom command and skill found, by name, and one sentence per file that could not be read."""

    commands: dict[str, CustomCommand] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    #: a plugin command's short name (`/deploy` for `/tools:deploy`) when no other command has it
    aliases: dict[str, str] = field(default_factory=dict)

    def get(self, name: str) -> CustomCommand | None:
        name = name.lstrip("/")
        found = self.commands.get(name) or self.commands.get(name.lower())
        if found is None and name in self.aliases:
            found = self.commands.get(self.aliases[name])
        return found

    def skills_for_model(self) -> list[CustomCommand]:
        """What the Skill tool may load (every entry without `disable-model-invocation`, as Claude Code 2.1
        lists them: a command without a description by its first line), skills first."""
        offered = [c for c in self.commands.values() if not c.disable_model_invocation]
        return sorted(offered, key=lambda c: c.kind != "skill")


def claude_home() -> Path:
    """Claude Code's user folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured) if configured else Path.home() / ".claude"


def command_folders(project_dir: Path) -> list[tuple[Path, str]]:
    """(folder, source) in rising precedence: user folders first, so the project's override them."""
    return [
        (claude_home() / "commands", "user"),
        (user_config_dir() / "commands", "user"),
        (project_dir / PROJECT_DIR_NAME / "commands", "project"),
        (project_dir / ".claude" / "commands", "project"),
    ]


def read_markdown(
    path: Path, root: Roots, denied: DeniedCheck | None = None, problems: list[str] | None = None
) -> tuple[dict[str, Any], str]:
    """(frontmatter, body) of a command or skill file that `root` declares; ValueError with the reason when
    unreadable, when its links lead out of `root` or `denied` refuses it (tui/config/declared_files.py).

    As Claude Code: bytes that are not UTF-8 are replaced, and frontmatter that is not YAML is left out
    (the file loads without it; one sentence goes to `problems`).
    """
    try:
        data = read_declared(path, root, MAX_FILE_BYTES + 1, denied)
    except LinkedOutside as exc:
        raise ValueError(str(exc)) from None
    except OSError as exc:
        raise ValueError(f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"is larger than {MAX_FILE_BYTES // 1024} KiB")
    text = data.decode("utf-8", errors="replace")
    try:
        return split_frontmatter(text)
    except (FrontmatterError, RecursionError) as exc:
        why = str(exc) if isinstance(exc, FrontmatterError) else "nested too deeply"
        if problems is not None:
            problems.append(
                f"{path} has frontmatter that is not YAML ({why}); it was loaded without it, as Claude Code does."
            )
        return {}, body_after_frontmatter(text)


def first_line(body: str) -> str:
    """The first non-empty line of a body, without a heading's `#`s (Claude Code's fallback description)."""
    for line in body.splitlines():
        if line.strip():
            return line.strip().lstrip("#").strip()
    return ""


def build_command(
    name: str, path: Path, source: str, fields: dict[str, Any], body: str, kind: str = "command"
) -> CustomCommand:
    """A CustomCommand from parsed fields, read as Claude Code reads them (a list or number is its text)."""
    described = as_text(fields.get("description")).strip()
    description = described or first_line(body)
    arguments = fields.get("arguments")
    model = fields.get("model")
    return CustomCommand(
        name=name,
        description=description[:MAX_DESCRIPTION_CHARS],
        body=body,
        path=path,
        source=source,
        kind=kind,
        argument_hint=as_text(fields.get("argument-hint")),
        allowed_tools=tuple(as_list(fields.get("allowed-tools"))),
        model=as_text(model) if model is not None and model != "" else None,
        disable_model_invocation=as_bool(fields.get("disable-model-invocation", False)) is True,
        arguments=tuple(as_list(arguments)) if arguments else (),
        described=bool(described),
    )


def command_name(file_name: str) -> str:
    """A file or folder name as a command name one can type: spaces and other signs become `-`.

    `fix issue.md` is `/fix-issue`, so the name the `/` menu completes to is the name that runs
    (a space would end the name when typed).
    """
    return re.sub(r"[^\w.-]+", "-", file_name).strip("-") or "-"


def load_commands(project_dir: Path, catalog: Catalog, denied: DeniedCheck | None = None) -> None:
    """Add every command file under the command folders to `catalog` (later folders win); `denied`: the
    session's read rules."""
    for folder, source in command_folders(project_dir):
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.md")):
            if not path.is_file():
                continue
            relative = path.relative_to(folder).with_suffix("")
            name = ":".join(command_name(part) for part in relative.parts)
            try:
                fields, body = read_markdown(
                    path, declaring_root(source, project_dir, folder), denied, catalog.problems
                )
                catalog.commands[name] = build_command(name, path, source, fields, body)
            except ValueError as exc:
                catalog.problems.append(f"{path} {exc}; the command /{name} was skipped.")


def load_catalog(project_dir: Path, plugins: Any = None, denied: DeniedCheck | None = None) -> Catalog:
    """Commands, then skills (a skill beats a command of the same name), then those of the enabled plugins.

    `plugins` (tui.plugins.active.ActivePlugins) gives each plugin command as `/plugin:name`, and its short
    name when no command of the project, the user or another plugin has it.
    """
    from .skills import load_skills

    catalog = Catalog()
    load_commands(project_dir, catalog, denied)
    load_skills(project_dir, catalog, denied)
    if plugins is not None:
        for command in plugins.commands():
            catalog.commands.setdefault(command.name, command)
        catalog.aliases = {short: full for short, full in plugins.aliases.items() if short not in catalog.commands}
    return catalog
