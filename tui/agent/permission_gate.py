"""The answer to a permission question, as the dialog (or -p) gives it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Scope = Literal["once", "session", "always"]


@dataclass(frozen=True)
class PermissionReply:
    """Resolves the Future in PermissionRequested.

    allowed=False with `reason` sends that reason back to the model. `rule` is the
    (possibly user-edited) rule to remember for scope "session" or "always".
    """

    allowed: bool
    scope: Scope = "once"
    rule: str | None = None
    reason: str = ""
