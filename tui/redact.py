"""Credentials in URLs are never printed or stored: `http://user:password@proxy:3128` shows as `http://***@proxy:3128`.

A proxy (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`), a gateway (`ANTHROPIC_BASE_URL`) or an MCP server's URL may
carry a user name and password, and they reach text through errors that quote the URL, `/status`, a command's
output. Every writer of text for a person or a file calls `redact`: `visible` and `one_line` (the screen and
stderr), the json and stream-json printers and the transcript writer, so no path can forget it. A bare user
name on an ssh-like URL (`ssh://git@github.com`) is a login, not a secret, and is kept. Stdlib only.
"""

from __future__ import annotations

import re

__all__ = ["MASK", "redact"]

MASK = "***"
#: scheme:// then the user info up to `@`: no space, slash, quote or backslash (so it never spans a JSON string)
_USERINFO = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*://)([^\s/?#@\"'\\<>]+)@")
#: schemes whose bare user name is the account to log in as (`git@`), not a credential
_LOGIN_SCHEMES = frozenset({"ssh://", "git://", "git+ssh://", "ssh+git://", "svn+ssh://", "sftp://"})


def _mask(match: re.Match[str]) -> str:
    scheme, userinfo = match.group(1), match.group(2)
    if userinfo == MASK or (":" not in userinfo and scheme.lower() in _LOGIN_SCHEMES):
        return match.group(0)
    return f"{scheme}{MASK}@"


def redact(text: str) -> str:
    """`text` with the user info of every URL in it shown as `***`; the same string when there is none (fast)."""
    if "://" not in text or "@" not in text:
        return text
    return _USERINFO.sub(_mask, text)
