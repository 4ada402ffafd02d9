"""One question to the small fast model outside the conversation (WebFetch answers its prompt over a page)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .request import build_request
from .retry import classify
from .stream import StreamError, StreamInterrupted, run_stream

if TYPE_CHECKING:
    from tui.agent.session import AgentSession

SYSTEM = "You answer a question about the content of one web page, briefly and only from that content."
MAX_TOKENS = 4096


def small_model(session: AgentSession) -> str:
    """ANTHROPIC_SMALL_FAST_MODEL / `small_fast_model`, else Haiku."""
    from tui.providers.config import canonical_model

    return session.options.small_fast_model or canonical_model("haiku")


def side_query(session: AgentSession, prompt: str) -> str:
    """The small model's text answer to `prompt`; RuntimeError with one sentence when it fails."""
    body = build_request(
        model=small_model(session),
        max_tokens=MAX_TOKENS,
        system=[{"type": "text", "text": SYSTEM}],
        tools=[],
        messages=[{"role": "user", "content": [{"type": "text", "text": prompt}]}],
    )
    quiet: Any = lambda event: None  # noqa: E731 - not part of the turn's stream
    try:
        result = run_stream(
            session.client(),
            {k: v for k, v in body.items() if k != "stream"},
            iteration=0,
            publish=quiet,
            cancel=session.cancel_event,
        )
    except StreamInterrupted:
        raise RuntimeError("interrupted by the user") from None
    except StreamError as exc:
        raise RuntimeError(classify(exc.cause, body["model"]).message) from None
    session.record_usage(result.usage, measure_context=False)
    text = "\n\n".join(b.get("text", "") for b in result.message.get("content", ()) if b.get("type") == "text")
    if not text.strip():
        raise RuntimeError(f"the model gave no answer (stop_reason {result.stop_reason})")
    return text
