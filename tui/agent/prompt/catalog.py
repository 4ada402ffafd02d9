"""The session's commands and skills, and the rules its prompts' `@` mentions meet.

The prompt pipeline (prompt_pipeline.py) expands `/name args` with them; the Skill tool renders a skill the model
loads with them; a command's `allowed-tools` and `model` hold for the turn it starts (`command_turn`).
The catalog itself (reading the folders, parsing the files) is the hooks room's (tui/hooks/commands.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from tui.agent.events import Event, TurnFinished
from tui.hooks.commands import Catalog, CustomCommand, load_catalog
from tui.hooks.expand import expand
from tui.tools.attachments import AskAttachment, Attached, AttachmentRules, attach_mentions, denied_reads
from tui.tools.base import ToolContext
from tui.tools.image_scale import MAX_EDGE

if TYPE_CHECKING:
    from tui.agent.door import Session
    from tui.agent.session import AgentSession


def attach_catalog(session: AgentSession, *, add_tool: bool) -> Catalog:
    """Load the session's commands and skills; add the Skill tool only when some skill is offered to the model."""
    catalog = _load(session)
    if add_tool and catalog.skills_for_model():
        from tui.hooks.skills import SkillTool

        session.tools.append(SkillTool(catalog, model_renderer(session)))
    return catalog


def model_renderer(session: AgentSession) -> Callable[[CustomCommand, str, ToolContext], str]:
    """Render a skill the model loads, and allow its `allowed-tools` until the turn ends (as Claude Code)."""
    granted: list[str] = []

    def revoke(event: Event) -> None:
        # the top loop's turn only (a subagent's events carry `main/…` as their loop path)
        if isinstance(event, TurnFinished) and event.loop_path == "main":
            while granted:
                rule = granted.pop()
                if rule in session.policy.session_allow:  # the policy now (reload_policy builds a new one)
                    session.policy.session_allow.remove(rule)

    def render_for_model(skill: CustomCommand, args: str, ctx: ToolContext) -> str:
        attached = render(session, skill, args, ctx.cancel, no_question="a skill the model loads asks no question")
        # no one is asked mid-turn: what was not attached is said to the model, which may Read it under Read's rules
        text = "\n".join([attached.text, *(f"[{notice}]" for notice in attached.notices)])
        for rule in granted_rules(session, skill):
            session.policy.session_allow.append(rule)
            granted.append(rule)
        return text

    session.bus.subscribe(revoke, inline=True, name="skill-grants")
    return render_for_model


def granted_rules(session: AgentSession, command: CustomCommand) -> list[str]:
    """The rules a command's `allowed-tools` adds for its turn: none from an untrusted folder's own files."""
    policy = session.policy
    if command.from_project and not getattr(policy, "trusted", True):
        return []
    return [rule for rule in command.allowed_tools if rule not in policy.session_allow and _valid_rule(rule)]


def _valid_rule(rule: str) -> bool:
    from tui.config.rules import Rule

    try:
        Rule.parse(rule)
    except ValueError:
        return False
    return True


def _load(session: Session) -> Catalog:
    """The project's, the user's and the enabled plugins' commands and skills (the session's deny rules apply)."""
    project_dir = Path(session.options.project_dir)
    policy = getattr(session, "policy", None)  # read while the session is built: its policy is already there
    denied = denied_reads(project_dir, policy) if policy is not None else None
    return load_catalog(project_dir, getattr(session.options, "plugins", None), denied)


def session_catalog(session: Session) -> Catalog:
    """The catalog loaded with the session (or a fresh one for a session built without it)."""
    catalog = getattr(session, "catalog", None)
    return catalog if isinstance(catalog, Catalog) else _load(session)


def reload_catalog(session: Session) -> Catalog:
    """Read the folders again (a file added while the app runs); the Skill tool keeps its start-up listing."""
    fresh = _load(session)
    old = getattr(session, "catalog", None)
    if isinstance(old, Catalog):
        old.commands, old.problems, old.aliases = fresh.commands, fresh.problems, fresh.aliases
        return old
    return fresh


def render(
    session: AgentSession,
    command: CustomCommand,
    args: str,
    cancel: threading.Event | None = None,
    ask: AskAttachment | None = None,
    no_question: str = "",
) -> Attached:
    """`command` expanded for this session, with the files its text mentions attached (as its source allows)."""
    text = expand(
        command,
        args,
        project_dir=Path(session.options.project_dir),
        policy=session.policy,
        session_id=getattr(session, "session_id", ""),
        cancel=cancel,
    )
    rules = attachment_rules(session, ask is not None)
    rules.source = f"/{command.name} ({command.path})"
    rules.no_question = no_question or rules.no_question
    rules.confined = command.from_project and not getattr(session.policy, "trusted", True)
    if not command.from_project:  # the user's own command or skill may name the files beside it
        rules.own_folders = (command.folder,)
    return attach_mentions(text, rules, ask)


def attachment_rules(session: Session, can_ask: bool) -> AttachmentRules:
    """The rules `@` mentions meet in this session (the Read tool's); `can_ask` when someone can answer a question."""
    return AttachmentRules(
        project_dir=Path(session.options.project_dir),
        policy=session.policy,
        interactive=can_ask,
        state=getattr(session, "state", None),
        max_edge=getattr(session.options, "image_max_edge", MAX_EDGE),
    )


@contextmanager
def command_turn(session: AgentSession, command: CustomCommand | None) -> Iterator[None]:
    """For the turn a command starts: its `allowed-tools` are allowed and its `model` is used, then both revert."""
    if command is None:
        yield
        return
    policy, options = session.policy, session.options
    added = granted_rules(session, command)
    model = options.model
    policy.session_allow.extend(added)
    if command.model:
        options.model = command.model
    try:
        yield
    finally:
        for rule in added:
            if rule in policy.session_allow:
                policy.session_allow.remove(rule)
        options.model = model
