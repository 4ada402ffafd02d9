"""`--fallback-model`: when the model stays overloaded after every retry, go on with the fallback (once)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.agent.api.retry import Failure
from tui.agent.events import Notice

if TYPE_CHECKING:
    from tui.agent.session import AgentSession


def switch_to_fallback(session: AgentSession, failure: Failure) -> bool:
    """Switch the session to the fallback model after an overload that outlasted the retries; True if it did."""
    opts = session.options
    fallback = opts.fallback_model
    if not fallback or failure.reason != "overloaded" or fallback == opts.model:
        return False
    session.publish(
        Notice(level="warning", text=f"{opts.model} is overloaded; switched to the fallback model {fallback}.")
    )
    opts.model, opts.fallback_model = fallback, None
    return True
