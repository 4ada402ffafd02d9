"""Subagent definitions: the built-in types and Markdown files with frontmatter (Claude Code's format).

A file `NAME.md` anywhere under `.claude/agents/`, `.agent-tui/agents/` (the project's, read only in a
trusted folder) or `~/.claude/agents/` (subfolders included, as Claude Code reads them) holds `name`,
`description`, `tools`, `model` in its frontmatter and the system prompt as its body. Project files win
over user files, and both over the built-ins; within one folder a name defined twice keeps the shallower
file, and the other is one sentence naming both.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tui.config.declared_files import DeniedCheck, LinkedOutside, Roots, declaring_root, read_declared
from tui.config.frontmatter import FrontmatterError, as_list, as_text, body_after_frontmatter, split_frontmatter

#: the read-only tools Explore and Plan get
READ_ONLY_TOOLS = ("Read", "Glob", "Grep")
MODELS = ("sonnet", "opus", "haiku", "inherit")
#: folders searched, nearest first: (folder relative to its root, whether it belongs to the project)
PROJECT_FOLDERS = (".agent-tui/agents", ".claude/agents")
USER_FOLDER = ".claude/agents"
MAX_FILE_BYTES = 256 * 1024


@dataclass(frozen=True)
class AgentDefinition:
    """One agent type: what the model picks with `subagent_type`."""

    name: str
    description: str
    prompt: str
    #: allowed tool names; None = every tool of the parent except Agent
    tools: tuple[str, ...] | None = None
    #: sonnet | opus | haiku | inherit, or a full model id
    model: str = "inherit"
    #: "built-in", "project", "user" or "plugin"
    source: str = "built-in"
    path: str | None = None

    @property
    def may_nest(self) -> bool:
        """Whether this agent's own tool set may include Agent (only when its `tools` name it)."""
        return self.tools is not None and "Agent" in self.tools


GENERAL_PROMPT = (
    "You are a subagent of agent-tui, working on one task the main agent gave you. Use the tools to do "
    "it fully, then end with a concise report: what you found or changed, with `path:line` references. "
    "Your final message is all the main agent sees."
)
EXPLORE_PROMPT = (
    "You are a fast, read-only search subagent. Find what the task asks for with Glob, Grep and Read; "
    "never change anything. End with a concise report of what you found, citing `path:line`."
)
PLAN_PROMPT = (
    "You are a read-only planning subagent. Study the code the task concerns, then return a step-by-step "
    "implementation plan naming the files to change and the risks. Never change anything."
)
BUILT_INS = (
    AgentDefinition("general-purpose", "research and changes, all tools", GENERAL_PROMPT),
    AgentDefinition("Explore", "fast read-only search", EXPLORE_PROMPT, READ_ONLY_TOOLS, "haiku"),
    AgentDefinition("Plan", "read-only; returns an implementation plan", PLAN_PROMPT, READ_ONLY_TOOLS),
)


class AgentFileError(ValueError):
    """An agent file that cannot be used; `str()` is the sentence to show."""


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def split_list(value: str) -> tuple[str, ...]:
    """`Read, Grep`, `[Read, Grep]` or `Read Grep` as a tuple of names."""
    value = value.strip().strip("[]")
    parts = re.split(r"[,\s]+", value) if "," not in value else value.split(",")
    return tuple(_unquote(p.strip()) for p in parts if p.strip())


def parse_agent_file(text: str, path: Path, source: str) -> AgentDefinition:
    """The definition in one agent file, or AgentFileError naming what is wrong.

    Read as Claude Code 2.1.332 reads it: a project's or the user's file needs `name` and `description` as text
    (a number, a boolean or a list is refused); a plugin's file never is refused for them: its name is then the
    file's, its description a stand-in. `tools` may be a list or one string; other keys are ignored; the body
    may be empty (the general subagent's prompt stands in).
    """
    lenient = source == "plugin"
    try:
        meta, body = split_frontmatter(text)
    except FrontmatterError as exc:
        if not lenient:
            raise AgentFileError(f"the frontmatter is not YAML ({exc}), so it has no `name`") from None
        meta, body = {}, body_after_frontmatter(text)
    name, description = meta.get("name"), meta.get("description")
    if lenient:
        name = as_text(name).strip() or path.stem
        description = as_text(description).strip() or f"the {path.stem} agent"
    if name is None or name == "":
        raise AgentFileError("the frontmatter has no `name`")
    if not isinstance(name, str):
        raise AgentFileError(f"`name` must be text, not {type(name).__name__} {name!r} (Claude Code refuses it too)")
    name = name.strip()
    if not re.fullmatch(r"[A-Za-z0-9][\w.-]{0,63}", name):
        raise AgentFileError(f"`name` {name!r} may hold only letters, digits, `-`, `_` and `.`")
    if description is None or description == "":
        raise AgentFileError("the frontmatter has no `description`")
    if not isinstance(description, str):
        raise AgentFileError("`description` must be text, not a list or a number (Claude Code refuses it too)")
    tools_value = meta.get("tools")
    tools = tuple(as_list(tools_value)) if tools_value not in (None, "", []) else None
    model = as_text(meta.get("model")).strip() or "inherit"
    if not re.fullmatch(r"[\w.@:-]+", model):
        raise AgentFileError(f"`model` {model!r} is not a model name")
    prompt = body.strip() or GENERAL_PROMPT  # an empty body loads in Claude Code; the API wants a non-empty text
    return AgentDefinition(name, " ".join(description.split()), prompt, tools, model, source, str(path))


