"""Credentials in URLs are never printed or stored: `http://user:password@proxy:3128` shows as `http://***@proxy:3128`.

A proxy (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`), a gateway (`ANTHROPIC_BASE_URL`), an OpenTelemetry
collector (`OTEL_EXPORTER_OTLP_*ENDPOINT`, gRPC or HTTP) or an MCP server's URL may carry a secret, and it
reaches text through errors that quote the URL, `/status`, a command's output. Every writer of text for a
person or a file calls `redact`: `visible` and `one_line` (the screen and stderr), the json and stream-json
printers and the transcript writer, so no path can forget it.

Every spelling is one of three classes:

- user info after a scheme, up to the *last* `@` of the authority (`http://user:p@ss@host` hides `user:p@ss`);
- user info without a scheme, as httpx and gRPC take it (`user:pw@host:3128`): `name:secret@` followed by a
  host that looks like one (a dotted name, an IPv4 address, `localhost`, `[v6]`, or any name with a `:port`),
  so `npm:lodash@4.17.21` and `nginx:1.25@sha256:…` stay as they are;
- a secret in a query (`?token=`, `&key=`, `?api_key=`, `?access_token=`, `?sig=` …): the value is hidden.

A bare user name on an ssh-like URL (`ssh://git@github.com`) is a login, not a secret, and is kept; so is an
e-mail address. Stdlib only. The patterns are compiled on the first text that could hold a credential (~1 ms,
not paid before the app's first frame).
"""

from __future__ import annotations

import re
from functools import cache

__all__ = ["MASK", "redact"]

MASK = "***"
#: characters that end an authority or a JSON string: the mask never spans them
_STOP = r"\s/?#\"'\\<>`"
#: scheme:// then the user info up to the last `@` before the host
_USERINFO = rf"\b([A-Za-z][A-Za-z0-9+.-]*://)([^{_STOP}]+)@"
#: a host after `@`: [v6], a dotted name, IPv4 or localhost (each with an optional port), or a plain name
#: with a port; nothing of a name may follow
_HOST = (
    r"(?:(?:\[[0-9A-Fa-f:.]+\]|(?:[A-Za-z0-9-]+\.)+[A-Za-z][A-Za-z0-9-]*|\d{1,3}(?:\.\d{1,3}){3}|localhost)"
    r"(?::\d+)?|[A-Za-z0-9-]+:\d+)(?![\w.-])"
)
#: name:secret@host with no scheme before it (not in the middle of a word, a path or a URL)
_BARE = rf"(?<![\w/:.%+@-])((?!mailto:)[A-Za-z0-9._%+~-]+:[^{_STOP}]*)@(?={_HOST})"
#: query parameters whose value is a secret
_SECRET_KEYS = (
    "token|access_token|refresh_token|id_token|auth|auth_token|authorization|key|api_key|apikey|api-key|"
    "x-api-key|password|passwd|pwd|secret|client_secret|sig|signature|code|session|sessionid|session_id|jwt"
)
_QUERY = rf"([?&](?:{_SECRET_KEYS})=)([^&#{_STOP}]+)"
#: schemes whose bare user name is the account to log in as (`git@`), not a credential
_LOGIN_SCHEMES = frozenset({"ssh://", "git://", "git+ssh://", "ssh+git://", "svn+ssh://", "sftp://"})


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The user-info, bare user-info and query patterns, compiled once, on first use."""
    return re.compile(_USERINFO), re.compile(_BARE, re.IGNORECASE), re.compile(_QUERY, re.IGNORECASE)


def _mask(match: re.Match[str]) -> str:
    scheme, userinfo = match.group(1), match.group(2)
    if userinfo == MASK or (":" not in userinfo and "@" not in userinfo and scheme.lower() in _LOGIN_SCHEMES):
        return match.group(0)
    return f"{scheme}{MASK}@"


def _mask_bare(match: re.Match[str]) -> str:
    return match.group(0) if match.group(1) == MASK else f"{MASK}@"


def _mask_query(match: re.Match[str]) -> str:
    return match.group(0) if match.group(2) == MASK else f"{match.group(1)}{MASK}"


def redact(text: str) -> str:
    """`text` with every credential in a URL shown as `***`; the same string when there is none (fast)."""
    if "@" in text:
        if "://" in text:
            text = _patterns()[0].sub(_mask, text)
        if ":" in text:
            text = _patterns()[1].sub(_mask_bare, text)
    if "=" in text and ("?" in text or "&" in text):
        text = _patterns()[2].sub(_mask_query, text)
    return text
