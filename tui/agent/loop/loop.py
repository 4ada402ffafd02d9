"""The seed's agent loop (docs/architecture.md#the-loop), run on a worker thread.

    user prompt -> request(system[], messages[], tools[]) -> stream the response
      -> stop_reason == tool_use ? run the tools, send every result in one user message, repeat
         (messages the user queued meanwhile go in that same message, after the results: steer.py)
      -> otherwise leave, saying why

`stop_reason` alone drives the loop; the client never guesses from the text. Anything
that leaves the loop early (limits, interrupts, fatal errors) is a LoopStop exception
carrying its reason.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

from tui.agent.api.request import build_request, sdk_params
from tui.agent.api.retry import CREDENTIALS, backoff_delay, classify
from tui.agent.api.stream import StreamError, StreamInterrupted, StreamResult, run_stream
from tui.agent.api.thinking import ThinkingChoice
from tui.agent.context.compaction import maybe_auto_compact
from tui.agent.cost.cost import record_response
from tui.agent.cost.pricing import add_usage, max_output_tokens, total_tokens, usage_cost
from tui.agent.events import (
    LoopStopped,
    RequestSent,
    ResponseFinished,
    RetryScheduled,
    StopReasonHandled,
    ToolResultsSent,
    TurnFinished,
    TurnStarted,
)
from tui.text.wording import plural

from .fallback import switch_to_fallback
from .guards import LoopStop, ProgressGuard
from .steer import steer
from .tool_belt import MAX_PAUSE_TURNS, notification_blocks, pause_streak, remind_mode

if TYPE_CHECKING:
    from tui.agent.session import AgentSession

#: an API 400 message about a picture ("messages.0.content.1.image.source…", "Could not process image")
IMAGE_REFUSAL = re.compile(r"\bimage", re.IGNORECASE)
NOT_RUN_CUT = "Not executed: the response was cut by max_tokens, so this tool input may be incomplete. Ask again with a shorter step."


def run_turn(session: AgentSession, prompt: str, images: tuple[dict[str, Any], ...] = ()) -> None:
    """Run one user turn to its end (`images`: attached pictures, sent before the text); always publishes
    LoopStopped then TurnFinished."""
    turn = session.begin_turn(prompt, images)
    # thinking and effort stay as they were when the turn began (the API ignores thinking toggled in a tool loop)
    choice = ThinkingChoice.for_turn(session.options, prompt, words=session.loop_path == "main")
    remind_mode(session)
    session.publish(TurnStarted(turn_id=turn.turn_id, prompt=prompt, images=images))
    guard = ProgressGuard(session.options.no_progress_warn, session.options.no_progress_stop)
    stop = LoopStop("error", "the loop ended without a reason", is_error=True)
    try:
        if session.hooks is not None:  # UserPromptSubmit: may block (erase) the prompt or add context
            session.hooks.prompt_submitted(prompt)
        session.sync_mcp(prompt)  # MCP servers this turn needs, their tools between turns (tui/mcp/runtime.py)
        while True:
            check_limits(session, turn)
            steer(session, turn.iterations + 1)  # messages typed meanwhile join this request, after the results
            compacted = maybe_auto_compact(session)
            if session.cancel_event.is_set():  # while compacting or asking to: "interrupted", not "context_full"
                during = " while the context was compacted; the history is unchanged" if compacted else ""
                raise LoopStop("interrupted", f"Interrupted by the user{during}.")
            check_fits(session, turn)
            turn.iterations += 1
            result = call_model(session, turn.iterations, choice)
            turn.last_stop_reason = result.stop_reason
            add_usage(turn.usage, result.usage)
            turn.cost_usd += usage_cost(result.usage, session.pricing_model)
            handle_stop_reason(session, turn.iterations, result, guard)  # raises LoopStop to leave
    except LoopStop as exc:
        stop = exc
    except Exception as exc:  # a bug must end the turn cleanly, with the history valid
        stop = LoopStop("error", f"Internal error: {type(exc).__name__}: {exc}", is_error=True)
    finally:
        session.repair_history()
        session.publish(
            LoopStopped(
                reason=stop.reason, detail=stop.detail, is_error=stop.is_error, stop_reason=turn.last_stop_reason
            )
        )
        if session.loop_path == "main":  # the turn's cost counts its subagents and compactions too
            turn.cost_usd = session.costs.turn_total(turn.turn_id, turn.cost_usd)
        session.end_turn(turn)
        session.publish(
            TurnFinished(
                turn_id=turn.turn_id,
                stop_reason=stop.reason,
                is_error=stop.is_error,
                num_iterations=turn.iterations,
                duration_ms=int((time.monotonic() - turn.started) * 1000),
                usage=dict(turn.usage),
                cost_usd=turn.cost_usd,
                session_usage=dict(session.usage_totals),
                session_cost_usd=session.cost_usd,
            )
        )


def refused_images(session: AgentSession, failure: Any) -> str:
    """When a 400 is about an image: the newest pictures replaced by a note (never resent), and a sentence saying so."""
    if failure.status != 400 or not IMAGE_REFUSAL.search(failure.message):
        return ""
    count = session.drop_refused_images(failure.message.rpartition("): ")[2][:300])
    if not count:
        return ""
    return f" The {plural(count, 'image')} of the last message {'was' if count == 1 else 'were'} replaced by a note, so resuming never sends {'it' if count == 1 else 'them'} again."


def check_limits(session: AgentSession, turn: Any) -> None:
    """Stop before the next request when a turn or token limit is reached, or on interrupt."""
    opts = session.options
    if session.cancel_event.is_set():
        raise LoopStop("interrupted", "Interrupted by the user.")
    if opts.max_turns is not None and turn.iterations >= opts.max_turns:
        raise LoopStop(
            "max_turns", f"Reached the limit of {plural(opts.max_turns, 'model call')} (--max-turns).", is_error=True
        )
    if opts.max_budget_tokens is not None:
        spent = total_tokens(session.usage_totals)
        if spent >= opts.max_budget_tokens:
            raise LoopStop(
                "budget",
                f"The token budget is spent: {spent:,} of {plural(opts.max_budget_tokens, 'token')}.",
                is_error=True,
            )
    if opts.max_budget_usd is not None and session.cost_usd >= opts.max_budget_usd:
        raise LoopStop(
            "max_budget_usd",
            f"The cost budget is spent: {usd(session.cost_usd)} of {usd(opts.max_budget_usd)} (--max-budget-usd).",
            is_error=True,
        )


def usd(amount: float) -> str:
    """Dollars with cents, and the fractions of a cent a small budget needs ($0.50, $0.0093, $0.000001)."""
    text = f"{amount:.6f}".rstrip("0")
    return "$" + (text + "0" * max(0, 2 - len(text.partition(".")[2])))


def check_fits(session: AgentSession, turn: Any) -> None:
    """Refuse a request still larger than the context window (compaction failed or was not enough).

    Sending it would only earn a 400; a new prompt that does not fit is taken back out of the
    history so the next, shorter one can go.
    """
    used, estimated = session.context.current()
    window = session.context.window()
    if used <= window:
        return
    about = "about " if estimated else ""
    if turn.iterations == 0:
        session.retract_prompt()
        raise LoopStop(
            "context_full",
            f"The prompt was not sent: the request would take {about}{plural(used, 'token')}, more "
            f"than the {window:,}-token context window even after compaction; send a shorter prompt or "
            "start over with /clear.",
            is_error=True,
        )
    raise LoopStop(
        "context_full",
        f"The next request would take {about}{plural(used, 'token')}, more than the "
        f"{window:,}-token context window even after compaction, so it was not sent; /compact or "
        "/clear to go on.",
        is_error=True,
    )


def call_model(session: AgentSession, iteration: int, choice: ThinkingChoice | None = None) -> StreamResult:
    """One model call, retried on failures that a retry can mend; the partial message is discarded."""
    opts = session.options
    client = session.client()
    body = build_request(
        model=opts.model,
        max_tokens=max_output_tokens(opts.model, opts.max_tokens),
        system=session.system_blocks(),
        tools=session.tool_definitions(),
        messages=session.messages,
        choice=choice,
    )
    params = sdk_params(body)
    max_attempts = opts.max_retries + 1
    for attempt in range(1, max_attempts + 1):
        sent_at = session.costs.clock()
        session.publish(RequestSent(iteration=iteration, attempt=attempt, model=opts.model, body=body))
        try:
            result = run_stream(
                client, params, iteration=iteration, publish=session.publish, cancel=session.cancel_event
            )
        except StreamInterrupted as exc:
            session.keep_partial_text(exc.partial)
            raise LoopStop("interrupted", "Interrupted by the user while the reply streamed.") from None
        except StreamError as exc:
            failure = classify(exc.cause, opts.model)
            if not failure.retryable:
                session.keep_partial_text(exc.partial)  # what had arrived stays in the conversation
                reason = {"malformed stream": "stream_failed", CREDENTIALS: CREDENTIALS}.get(
                    failure.reason, "api_error"
                )
                raise LoopStop(reason, failure.message + refused_images(session, failure), is_error=True) from None
            if attempt == max_attempts:
                if switch_to_fallback(session, failure):  # --fallback-model, once
                    return call_model(session, iteration, choice)
                session.keep_partial_text(exc.partial)
                reason = "api_error" if failure.status else "stream_failed"
                raise LoopStop(
                    reason, f"Gave up after {plural(attempt, 'attempt')}: {failure.message}", is_error=True
                ) from None
            delay = backoff_delay(attempt, opts.retry_base_delay, opts.retry_max_delay, failure.retry_after)
            session.publish(
                RetryScheduled(
                    iteration=iteration,
                    attempt=attempt + 1,
                    max_attempts=max_attempts,
                    delay_s=round(delay, 3),
                    reason=failure.reason,
                    status=failure.status,
                )
            )
            if session.cancel_event.wait(delay):
                raise LoopStop("interrupted", "Interrupted by the user while waiting to retry.") from None
            continue
        session.publish(
            ResponseFinished(
                iteration=iteration,
                message=result.message,
                stop_reason=result.stop_reason,
                usage=result.usage,
                request_id=result.request_id,
                ttfb_ms=result.ttfb_ms,
                duration_ms=result.duration_ms,
                cost_usd=usage_cost(result.usage, session.pricing_model),
                raw_events=tuple(result.raw_events),
            )
        )
        session.record_usage(result.usage)
        record_response(session, body, result.usage, result.message, iteration=iteration, sent_at=sent_at)
        return result
    raise AssertionError("unreachable")


def handle_stop_reason(session: AgentSession, iteration: int, result: StreamResult, guard: ProgressGuard) -> None:
    """Act on the response's stop_reason: return to go round again, raise LoopStop to leave."""
    reason = result.stop_reason
    message = result.message
    tool_uses = [b for b in message["content"] if b.get("type") == "tool_use"]

    def handled(action: str) -> None:
        session.publish(StopReasonHandled(iteration=iteration, stop_reason=reason, action=action))

    if reason == "tool_use" and not tool_uses:  # nothing to run: answering with no results would be an invalid request
        session.append_message_if_valid(message)
        handled("tool_use without a tool call: turn ends")
        raise LoopStop(
            "stream_failed", "The API stopped for tool_use but sent no tool call; the turn ends.", is_error=True
        )
    if reason == "tool_use":
        session.append_message(message)
        calls = [(b.get("name", ""), b.get("input")) for b in tool_uses]
        warnings, stop_detail = guard.record_iteration(calls)
        parallel = session.dispatcher.parallel_count(tool_uses)
        alone = "" if len(tool_uses) == 1 else ", one at a time"
        handled(f"dispatching {plural(len(tool_uses), 'tool')}" + (f", {parallel} in parallel" if parallel else alone))
        outcome = session.dispatcher.run(tool_uses, session.cancel_event, warnings)
        session.denials.extend(outcome.denials)
        results_message = {"role": "user", "content": [*outcome.results, *notification_blocks(session.state.tasks)]}
        session.append_message(results_message)
        session.publish(ToolResultsSent(iteration=iteration, message=results_message))
        if outcome.interrupted:
            raise LoopStop("interrupted", "Interrupted by the user while tools ran.")
        if outcome.fatal:
            raise LoopStop("tool_fatal", outcome.fatal, is_error=True)
        if session.hooks is not None and session.hooks.stop_reason:  # a hook said `continue: false`
            raise LoopStop("hook_stopped", session.hooks.take_stop())
        if stop_detail:
            raise LoopStop("no_progress", stop_detail, is_error=True)
        return
    if reason == "pause_turn":  # a long server tool run (web search) paused: send the content back to go on
        session.append_message(message)
        streak = pause_streak(session.messages)
        if streak > MAX_PAUSE_TURNS:
            handled(f"pause_turn: {MAX_PAUSE_TURNS} continuations in a row, turn ends")
            raise LoopStop(
                "max_turns", f"The API paused the turn {plural(streak, 'time')} in a row; the turn ends.", is_error=True
            )
        handled(f"server tool paused, turn continues ({streak}/{MAX_PAUSE_TURNS})")
        return
    if reason in ("end_turn", "stop_sequence"):
        session.append_message(message)
        if session.hooks is not None and session.hooks.keep_going(handled):  # a Stop hook blocked the end
            return
        if reason == "stop_sequence":
            handled(f"stop_sequence {message.get('stop_sequence') or ''}: turn ends".replace("  ", " "))
        else:
            handled("turn ends")
        raise LoopStop(reason, "The model ended its turn." if reason == "end_turn" else "A stop sequence matched.")
    if reason in ("max_tokens", "model_context_window_exceeded"):
        session.append_message(message)
        if tool_uses:  # never execute a tool_use cut off mid-input; answer it so the history stays valid
            results = [
                {"type": "tool_result", "tool_use_id": b["id"], "content": NOT_RUN_CUT, "is_error": True}
                for b in tool_uses
            ]
            session.append_message({"role": "user", "content": results})
        what = "max_tokens" if reason == "max_tokens" else "the context window"
        handled(f"{reason}: reply cut" + (f", {len(tool_uses)} cut tool call(s) not run" if tool_uses else ""))
        raise LoopStop(reason, f"The reply was cut by {what}.")
    if reason == "refusal":
        details = _refusal_details(result)
        handled("refusal: turn ends, partial output discarded")
        raise LoopStop("refusal", f"The model declined to respond{details}.", is_error=True)
    handled(f"unknown stop_reason {reason!r}: turn ends")
    session.append_message_if_valid(message)
    raise LoopStop(
        "unknown_stop_reason", f"The API returned an unknown stop_reason {reason!r}; the turn ends.", is_error=True
    )


def _refusal_details(result: StreamResult) -> str:
    for _, kind, data in result.raw_events:
        if kind == "stop_details":
            category = data.get("category")
            explanation = data.get("explanation")
            parts = [p for p in (category, explanation) if p]
            return f" ({': '.join(parts)})" if parts else ""
    return ""
