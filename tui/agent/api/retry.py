"""Which failed API calls to retry, how long to wait, and what to tell the user.

The loop owns every retry (the SDK's max_retries is 0) so that each retry is visible as
a RetryScheduled event, honours retry-after exactly, and can be interrupted. Failures
the SDK never retries are covered too: an `error` event inside a 200 stream, a dropped
connection, a stalled stream, a stream that ends without `message_stop`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504, 529}
RETRYABLE_SSE_TYPES = {"overloaded_error", "api_error", "rate_limit_error", "timeout_error"}
#: the Failure reason (and the loop's stop reason) when the credentials could not be had
CREDENTIALS = "credentials"


@dataclass(frozen=True)
class Failure:
    """A classified failure: retry it or stop with `message`."""

    retryable: bool
    reason: str  # short: "overloaded", "rate limited", "connection dropped", ...
    message: str  # one sentence for the user
    status: int | None = None
    retry_after: float | None = None


class IncompleteStream(Exception):
    """The stream ended without `message_stop` (or without a stop_reason)."""


class EmptyStream(IncompleteStream):
    """A 200 answer that carried no event at all."""


class MalformedStream(Exception):
    """The stream broke the protocol (not SSE, an unknown block index, invalid Unicode); the text says how."""


def _retry_after(headers: Any) -> float | None:
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(float(ms) / 1000.0, 0.0)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(float(value), 0.0)
        except ValueError:
            import datetime as _dt
            from email.utils import parsedate_to_datetime

            when = parsedate_to_datetime(value)
            return max((when - _dt.datetime.now(when.tzinfo)).total_seconds(), 0.0)
    except (TypeError, ValueError):
        return None


def _status_reason(status: int, error_type: str | None) -> str:
    if status == 529 or error_type == "overloaded_error":
        return "overloaded"
    if status == 429 or error_type == "rate_limit_error":
        return "rate limited"
    if status in (408, 504) or error_type == "timeout_error":
        return "request timed out"
    return f"server error {status}" if status >= 500 else f"HTTP {status}"


def _fatal_message(status: int, error_type: str | None, api_message: str, model: str) -> str:
    if status == 401:
        return "The API key was rejected (401 authentication_error): check ANTHROPIC_API_KEY."
    if status == 403:
        return f"The API key is not allowed to do this (403 permission_error): {api_message}"
    if status == 404:
        return f"The model '{model}' was not found (404 not_found_error): pick another with --model."
    if status == 402:
        return f"Billing problem (402): {api_message}"
    if status == 413:
        return "The request is too large (413): compact the conversation with /compact."
    return f"The API rejected the request ({status} {error_type or 'error'}): {api_message}"


def classify(exc: BaseException, model: str) -> Failure:
    """Map an exception from the SDK or its HTTP layer to a Failure; a provider profile's names it."""
    failure = _classify(exc, model)
    if ":" not in model:
        return failure
    from tui.providers.profiles import lookup

    profile, name = lookup(model)
    if profile is None:
        return failure
    return replace(failure, message=f"{profile.where()}, model {name}: {failure.message}")


def _classify(exc: BaseException, model: str) -> Failure:
    """Map an exception from the SDK or its HTTP layer to a Failure."""
    import anthropic

    from .httplib import httpx

    if isinstance(exc, EmptyStream):
        return Failure(True, "empty stream", "The API answered 200 with an empty stream (no events).")
    if isinstance(exc, IncompleteStream):
        return Failure(True, "stream ended early", "The stream ended without message_stop.")
    if isinstance(exc, MalformedStream):
        return Failure(False, "malformed stream", f"The API sent a malformed stream: {exc}.")
    from tui.providers.network import connection_failure, credential_failure

    if sentence := credential_failure(exc):  # a missing profile, no key: the setting is named, no retry mends it
        return Failure(False, CREDENTIALS, sentence)
    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        body: dict[str, Any] = exc.body if isinstance(exc.body, dict) else {}
        err: dict[str, Any] = body["error"] if isinstance(body.get("error"), dict) else {}
        error_type = getattr(exc, "type", None) or err.get("type")
        api_message = err.get("message") or str(exc)
        headers = getattr(exc.response, "headers", None)
        if status == 200:  # an `error` event inside a streamed 200 response
            reason = _status_reason(529 if error_type == "overloaded_error" else 500, error_type)
            ok = error_type in RETRYABLE_SSE_TYPES
            return Failure(ok, reason, f"The stream reported {error_type}: {api_message}", status)
        should = headers.get("x-should-retry") if headers is not None else None
        retryable = status in RETRYABLE_STATUS or status >= 500
        if should == "true":
            retryable = True
        elif should == "false":
            retryable = False
        if retryable:
            msg = f"API error {status} ({error_type or 'error'}): {api_message}"
            return Failure(True, _status_reason(status, error_type), msg, status, _retry_after(headers))
        if status >= 500 or status in RETRYABLE_STATUS:
            msg = f"API error {status} ({error_type or 'error'}) and the server said not to retry: {api_message}"
            return Failure(False, _status_reason(status, error_type), msg, status)
        return Failure(False, f"HTTP {status}", _fatal_message(status, error_type, api_message, model), status)
    if isinstance(exc, (anthropic.APITimeoutError, httpx.TimeoutException)):
        return Failure(True, "stream stalled", "No data arrived from the API within the read timeout.")
    sentence = connection_failure(exc)  # a TLS or proxy failure: retrying will not mend it
    if sentence:
        return Failure(False, "connection failed", sentence)
    from tui.providers.network import connect_failure

    unreachable = connect_failure(exc)  # never connected: say where and why (refused, unresolved, timed out)
    if unreachable:
        return Failure(True, "cannot connect", f"{unreachable}.")
    if isinstance(exc, (anthropic.APIConnectionError, httpx.TransportError)):
        return Failure(True, "connection dropped", f"The connection to the API failed: {exc}")
    if isinstance(exc, ValueError) and "JSON" in str(exc):
        return Failure(True, "malformed stream", f"The stream carried malformed tool input: {exc}")
    if isinstance(exc, TypeError) and "authentication" in str(exc):
        return Failure(False, CREDENTIALS, "No API key is set: export ANTHROPIC_API_KEY or use --offline.")
    return Failure(False, "client error", f"Unexpected error while talking to the API: {type(exc).__name__}: {exc}")


def backoff_delay(attempt: int, base: float, cap: float, retry_after: float | None) -> float:
    """Delay before retry number `attempt` (1 = first retry): retry-after wins, else jittered backoff."""
    if retry_after is not None:
        return min(retry_after, cap * 4)
    delay: float = min(base * 2 ** (attempt - 1), cap)
    return delay * (1 - 0.25 * random.random())
