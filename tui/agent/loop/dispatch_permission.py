"""The permission gate of one tool call, top-down: the rules' verdict (with the sandbox's and the hooks' say),
then a hook's answer, then `-p`'s refusal, then the question to the user, whose answer is awaited on its future.

Every way a call's question ends goes through `resolve`: one `PermissionResolved` on the bus, and a refusal
counted among the turn's denials. Plain functions over the `Dispatcher` (its policy, hooks, bus and the
questions waiting), which the session and front ends configure after it is built.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from tui.agent.events import PermissionRequested, PermissionResolved
from tui.config.refusal_advice import print_mode_advice
from tui.sandbox import gate as sandbox_gate
from tui.tools.base import Tool, ToolContext
from tui.tools.cancel_signal import CancelSignal

from ..events.permission import PermissionReply
from .schema import validate

if TYPE_CHECKING:
    from .dispatch import Call, Dispatcher, DispatchOutcome

INTERRUPTED_TEXT = "Interrupted by the user: this tool call did not run to completion."


def resolve(
    d: Dispatcher,
    call: Call,
    *,
    allowed: bool,
    scope: str,
    reason: str = "",
    rule: str | None = None,
    outcome: DispatchOutcome | None = None,
) -> None:
    """Publish how the call's permission ended; a refusal is also counted in `outcome`'s denials (-p's result)."""
    d.publish(
        PermissionResolved(
            tool_use_id=call.id, tool_name=call.name, allowed=allowed, scope=scope, reason=reason, rule=rule
        )
    )
    if not allowed and outcome is not None:
        outcome.denials.append({"tool_name": call.name, "tool_use_id": call.id, "tool_input": call.input})


def verdict(d: Dispatcher, tool: Tool, call: Call, ctx: ToolContext) -> Any:
    """The rules' verdict on the call's input as it is now, with the sandbox's say."""
    found = d.policy.check(tool, call.input, ctx)
    mode = getattr(d.policy, "mode", "default")
    return sandbox_gate.adjust(found, tool, call.input, mode, ctx.project_dir, getattr(d.policy, "trusted", True))


def verdict_with_hooks(d: Dispatcher, tool: Tool, call: Call, ctx: ToolContext) -> Any:
    """The verdict now, with a PreToolUse hook's allow/ask as `permit` takes it (never over a rule)."""
    found = verdict(d, tool, call, ctx)
    return d.hooks.hook_verdict(found, call) if call.hook_outcome is not None else found


def permit(
    d: Dispatcher, tool: Tool, call: Call, ctx: ToolContext, cancel: threading.Event, outcome: DispatchOutcome
) -> tuple[bool, str]:
    """May the call run? (True, "") or (False, the text the model gets back)."""
    found = verdict_with_hooks(d, tool, call, ctx)
    if found.decision == "allow":
        return True, ""
    if found.decision == "deny":
        resolve(d, call, allowed=False, scope="rule", reason=found.reason, rule=found.rule, outcome=outcome)
        return False, f"Permission denied: {found.reason}"
    asked = call.input
    suggest = partial(d.policy.suggest_rule, tool, call.input, ctx)
    if d.hooks is not None and (answer := d.hooks.permission_by_hook(call, suggest)) is not None:
        again = verdict(d, tool, call, ctx) if answer[0] and call.input != asked else found
        leaves_sandbox = again.source == "sandbox" and found.source != "sandbox"
        if again.decision == "deny":  # the hook rewrote the input into a call the rules refuse
            resolve(d, call, allowed=False, scope="rule", reason=again.reason, rule=again.rule, outcome=outcome)
            return False, f"Permission denied: {again.reason}"
        if not (again.decision == "ask" and leaves_sandbox):  # leaving the sandbox is always the user's call
            resolve(d, call, allowed=answer[0], scope="hook", reason=answer[1])
            return cast(tuple[bool, str], answer)  # SessionHooks.permission_by_hook's answer
        found = again
    if not d.interactive:
        return False, _refuse_unasked(d, tool, call, ctx, found, outcome)
    return _ask(d, tool, call, ctx, cancel, found.reason, outcome)


def _refuse_unasked(
    d: Dispatcher, tool: Tool, call: Call, ctx: ToolContext, found: Any, outcome: DispatchOutcome
) -> str:
    """`-p` and other sessions without a person: the refusal, with the advice that fits why it asked."""
    resolve(d, call, allowed=False, scope="mode", reason="non-interactive: no one to ask", outcome=outcome)
    target = tool.permission_target(call.input, ctx) or call.name
    verb = "run" if tool.kind == "exec" else "write to" if tool.kind == "edit" else "use"
    try:
        suggested = d.policy.suggest_rule(tool, call.input, ctx)
    except Exception:
        suggested = call.name
    advice = print_mode_advice(found, tool.kind, call.input, suggested)
    return (
        f"Permission to {verb} {target} was not granted: {found.reason.rstrip('.')}, and this "
        f"session cannot ask (non-interactive). {advice}"
    )


def _ask(
    d: Dispatcher,
    tool: Tool,
    call: Call,
    ctx: ToolContext,
    cancel: threading.Event,
    reason: str,
    outcome: DispatchOutcome,
) -> tuple[bool, str]:
    """Publish the question, await its answer, and apply it (a rule to remember, a rewritten input)."""
    reply_future: Future[PermissionReply] = Future()
    try:
        preview = tool.preview(call.input, ctx)
    except Exception as exc:
        preview = {"kind": "text", "text": f"(no preview: {exc})"}
    try:
        suggested = d.policy.suggest_rule(tool, call.input, ctx)
    except Exception:
        suggested = tool.name
    d.publish(
        PermissionRequested(
            tool_use_id=call.id,
            tool_name=call.name,
            input=call.input,
            label=call.label,
            preview=preview,
            suggested_rule=suggested,
            reason=reason,
            reply=reply_future,
        )
    )
    if d.hooks is not None:
        d.hooks.notify("permission_prompt", f"Claude needs your permission to use {call.name}")
    settled_by_rule = partial(_settled, d, call)
    d.pending.add(call.id, reply_future, partial(verdict_with_hooks, d, tool, call, ctx), settled_by_rule)
    try:
        reply = await_reply(reply_future, cancel, d.policy, d.pending.settle)
    finally:
        settled = d.pending.remove(call.id)
    if settled is not None:  # another answer's rule allowed it; PermissionResolved is published
        return True, ""
    if reply is None:
        resolve(d, call, allowed=False, scope="interrupted")
        return False, INTERRUPTED_TEXT
    changed_input = reply.allowed and reply.updated_input is not None and reply.updated_input != call.input
    if changed_input and (refusal := _take_updated_input(d, tool, call, ctx, reply, outcome)):
        return False, refusal
    rule = reply.rule or suggested
    if reply.allowed and reply.scope == "session":
        d.policy.add_session_rule(rule)
    elif reply.allowed and reply.scope == "always":
        d.policy.save_rule(rule, reply.destination)
    if reply.allowed and reply.scope in ("session", "always"):
        d.pending.settle(exclude=call.id)  # the questions queued behind this one that the rule allows
    remembered = rule if reply.scope != "once" else None
    why = reply.reason or reply.answered_by
    resolve(d, call, allowed=reply.allowed, scope=reply.scope, reason=why, rule=remembered, outcome=outcome)
    if reply.allowed:
        return True, ""
    if reply.answered_by and reply.reason:  # the Agent SDK's can_use_tool: its message is the result, as Claude Code
        return False, reply.reason
    text = f"The user denied permission to run {call.name}."
    if reply.reason:
        return False, f"{text} Their reason: {reply.reason}"
    return False, f"{text} Do not retry it; ask the user what to do instead."


def _take_updated_input(
    d: Dispatcher, tool: Tool, call: Call, ctx: ToolContext, reply: PermissionReply, outcome: DispatchOutcome
) -> str | None:
    """Run the call with the input the answer gave (the Agent SDK's updatedInput); the refusal when it cannot.

    The new input must fit the tool's schema, and no deny rule may stop it: the answer allowed this call,
    not one the rules refuse.
    """
    assert reply.updated_input is not None
    if problem := validate(reply.updated_input, tool.call_schema()):
        refusal = f"Invalid input for {call.name} after {reply.answered_by or 'the answer'} rewrote it: {problem}"
    else:
        call.block = {**call.block, "input": reply.updated_input}
        found = verdict(d, tool, call, ctx)
        if found.decision != "deny":
            return None
        refusal = f"Permission denied: {found.reason}"
    resolve(d, call, allowed=False, scope="rule", reason=refusal, outcome=outcome)
    return refusal


def _settled(d: Dispatcher, call: Call, found: Any) -> None:
    """A rule added elsewhere allowed the waiting question (PendingAsks.settle): its dialog closes."""
    resolve(d, call, allowed=True, scope="rule", reason=found.reason, rule=found.rule)


def await_reply(
    reply: Future[PermissionReply],
    cancel: threading.Event,
    policy: Any,
    rules_changed: Callable[[], None],
) -> PermissionReply | None:
    """The answer; None when interrupted (the question is withdrawn: its future cancelled).

    Nothing polls: the wait sleeps until the reply's future is done, the cancel signal is raised, or the
    policy says the mode or an allow rule changed, which calls `rules_changed` here (not on the thread that
    changed them: the UI's). A future cancelled otherwise (a rule settled it: PendingAsks) or failed reads as
    a denial; the caller asks PendingAsks first.
    """
    if not isinstance(cancel, CancelSignal):
        raise TypeError("A permission question needs a CancelSignal (tui.tools.cancel_signal) to be interrupted.")
    wake, rules_moved = threading.Event(), threading.Event()
    reply.add_done_callback(lambda _: wake.set())

    def on_rules() -> None:
        rules_moved.set()
        wake.set()

    stops = [cancel.watch(wake.set)]
    if hasattr(policy, "watch"):
        stops.append(policy.watch(on_rules))
    try:
        while True:
            wake.wait()
            wake.clear()
            if cancel.is_set():
                reply.cancel()
                return None
            if reply.done():
                return _answer(reply)
            if rules_moved.is_set():  # a rule from elsewhere (an @ attachment's answer), or the mode
                rules_moved.clear()
                rules_changed()
    finally:
        for stop in stops:
            stop()


def _answer(reply: Future[PermissionReply]) -> PermissionReply:
    try:
        return reply.result()
    except Exception:  # cancelled (settled by a rule, or a front end gave up) or failed: taken as a denial
        return PermissionReply(False, reason="")
