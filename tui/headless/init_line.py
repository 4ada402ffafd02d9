"""What the `system`/`init` line says loaded, in Claude Code 2.1.332's field names and shapes.

`agents` (every agent type by name, built-ins first), `skills` (the skills of a skills folder or a plugin
whose frontmatter gives a description, `disable-model-invocation` or not, as Claude Code lists them), `plugins`
(`{name, path, source, version}` each) and `memory_paths` (Claude Code names its auto-memory folder there; agent-tui
has none, so the object is empty) — plus `memory_files`, agent-tui's own: every memory file and
`.claude/rules` rule in the system prompt, so a program sees which instructions loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.agent.door import Session


def agent_names(session: Session) -> list[str]:
    """The agent types the Agent tool offers, by name."""
    tool = next((t for t in getattr(session, "tools", ()) if getattr(t, "name", "") == "Agent"), None)
    if tool is None or not hasattr(tool, "definitions"):
        return []
    try:
        return [d.name for d in tool.definitions()]
    except Exception:  # a definitions folder that vanished: the init line still goes out
        return []


def skill_names(session: Session) -> list[str]:
    """The skills with a description, as Claude Code lists them in `skills`."""
    catalog = getattr(session, "catalog", None)
    if catalog is None:
        return []
    return [c.name for c in catalog.commands.values() if c.kind == "skill" and c.described]


def plugin_entries(session: Session) -> list[dict[str, str]]:
    """`{name, path, source, version}` per enabled plugin (source is `name@marketplace`; version when it has one)."""
    active = getattr(session.options, "plugins", None)
    out = []
    for plugin in getattr(active, "plugins", None) or []:
        entry = {"name": plugin.manifest.name, "path": str(plugin.root), "source": plugin.plugin_id}
        version = plugin.manifest.version or getattr(plugin.record, "version", "")
        if version and version != "unknown":
            entry["version"] = version  # plugin.json's, else the marketplace entry's (recorded at install)
        out.append(entry)
    return out


def loaded_fields(session: Session) -> dict[str, Any]:
    """The init line's fields about what loaded (the memory files are read here when no request did yet)."""
    try:
        session.system_blocks()  # reads the memory files, as the first request would
    except Exception:  # the init line never fails over memory; the first request says what is wrong
        pass
    return {
        "agents": agent_names(session),
        "skills": skill_names(session),
        "plugins": plugin_entries(session),
        "memory_paths": {},
        "memory_files": [str(m.path) for m in getattr(session, "memory_files", ())],
    }
