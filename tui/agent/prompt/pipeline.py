"""One prompt pipeline for every front end: prepare → refuse → command turn → run.

The app, `-p`, stream-json input and ACP hand the text the user sent to `run_prompt` and keep only what is
theirs (how the prompt is shown, ACP's resource blocks, headless output). Here:

1. bash mode: `!cmd` (where the front end has it) runs as a Bash call and joins the next request as context;
2. `/name args` is expanded when `name` is a custom command or skill, and the files the text mentions with `@`
   are attached under the Read tool's rules (a mention that needs a yes is asked where someone can answer);
3. a refusal (a command's `!` line refused, an argument missing) is one sentence, and nothing is sent;
4. each mention left out is a `Notice` on the bus; an interrupt while asking sends nothing;
5. the turn runs with the command's `allowed-tools` and `model` (`command_turn`); its UserPromptSubmit hooks
   run as it starts (loop.py: a block erases the prompt, added context goes with it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from tui.agent.context.pins import is_pin_prompt as is_pin_prompt  # `#pin …`: a prompt kept verbatim, not a memory line
from tui.agent.events import Notice
from tui.hooks.commands import CustomCommand
from tui.hooks.expand import ExpansionRefused
from tui.hooks.prompt_input import parse_slash
from tui.tools.attachments import AskAttachment, attach_mentions

from .catalog import attachment_rules, command_turn, reload_catalog, render, session_catalog
from .user_calls import add_bash_context, run_bash_mode

if TYPE_CHECKING:
    from tui.agent.session import AgentSession

#: what a front end attaches itself after the pipeline's own steps: (the prompt, the ask) -> (prompt, notices)
Extra = Callable[[str, AskAttachment | None], tuple[str, list[str]]]


@dataclass(frozen=True)
class PromptSource:
    """A front end, and what it does differently with a prompt on purpose."""

    name: str
    #: someone can answer a question: an `@` mention that needs a yes is asked (else it is left out, said)
    can_ask: bool
    #: `!cmd` is Claude Code's bash mode (the app's); elsewhere it is prompt text
    bash_mode: bool = False
    #: the turn runs on the session's worker thread, the messages queued meanwhile after it (the app's queue);
    #: else on the calling thread, one turn
    background: bool = False


APP = PromptSource("app", can_ask=True, bash_mode=True, background=True)
PRINT = PromptSource("print", can_ask=False)
STREAM_JSON = PromptSource("stream-json", can_ask=False)
ACP = PromptSource("acp", can_ask=True)


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


@dataclass(frozen=True)
class Submitted:
    """What became of a prompt: refused (one sentence, nothing sent), interrupted before it was sent, or run."""

    refusal: str = ""
    cancelled: bool = False
    #: `!cmd` ran instead of a turn: its output and whether it failed
    bash: tuple[str, bool] | None = None


def prepare_prompt(
    session: AgentSession, text: str, cancel: threading.Event | None = None, ask: AskAttachment | None = None
) -> Prepared:
    """Expand `/name args` when `name` is a custom command or skill, then attach `@` files.

    `ask` asks the user about a mention that needs a yes; without it (`-p`) such a mention is refused.
    """
    parsed = parse_slash(text)
    if parsed is not None:
        command = session_catalog(session).get(parsed[0]) or reload_catalog(session).get(parsed[0])
        if command is not None:
            try:
                attached = render(session, command, parsed[1], cancel, ask)
            except ExpansionRefused as exc:
                return Prepared("", command, str(exc))
            return Prepared(attached.text, command, notices=attached.notices, images=attached.images)
    attached = attach_mentions(text, attachment_rules(session, ask is not None), ask)
    return Prepared(attached.text, notices=attached.notices, images=attached.images)


def run_prompt(
    session: AgentSession,
    text: str,
    *,
    source: PromptSource,
    images: tuple[dict[str, Any], ...] = (),
    extra: Extra | None = None,
    before_turn: Callable[[], None] | None = None,
) -> Submitted:
    """Take `text` (with the pictures the front end attached) through the pipeline; what became of it.

    With `source.background` the call returns once the turn has started (a command's turn: once it has ended,
    so its `allowed-tools` and `model` revert); else once the turn has ended. `before_turn` runs when the turn is
    about to start (nothing refused). A turn already running raises RuntimeError (session.submit).
    """
    cancel = session.cancel_event
    cancel.clear()  # a new prompt: an interrupt of the turn before it is over
    if source.bash_mode and text.startswith("!") and text[1:].strip():
        line = text[1:].strip()
        output, is_error = run_bash_mode(session, line, cancel)
        add_bash_context(session, line, output, is_error)
        return Submitted(bash=(output, is_error))
    from tui.agent.loop.permission_gate import ask_to_attach

    ask = partial(ask_to_attach, session, cancel=cancel) if source.can_ask else None
    prepared = prepare_prompt(session, text, cancel, ask)
    if prepared.refusal:
        return Submitted(refusal=prepared.refusal)
    prompt, notices = prepared.prompt, list(prepared.notices)
    if extra is not None:
        prompt, more = extra(prompt, ask)
        notices += more
    for notice in notices:  # the prompt goes without what was left out, and the user is told
        session.publish(Notice(level="warning", text=notice))
    if cancel.is_set():  # interrupted while a question was open: nothing is sent
        return Submitted(cancelled=True)
    pictures = (*images, *prepared.images)  # the front end's (the app's chips), then the `@` mentions'
    if before_turn is not None:
        before_turn()
    with command_turn(session, prepared.command):
        if not source.background:
            session.run_turn(prompt, pictures)
        else:
            session.submit(prompt, pictures)
            if prepared.command is not None:
                session.wait()
    return Submitted()
