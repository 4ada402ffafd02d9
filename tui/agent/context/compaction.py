"""Compaction: replace older turns with a model-written summary, keep recent turns verbatim.

The new history is one user message holding the summary (and the user's focus, and every
pinned prompt the kept turns do not hold), then the recent messages exactly as they were.
The cut falls on a user-prompt boundary when one leaves enough recent turns, otherwise just
before an assistant message, so every tool_use keeps its tool_result. Memory files stay in
system[] and are read again from disk afterwards. The summary request is an ordinary
streamed call with the same system and tools and a plain instruction not to call tools; it
is shown and priced like any request (iteration 0), and fails safe: on any error the
history stays as it was and the failure is reported in CompactionFinished. A history larger
than one request can hold is summarised in pieces, each within the window, and what is too
old for the pieces is left out with a note (compaction_pieces.py). An interrupt (Esc, Ctrl+C)
between or during its requests leaves the history as it was and ends the turn as interrupted.

The `compaction` setting decides what reaching the threshold does: `auto` compacts, `ask`
asks first (CompactionProposed, answered by the app's dialog; `-p` cannot ask, so it
compacts), `off` never compacts on its own.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tui.agent.api.request import build_request
from tui.agent.api.retry import backoff_delay, classify
from tui.agent.api.stream import StreamError, StreamInterrupted, run_stream
from tui.agent.cost.cost import record_response
from tui.agent.cost.pricing import usage_cost
from tui.agent.events import CompactionFinished, CompactionStarted, Event, Notice, RequestSent, ResponseFinished
from tui.text.wording import plural

from .compaction_pieces import Pieces, choose_pieces, fit, lead_text, left_out_note, piece_messages
from .compaction_pieces import (
    is_prompt as is_prompt,  # the module's public name before pieces moved it (compaction_plan, tests)
)
from .context import estimate_tokens, summary_budget
from .pins import pinned_blocks
from .summary_words import CARRIED
from .summary_words import INSTRUCTION as INSTRUCTION
from .summary_words import SUMMARY_HEADER as SUMMARY_HEADER

if TYPE_CHECKING:
    from tui.agent.session import AgentSession

#: messages kept verbatim at least (when a cut point allows it)
KEEP_MESSAGES = 6


INTERRUPTED = "Compaction interrupted by the user; the history is unchanged."


class CompactionInterrupted(RuntimeError):
    """The user interrupted the compaction (Esc, Ctrl+C): the history stays as it was."""


#: the API's 400 for a request over the window: "prompt is too long: 205030 tokens > 200000 maximum"
TOO_LONG = re.compile(r"prompt is too long: ([\d,]+) tokens? > ([\d,]+)")


class SummaryTooLong(RuntimeError):
    """The API counted a summary request as over the window (our estimate was short): `ratio` is its count over
    ours, to plan the pieces again with."""

    def __init__(self, message: str, ratio: float) -> None:
        super().__init__(message)
        self.ratio = ratio


@dataclass
class CompactionResult:
    ok: bool
    summary: str
    messages_before: int
    messages_after: int
    detail: str = ""
    interrupted: bool = False


def choose_cut(messages: list[dict[str, Any]], keep: int = KEEP_MESSAGES) -> int | None:
    """Index of the first message kept verbatim, or None when nothing can be summarised."""
    limit = len(messages) - keep
    prompts = [i for i in range(1, len(messages)) if is_prompt(messages[i]) and i <= limit]
    if prompts:
        return prompts[-1]
    replies = [i for i in range(2, len(messages)) if messages[i].get("role") == "assistant"]
    fitting = [i for i in replies if i <= limit]
    if fitting:
        return fitting[-1]
    return replies[-1] if replies else None


def _instruction(focus: str, part: int, parts: int, carried: bool) -> str:
    text = INSTRUCTION + (f"\n\n{CARRIED.format(part=part, parts=parts)}" if carried else "")
    return text + (f"\n\nPay particular attention to: {focus}" if focus else "")


def compacted_history(
    summary: str, focus: str, kept: list[dict[str, Any]], pins: list[str] | tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """The new history: the summary and the pinned prompts as a user message (merged into a kept prompt), then `kept`."""
    text = f"{SUMMARY_HEADER}\n\n{summary.strip()}"
    if focus:
        text += f"\n\nThe user asked to focus on: {focus}"
    blocks = [{"type": "text", "text": text}, *pinned_blocks(list(pins), kept)]
    if kept and kept[0].get("role") == "user":
        first = kept[0]
        content = (
            first["content"] if isinstance(first["content"], list) else [{"type": "text", "text": first["content"]}]
        )
        return [{"role": "user", "content": [*blocks, *content]}, *kept[1:]]
    return [{"role": "user", "content": blocks}, *kept]


def summarise(session: AgentSession, older: list[dict[str, Any]], focus: str) -> tuple[str, Pieces]:
    """The summary of `older`, in pieces when one request cannot hold it (compaction_pieces.py), with a note
    on what was left out; planned once more with the API's own count when it refuses a request as too long.
    Raises CompactionInterrupted, or RuntimeError on any other failure."""
    try:
        return _summarise(session, older, focus, 1.0)
    except SummaryTooLong as exc:
        return _summarise(session, older, focus, exc.ratio * 1.05)


def _summarise(session: AgentSession, older: list[dict[str, Any]], focus: str, ratio: float) -> tuple[str, Pieces]:
    pieces = choose_pieces(session, older, focus, ratio)
    room = pieces.budget + (summary_budget(session) if len(pieces.spans) > 1 else 0)  # with the carried summary's
    running = pieces.carried
    for part, (start, end) in enumerate(pieces.spans, 1):
        if session.cancel_event.is_set():
            raise CompactionInterrupted()
        lead = lead_text(running, pieces.left_out > 0)
        messages = piece_messages(
            fit(older[start:end], room - estimate_tokens(lead)),
            lead,
            _instruction(focus, part, len(pieces.spans), bool(running)),
        )
        running = request_summary(session, messages)
    note = left_out_note(older, pieces)
    return (f"{running.strip()}\n\n{note}" if note else running), pieces


def request_summary(session: AgentSession, messages: list[dict[str, Any]]) -> str:
    """Ask the model for one summary (retrying what a retry can mend); raises RuntimeError on failure."""
    opts = session.options
    body = build_request(
        model=opts.small_fast_model or opts.model,
        max_tokens=summary_budget(session),
        system=session.system_blocks(),
        tools=session.tool_definitions(),
        messages=messages,
    )
    params = {k: v for k, v in body.items() if k != "stream"}
    quiet: Any = lambda event: None  # noqa: E731 - the summary's deltas are not part of a turn
    attempts = opts.max_retries + 1
    for attempt in range(1, attempts + 1):
        sent_at = session.costs.clock()
        session.publish(RequestSent(iteration=0, attempt=attempt, model=body["model"], body=body))
        try:
            result = run_stream(session.client(), params, iteration=0, publish=quiet, cancel=session.cancel_event)
        except StreamInterrupted:
            raise CompactionInterrupted() from None
        except StreamError as exc:
            failure = classify(exc.cause, opts.model)
            if failure.status == 400 and (found := TOO_LONG.search(failure.message)):
                counted, estimated = int(found[1].replace(",", "")), estimate_tokens(body)
                raise SummaryTooLong(failure.message, max(1.0, counted / max(1, estimated))) from None
            if not failure.retryable or attempt == attempts:
                raise RuntimeError(failure.message) from None
            if session.cancel_event.wait(
                backoff_delay(attempt, opts.retry_base_delay, opts.retry_max_delay, failure.retry_after)
            ):
                raise CompactionInterrupted() from None
            continue
        price = "offline-demo" if session.offline else body["model"]  # the small fast model when one is set
        session.publish(
            ResponseFinished(
                iteration=0,
                message=result.message,
                stop_reason=result.stop_reason,
                usage=result.usage,
                request_id=result.request_id,
                ttfb_ms=result.ttfb_ms,
                duration_ms=result.duration_ms,
                cost_usd=usage_cost(result.usage, price),
                raw_events=tuple(result.raw_events),
            )
        )
        session.record_usage(result.usage, measure_context=False, model=price)
        record_response(session, body, result.usage, result.message, iteration=0, sent_at=sent_at, kind="compaction")
        summary = "\n\n".join(b.get("text", "") for b in result.message.get("content", ()) if b.get("type") == "text")
        if result.stop_reason not in ("end_turn", "max_tokens", "stop_sequence") or not summary.strip():
            raise RuntimeError(f"the model gave no summary (stop_reason {result.stop_reason})")
        return summary
    raise RuntimeError("no attempt left")


def compact(session: AgentSession, focus: str = "", *, automatic: bool = False) -> CompactionResult:
    """Summarise older turns and continue from summary + recent turns. Never leaves a broken history."""
    from .compaction_plan import compaction_plan, dropped_excerpts

    focus = focus.strip()
    if not automatic:
        if session.running:
            raise RuntimeError("Cannot compact while a turn is running.")
        session.cancel_event.clear()
    before = list(session.messages)
    used, _ = session.context.current()
    publish: Any = session.publish
    publish(CompactionStarted(automatic=automatic, used_tokens=used))
    cut = choose_cut(before)
    if cut is None:
        session.context.stuck_at = len(before)
        return _finish(
            publish,
            CompactionResult(False, "", len(before), len(before), "There is too little history to compact yet."),
        )
    if session.hooks is not None and (blocked := session.hooks.compact_blocked(automatic, focus)):
        session.context.stuck_at = len(before)  # a PreCompact hook said no: not again before the history grows
        return _finish(publish, CompactionResult(False, "", len(before), len(before), blocked))
    plan = compaction_plan(session, before)
    try:
        summary, pieces = summarise(session, before[:cut], focus)
    except CompactionInterrupted:  # not stuck: the next prompt may compact again
        return _finish(
            publish,
            CompactionResult(False, "", len(before), len(before), INTERRUPTED, interrupted=True),
        )
    except RuntimeError as exc:
        session.context.stuck_at = len(before)
        return _finish(
            publish,
            CompactionResult(
                False, "", len(before), len(before), f"Compaction failed, the history is unchanged: {exc}."
            ),
        )
    plan["requests"] = len(pieces.spans)  # as sent (the plan's forecast did not know the focus)
    plan.pop("left_out", None)
    if pieces.left_out:
        plan["left_out"] = {"messages": pieces.left_out, "tokens": pieces.left_out_tokens}
    after = compacted_history(summary, focus, before[cut:], session.pins)
    session.messages = after
    _rebase_turn(session, cut, before[cut], summary, focus)
    dropped = dropped_excerpts(before[:cut])
    _remember_compaction(session, before, after, cut, summary, focus, automatic, plan, dropped)
    session.context.reset()
    result = _finish(
        publish,
        CompactionResult(True, summary, len(before), len(after), _done_detail(cut, pieces)),
        plan,
        dropped,
    )
    session.context.publish()
    if session.hooks is not None:  # SessionStart with source "compact"; its context goes with the next prompt
        session.hook_context += session.hooks.compacted()
    return result


def _done_detail(cut: int, pieces: Pieces) -> str:
    detail = f"Compacted {plural(cut, 'older message')} into a summary"
    if len(pieces.spans) > 1:
        detail += (
            f", written in {plural(len(pieces.spans), 'request')} (the history was larger than one request can hold)"
        )
    if pieces.left_out:
        detail += (
            f"; the oldest {plural(pieces.left_out, 'message')} (about {plural(pieces.left_out_tokens, 'token')}) "
            "were left out unsummarised, as the summary says, and remain in the transcript"
        )
    return detail + "."


def _rebase_turn(session: AgentSession, cut: int, first_kept: dict[str, Any], summary: str, focus: str) -> None:
    """Where the running turn began, in the compacted history (its answer and a retracted prompt depend on it).

    messages[:cut] became one summary message, merged into the first kept message when that is a user one.
    """
    count, last = session.turn_start
    merged = first_kept.get("role") == "user"
    if count <= cut:  # the turn's prompt was summarised too: its messages start after the summary
        session.turn_start = (1, session.messages[0])
        return
    new = count - cut + (0 if merged else 1)
    if new == 1 and merged and last is not None:  # the message before the prompt is the summary's now
        last = compacted_history(summary, focus, [last], session.pins)[0]
    session.turn_start = (new, last)


def _remember_compaction(
    session: AgentSession,
    before: list[dict[str, Any]],
    after: list[dict[str, Any]],
    cut: int,
    summary: str,
    focus: str,
    automatic: bool,
    plan: dict[str, Any],
    dropped: tuple[dict[str, Any], ...],
) -> None:
    """Keep what was dropped beside the summary (transcript, checkpoints, /context) and re-read the memory files."""
    if session.transcript:
        session.transcript.write(
            {
                "type": "compaction",
                "automatic": automatic,
                "focus": focus,
                "summary": summary,
                "messages_before": len(before),
                "dropped_messages": cut,
                "plan": plan,
                "messages": after,
            }
        )
    session.checkpoints.compacted(before)  # /rewind can go back to a prompt before the summary
    session.costs.note_rewrite(session.loop_path, "history compacted")
    session.compactions.append(
        {
            "at": time.time(),
            "automatic": automatic,
            "focus": focus,
            "summary": summary,
            "plan": plan,
            "dropped": dropped,
            "summary_tokens": estimate_tokens(summary),
        }
    )
    session.reload_memory(compacted=True)  # AGENTS.md / CLAUDE.md as they are now go with the next request


def _finish(
    publish: Any, result: CompactionResult, plan: dict[str, Any] | None = None, dropped: tuple[dict[str, Any], ...] = ()
) -> CompactionResult:
    event: Event = CompactionFinished(
        interrupted=result.interrupted,
        summary=result.summary,
        messages_before=result.messages_before,
        messages_after=result.messages_after,
        ok=result.ok,
        detail=result.detail,
        plan=plan or {},
        dropped=dropped,
    )
    publish(event)
    return result


def maybe_auto_compact(session: AgentSession) -> CompactionResult | None:
    """Before the next request passes the threshold: compact, ask first, or leave it (the `compaction` setting)."""
    if not session.context.should_compact():
        return None
    mode = getattr(session.options, "compaction", "auto")
    if mode == "off":
        return None
    focus = ""
    if mode == "ask" and session.options.interactive and choose_cut(session.messages) is not None:
        if session.context.declined_turn == session.turn_count:  # "not now" holds for the rest of the turn
            return None
        from .compaction_plan import ask_to_compact

        answer = ask_to_compact(session)
        if answer.get("choice") not in ("now", "focus"):
            session.context.declined_turn = session.turn_count
            session.publish(Notice(level="info", text="Compaction postponed: asked again at the next prompt."))
            return None
        focus = str(answer.get("focus") or "")
    return compact(session, focus, automatic=True)