def agent_folders(project_dir: Path, trusted: bool, home: Path | None = None) -> list[tuple[Path, str]]:
    """(folder, source) pairs to read, lowest priority first; project folders only when trusted."""
    home = home if home is not None else Path(os.path.expanduser("~"))
    folders = [(home / USER_FOLDER, "user")]
    if trusted:
        folders += project_agent_folders(project_dir)
    return folders


def project_agent_folders(project_dir: Path) -> list[tuple[Path, str]]:
    """The project's agent folders, lowest priority first (`.agent-tui/agents` wins over `.claude/agents`)."""
    return [(project_dir / folder, "project") for folder in reversed(PROJECT_FOLDERS)]


def agent_files(folder: Path) -> list[Path]:
    """The `.md` files under `folder`, subfolders included, shallower first (then by path)."""
    if not folder.is_dir():
        return []
    found = [p for p in folder.rglob("*.md") if not p.is_dir()]
    return sorted(found, key=lambda p: (len(p.relative_to(folder).parts), str(p)))


def read_agent_file(path: Path, source: str, root: Roots, denied: DeniedCheck | None = None) -> AgentDefinition:
    """The definition in `path`, a file `root` declares; OSError (LinkedOutside when its links lead out of
    `root`, tui/config/declared_files.py) or AgentFileError, each with the reason."""
    try:
        text = read_declared(path, root, MAX_FILE_BYTES, denied).decode("utf-8", errors="replace")
    except LinkedOutside as exc:
        raise AgentFileError(f"it {exc}") from None
    return parse_agent_file(text, path, source)


def read_folder(
    folder: Path, source: str, root: Roots | None = None, denied: DeniedCheck | None = None
) -> tuple[list[AgentDefinition], list[str]]:
    """The definitions under one folder, and one sentence per file skipped (unreadable, broken, duplicate name,
    linked out of `root`: the project for a project's folder, else the home folder)."""
    root = root if root is not None else declaring_root(source, folder.parent.parent, folder)
    taken: dict[str, Path] = {}
    definitions: list[AgentDefinition] = []
    problems: list[str] = []
    for path in agent_files(folder):
        try:
            definition = read_agent_file(path, source, root, denied)
        except (OSError, AgentFileError) as exc:
            problems.append(f"The agent file {path} was not loaded: {str(exc).rstrip('.')}.")
            continue
        if definition.name in taken:
            problems.append(
                f"The agent file {path} was not loaded: the name `{definition.name}` is taken by "
                f"{taken[definition.name]}."
            )
            continue
        taken[definition.name] = path
        definitions.append(definition)
    return definitions, problems


def load_definitions(
    project_dir: Path,
    trusted: bool,
    home: Path | None = None,
    extra: Sequence[AgentDefinition] = (),
    denied: DeniedCheck | None = None,
) -> tuple[list[AgentDefinition], list[str]]:
    """Every agent type by name (later sources win) and one sentence per file that could not be used.

    `extra` are the plugins' agents (`plugin:name`): above the built-ins, below the user's and the project's files.
    """
    by_name = {d.name: d for d in BUILT_INS}
    by_name.update((d.name, d) for d in extra)
    problems: list[str] = []
    for folder, source in agent_folders(project_dir, trusted, home):
        root = project_dir if source == "project" else (home if home is not None else Path.home(), folder)
        definitions, skipped = read_folder(folder, source, root, denied)
        problems += skipped
        by_name.update((d.name, d) for d in definitions)
    return list(by_name.values()), problems


def agent_file_text(name: str, description: str, tools: tuple[str, ...] | None, model: str, prompt: str) -> str:
    """The Markdown of a new agent file (what `/agents` writes)."""
    lines = ["---", f"name: {name}", f"description: {' '.join(description.split())}"]
    if tools:
        lines.append(f"tools: {', '.join(tools)}")
    if model and model != "inherit":
        lines.append(f"model: {model}")
    return "\n".join([*lines, "---", "", prompt.strip(), ""])


def create_agent_file(folder: Path, name: str, description: str, tools: str, model: str, prompt: str) -> Path:
    """Write `folder/<name>.md` from a short form; AgentFileError (one sentence) for bad input or an existing file."""
    tool_names = split_list(tools) if tools.strip() else None
    text = agent_file_text(name.strip(), description, tool_names, model.strip() or "inherit", prompt)
    path = folder / f"{name.strip()}.md"
    parse_agent_file(text, path, "new")  # the same checks a file read at start gets
    if model.strip() and model.strip() not in MODELS and not model.strip().startswith("claude-"):
        raise AgentFileError(f"`model` {model.strip()!r} is not one of {', '.join(MODELS)} or a claude- model id")
    if path.exists():
        raise AgentFileError(f"{path} exists already; pick another name")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise AgentFileError(f"{path} could not be written: {exc.strerror or exc}") from None
    return path
