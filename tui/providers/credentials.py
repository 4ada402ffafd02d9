"""Where the API key comes from: the environment, an `api_key_helper` command, or the stored /login key.

The helper (Claude Code's `apiKeyHelper`) is a shell command whose stdout is the key. It runs
once at start, again when its key is older than CLAUDE_CODE_API_KEY_HELPER_TTL_MS (default five
minutes) and once after a 401. A helper that fails, prints nothing or hangs is one sentence
naming the setting (a `CredentialError`, a ValueError).
"""

from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path

from tui.text.wording import plural

DEFAULT_TTL_MS = 5 * 60 * 1000
DEFAULT_TIMEOUT_S = 10.0


class CredentialError(ValueError):
    """The key could not be had; the message is one sentence naming the setting to fix."""


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name) or default)
    except ValueError:
        raise CredentialError(f"{name} must be a number, got `{os.environ[name]}`.") from None


class KeyHelper:
    """Runs the `api_key_helper` command and keeps its key for the TTL."""

    def __init__(self, command: str, cwd: Path) -> None:
        self.command = command
        self.cwd = cwd
        self.ttl_s = _env_float("CLAUDE_CODE_API_KEY_HELPER_TTL_MS", DEFAULT_TTL_MS) / 1000.0
        self.timeout_s = _env_float("AGENT_TUI_API_KEY_HELPER_TIMEOUT", DEFAULT_TIMEOUT_S)
        self.runs = 0
        self._key: str | None = None
        self._fetched = 0.0
        self._lock = threading.Lock()

    def key(self, *, refresh: bool = False) -> str:
        """The key: cached while fresh, else the command's output (run again when `refresh`)."""
        with self._lock:
            stale = self._key is None or time.monotonic() - self._fetched >= self.ttl_s
            if refresh or stale:
                self._key = self._run()
                self._fetched = time.monotonic()
            assert self._key is not None
            return self._key

    def last_key(self) -> str:
        """The key the helper printed last (running it if it never ran); the client's first key."""
        return self._key or self.key()

    def _run(self) -> str:
        from tui.tools.captured import run_captured

        self.runs += 1
        where = f"The `api_key_helper` command ({self.command})"
        try:  # read until the helper itself exits (a child it left holding stdout is killed, not waited for)
            done = run_captured(["/bin/sh", "-c", self.command], cwd=self.cwd, timeout=self.timeout_s, sweep=True)
        except OSError as exc:
            raise CredentialError(f"{where} could not start: {exc.strerror or exc}.") from None
        if done.timed_out:
            raise CredentialError(f"{where} did not finish within {self.timeout_s:g} s.")
        if done.exit_code != 0:
            last = (done.stderr.decode(errors="replace").strip().splitlines() or [""])[-1][:200]
            detail = f": {last}" if last else ""
            status = (
                f"exit status {done.exit_code}" if (done.exit_code or 0) > 0 else f"signal {-(done.exit_code or 0)}"
            )
            raise CredentialError(f"{where} failed with {status}{detail}.")
        key = done.stdout.decode(errors="replace").strip()
        if not key:
            raise CredentialError(f"{where} printed no key.")
        key = key.splitlines()[0].strip()
        if done.stdout_cut and len(key) >= MAX_KEY_CHARS:  # only the head of a flood was kept: say "more than"
            raise CredentialError(
                f"{where} printed a first line of more than {plural(len(key), 'character')}, more than any "
                f"key (at most {MAX_KEY_CHARS:,}): it must print the key alone."
            )
        if problem := key_problem(key):  # refused here, not sent as a header the server answers with a 431 page
            raise CredentialError(f"{where} printed a first line that {problem}: it must print the key alone.")
        return key


_helpers: dict[tuple[str, str], KeyHelper] = {}


def key_helper(command: str, cwd: Path) -> KeyHelper:
    """The one KeyHelper for `command` in this process (so start-up and the client share its key)."""
    ident = (command, str(cwd))
    if ident not in _helpers:
        _helpers[ident] = KeyHelper(command, cwd)
    return _helpers[ident]


#: longer than any API key or bearer token; a header this size is refused by the server (431)
MAX_KEY_CHARS = 8192
ENV_KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")


def key_problem(key: str) -> str | None:
    """Why `key` cannot be sent as a key (too long, a control character, a space, not ASCII), else None."""
    if len(key) > MAX_KEY_CHARS:
        return f"is {plural(len(key), 'character')} long, more than any key (at most {MAX_KEY_CHARS:,})"
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in key):
        return "holds a space or a control character, which no key has"
    if not key.isascii():
        return "holds a character that is not ASCII, which no key has"
    return None


def check_env_keys() -> None:
    """CredentialError naming the variable when ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN cannot be a key."""
    for name in ENV_KEYS:
        value = os.environ.get(name, "").strip()
        if value and (problem := key_problem(value)):
            raise CredentialError(f"{name} {problem}: set it to the key alone.")


def env_key_present() -> bool:
    """Whether ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is set (they win over a helper)."""
    return bool(os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN"))


#: the characters of an HTTP header name (RFC 9110 `token`)
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
#: what a header value may not hold: control characters other than tab
_VALUE_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def custom_headers(text: str | None = None) -> dict[str, str]:
    """ANTHROPIC_CUSTOM_HEADERS, one `Name: value` a line; CredentialError names a bad line.

    A name outside HTTP's token characters or a value with a control character would fail every request
    (as a dropped connection); it is one sentence at start instead. A value is never quoted: it may be a key.
    """
    from tui.text.sanitize import one_line

    text = os.environ.get("ANTHROPIC_CUSTOM_HEADERS", "") if text is None else text
    headers: dict[str, str] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        name, sep, value = line.partition(":")
        name, value = name.strip(), value.strip()
        where = f"ANTHROPIC_CUSTOM_HEADERS line {number}"
        if not sep or not name:
            raise CredentialError(f"{where} is not `Name: value`.")
        if not _TOKEN.fullmatch(name):
            bad = next(c for c in name if not _TOKEN.fullmatch(c))
            what = "a space" if bad == " " else f"`{one_line(bad)}`"
            raise CredentialError(
                f"{where}: the header name `{one_line(name)}` holds {what}, which a header "
                "name cannot (letters, digits and !#$%&'*+-.^_`|~ only)."
            )
        if _VALUE_CONTROL.search(value):
            raise CredentialError(
                f"{where}: the value of {name} holds a control character, which a header value cannot; remove it."
            )
        headers[name] = value
    return headers
