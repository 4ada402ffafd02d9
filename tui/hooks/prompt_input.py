"""What a typed prompt becomes before the loop sees it: `/command args`, `@file` attachments, `!` bash mode.

Engine-side glue shared by `-p` and the app: the session's catalog of commands and skills
(and the Skill tool when there is something to list), the expansion of `/name args`, the
tools a command's `allowed-tools` pre-approves for its turn, and Claude Code's bash mode
(`!cmd` runs through the dispatcher, so the Bash verdict and the permission dialog apply,
and its output joins the next request as context).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.tools.attachments import AskAttachment, Attached, AttachmentRules, attach_mentions
from tui.tools.base import ToolContext
from tui.tools.image_scale import MAX_EDGE

from .commands import Catalog, CustomCommand, load_catalog
from .expand import ExpansionRefused, expand

_call_ids = itertools.count(1)


@dataclass
class Prepared:
    """The prompt for the model, the command it came from (if any), or the sentence that refused it."""

    prompt: str
    command: CustomCommand | None = None
    refusal: str | None = None
    #: one sentence for each `@` mention that was not attached
    notices: list[str] = field(default_factory=list)
    #: the images its `@` mentions attach, as a turn carries them (Attachment.image_entry)
    images: list[dict[str, Any]] = field(default_factory=list)


def attach_catalog(session: Any, *, add_tool: bool) -> Catalog:
    """Load the session's commands and skills; add the Skill tool only when some skill is offered to the model."""
    catalog = _load(session)
    if add_tool and catalog.skills_for_model():
        from .skills import SkillTool

        session.tools.append(SkillTool(catalog, _model_renderer(session)))
    return catalog


def _model_renderer(session: Any) -> Any:
    """Render a skill the model loads, and allow its `allowed-tools` until the turn ends (as Claude Code)."""
    granted: list[str] = []

    def revoke(event: Any) -> None:
        # the top loop's turn only (a subagent's events carry `main/…` as their loop path)
        if type(event).__name__ == "TurnFinished" and getattr(event, "loop_path", "main") == "main":
            while granted:
                rule = granted.pop()
                if rule in session.policy.session_allow:
                    session.policy.session_allow.remove(rule)

    def render_for_model(skill: CustomCommand, args: str, ctx: ToolContext) -> str:
        attached = render(session, skill, args, ctx.cancel, no_question="a skill the model loads asks no question")
        # no one is asked mid-turn: what was not attached is said to the model, which may Read it under Read's rules
        text = "\n".join([attached.text, *(f"[{notice}]" for notice in attached.notices)])
        for rule in _granted_rules(session, skill):
            session.policy.session_allow.append(rule)
            granted.append(rule)
        return text

    session.bus.subscribe(revoke, inline=True, name="skill-grants")
    return render_for_model


def _granted_rules(session: Any, command: CustomCommand) -> list[str]:
    """The rules a command's `allowed-tools` adds for its turn: none from an untrusted folder's own files."""
    policy = session.policy
    if command.from_project and not getattr(policy, "trusted", True):
        return []
    return [rule for rule in command.allowed_tools if rule not in policy.session_allow and _valid_rule(rule)]


def _load(session: Any) -> Catalog:
    """The project's, the user's and the enabled plugins' commands and skills (the session's deny rules apply)."""
    project_dir = Path(session.options.project_dir)
    return load_catalog(project_dir, getattr(session.options, "plugins", None), _denied(session, project_dir))


def _denied(session: Any, project_dir: Path) -> Any:
    """Why the session's deny rules or `sandbox.deny_read` refuse reading a command or skill file, else None."""
    policy = getattr(session, "policy", None)
    if policy is None:
        return None
    from tui.tools.attachments import denied_reads

    return denied_reads(project_dir, policy)


def session_catalog(session: Any) -> Catalog:
    """The catalog loaded with the session (or a fresh one for a session built without it)."""
    catalog = getattr(session, "catalog", None)
    return catalog if isinstance(catalog, Catalog) else _load(session)


def reload_catalog(session: Any) -> Catalog:
    """Read the folders again (a file added while the app runs); the Skill tool keeps its start-up listing."""
    fresh = _load(session)
    old = getattr(session, "catalog", None)
    if isinstance(old, Catalog):
        old.commands, old.problems, old.aliases = fresh.commands, fresh.problems, fresh.aliases
        return old
    return fresh


