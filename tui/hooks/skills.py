"""Skills: `<folder>/<name>/SKILL.md` under `.claude/skills/`, `.agent-tui/skills/` and `~/.claude/skills/`.

The model sees each skill's name and description in the `Skill` tool's description (the tool
exists only when there is something to list, so a project without skills pays no tokens),
and the tool loads a skill's rendered body; its other files are read on demand with Read.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tui.config.declared_files import DeniedCheck, declaring_root
from tui.config.paths import PROJECT_DIR_NAME, user_config_dir
from tui.tools.base import Tool, ToolContext, ToolError, ToolResult

from .commands import Catalog, CustomCommand, build_command, claude_home, command_name, read_markdown

SKILL_FILE = "SKILL.md"
#: Claude Code's Skill tool prompt (2.1), without what concerns plugins
SKILL_TOOL_PROMPT = """Execute a skill within the main conversation

When users ask you to perform tasks, check if any of the available skills match. Skills provide specialized capabilities and domain knowledge.

When users reference a "slash command" or "/<something>", they are referring to a skill. Use this tool to invoke it.

How to invoke:
- Set `skill` to the exact name of an available skill (no leading slash).
- Set `args` to pass optional arguments.

Important:
- Only invoke a skill that appears in the list below, or one the user explicitly typed as `/<name>` in their message. Never guess or invent a skill name; otherwise do not call this tool
- When a skill matches the user's request, this is a BLOCKING REQUIREMENT: invoke the relevant Skill tool BEFORE generating any other response about the task
- NEVER mention a skill without actually calling this tool
- Do not invoke a skill that is already running
- Do not use this tool for built-in commands (like /help, /clear, etc.)"""
LISTING_HEADER = "The following skills are available for use with the Skill tool:"
#: Claude Code's older listing budget, in characters
LISTING_BUDGET_CHARS = 15_000


def skill_folders(project_dir: Path) -> list[tuple[Path, str]]:
    """(folder, source) in rising precedence: personal skills beat the project's, as in Claude Code."""
    return [
        (project_dir / PROJECT_DIR_NAME / "skills", "project"),
        (project_dir / ".claude" / "skills", "project"),
        (user_config_dir() / "skills", "user"),
        (claude_home() / "skills", "user"),
    ]


def load_skills(project_dir: Path, catalog: Catalog, denied: DeniedCheck | None = None) -> None:
    """Add every skill folder's SKILL.md to `catalog`; a folder without one is one sentence; `denied`: the
    session's read rules."""
    for folder, source in skill_folders(project_dir):
        if not folder.is_dir():
            continue
        for skill_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
            path = skill_dir / SKILL_FILE
            name = command_name(skill_dir.name)
            if not path.is_file():
                catalog.problems.append(f"{skill_dir} has no {SKILL_FILE}; the skill /{name} was skipped.")
                continue
            try:
                root = declaring_root(source, project_dir, folder)
                fields, body = read_markdown(path, root, denied, catalog.problems)
                catalog.commands[name] = build_command(name, path, source, fields, body, kind="skill")
            except ValueError as exc:
                catalog.problems.append(f"{path} {exc}; the skill /{name} was skipped.")


def skill_listing(skills: list[CustomCommand], budget: int = LISTING_BUDGET_CHARS) -> str:
    """`- name: description` lines under Claude Code's header, cut to the budget."""
    lines = [LISTING_HEADER, ""]
    used = 0
    for skill in skills:
        line = f"- {skill.name}: {skill.description}"
        if used + len(line) > budget:
            lines.append(f"- … {len(skills) - (len(lines) - 2)} more not listed")
            break
        lines.append(line)
        used += len(line)
    return "\n".join(lines)


#: renders a skill's body for the model: (skill, args, tool context) -> text; raises ToolError to refuse
Renderer = Callable[[CustomCommand, str, ToolContext], str]


class SkillTool(Tool):
    """Loads a skill (or a custom command) into the conversation."""

    name = "Skill"
    description = SKILL_TOOL_PROMPT
    input_schema = {
        "type": "object",
        "properties": {
            "skill": {
                "type": "string",
                "description": "The name of a skill from the available-skills list. Do not guess names.",
            },
            "args": {"type": "string", "description": "Optional arguments for the skill"},
        },
        "required": ["skill"],
        "additionalProperties": False,
    }
    read_only = True
    kind = "read"

    def __init__(self, catalog: Catalog, render: Renderer) -> None:
        self.catalog = catalog
        self.render = render
        self.description = f"{SKILL_TOOL_PROMPT}\n\n{skill_listing(catalog.skills_for_model())}"  # type: ignore[misc]

    def permission_target(self, tool_input: dict[str, Any], ctx: ToolContext) -> str | None:
        skill = tool_input.get("skill")
        return str(skill).strip().lstrip("/") if skill else None

    def label(self, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        return f"Skill: {self.permission_target(tool_input, ctx) or '?'}"

    def check_input(self, tool_input: dict[str, Any], ctx: ToolContext) -> None:
        self._skill(tool_input, ctx)

    def _skill(self, tool_input: dict[str, Any], ctx: ToolContext) -> Any:
        name = self.permission_target(tool_input, ctx) or ""
        skill = self.catalog.get(name)
        if skill is None:
            known = ", ".join(c.name for c in self.catalog.skills_for_model()) or "none"
            raise ToolError(f"Unknown skill: {name}. Available skills: {known}.")
        if skill.disable_model_invocation:
            raise ToolError(f"Skill {name} cannot be used with the Skill tool: only the user can run it (/{name}).")
        return skill

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        skill = self._skill(tool_input, ctx)
        args = tool_input.get("args")
        text = self.render(skill, args if isinstance(args, str) else "", ctx)
        return ToolResult(text, meta={"skill": skill.name, "allowed_tools": list(skill.allowed_tools)})