def render(
    session: Any,
    command: CustomCommand,
    args: str,
    cancel: threading.Event | None = None,
    ask: AskAttachment | None = None,
    no_question: str = "",
) -> Attached:
    """`command` expanded for this session, with the files its text mentions attached (as its source allows)."""
    project_dir = Path(session.options.project_dir)
    text = expand(
        command,
        args,
        project_dir=project_dir,
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


def attachment_rules(session: Any, can_ask: bool) -> AttachmentRules:
    """The rules `@` mentions meet in this session (the Read tool's); `can_ask` when someone can answer a question."""
    project_dir = Path(session.options.project_dir)
    return AttachmentRules(
        project_dir=project_dir,
        policy=session.policy,
        interactive=can_ask,
        state=getattr(session, "state", None),
        max_edge=getattr(session.options, "image_max_edge", MAX_EDGE),
    )


def parse_slash(text: str) -> tuple[str, str] | None:
    """(name, args) of a prompt that starts with `/name`; None otherwise (a path like `/usr/bin` has a second `/`)."""
    if not text.startswith("/"):
        return None
    name, _, args = text[1:].partition(" ")
    name = name.strip()
    if not name or "/" in name:
        return None
    return name, args.strip()


def prepare_prompt(
    session: Any, text: str, cancel: threading.Event | None = None, ask: AskAttachment | None = None
) -> Prepared:
    """Expand `/name args` when `name` is a custom command or skill, then attach `@` files.

    `ask` asks the user about a mention that needs a yes (the app); without it (`-p`) such a mention is refused.
    """
    parsed = parse_slash(text)
    if parsed is not None:
        catalog = session_catalog(session)
        command = catalog.get(parsed[0]) or reload_catalog(session).get(parsed[0])
        if command is not None:
            try:
                attached = render(session, command, parsed[1], cancel, ask)
            except ExpansionRefused as exc:
                return Prepared("", command, str(exc))
            return Prepared(attached.text, command, notices=attached.notices, images=attached.images)
    attached = attach_mentions(text, attachment_rules(session, ask is not None), ask)
    return Prepared(attached.text, notices=attached.notices, images=attached.images)


@contextmanager
def command_turn(session: Any, command: CustomCommand | None) -> Iterator[None]:
    """For the turn a command starts: its `allowed-tools` are allowed and its `model` is used, then both revert."""
    if command is None:
        yield
        return
    policy, options = session.policy, session.options
    added = _granted_rules(session, command)
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


def _valid_rule(rule: str) -> bool:
    from tui.config.rules import Rule

    try:
        Rule.parse(rule)
    except ValueError:
        return False
    return True


def run_user_call(session: Any, name: str, tool_input: dict[str, Any], cancel: threading.Event) -> tuple[str, bool]:
    """Run one tool call the user asked for (bash mode, /init) through the dispatcher: its events, the verdict
    and the permission dialog apply as to the model's calls; (result text, is_error)."""
    block = {"type": "tool_use", "id": f"toolu_user_{next(_call_ids)}", "name": name, "input": tool_input}
    result = session.dispatcher.run([block], cancel, {}).results[0]
    content = result.get("content")
    text = content if isinstance(content, str) else "\n".join(b.get("text", "") for b in content or ())
    return text, bool(result.get("is_error"))


def run_bash_mode(session: Any, command_line: str, cancel: threading.Event) -> tuple[str, bool]:
    """`!cmd`: a Bash call through the dispatcher; (result text, is_error)."""
    return run_user_call(
        session, "Bash", {"command": command_line, "description": "bash mode (typed by the user)"}, cancel
    )


def add_bash_context(session: Any, command_line: str, output: str, is_error: bool) -> None:
    """Put the command and its output in the history, so the next request carries them (Claude Code's tags)."""
    stream = "bash-stderr" if is_error else "bash-stdout"
    text = f"<bash-input>{command_line}</bash-input>\n<{stream}>{output}</{stream}>"
    block = {"type": "text", "text": text}
    messages = session.messages
    if messages and messages[-1].get("role") == "user":
        last = messages[-1]
        content = last["content"] if isinstance(last["content"], list) else [{"type": "text", "text": last["content"]}]
        messages[-1] = {"role": "user", "content": [*content, block]}
        if session.transcript:
            session.transcript.write({"type": "merge_user", "message": messages[-1]})
    else:
        session.append_message({"role": "user", "content": [block]})
