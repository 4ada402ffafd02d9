"""Diagnostics as agent-tui keeps them, and the compact lines the model reads after an edit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SEVERITIES = {1: "error", 2: "warning", 3: "info", 4: "hint"}


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic, positions 1-based as editors show them."""

    line: int
    column: int
    severity: str
    message: str
    source: str = ""
    code: str = ""

    def key(self) -> tuple[str, str, str, str]:
        """What stays the same when lines above it move: an edit's new diagnostics are those with a new key."""
        return (self.severity, self.source, self.code, self.message)

    def line_text(self, shown_path: str) -> str:
        """`src/app.py:3:5 error [pyflakes/F821] undefined name 'x'`."""
        tag = "/".join(part for part in (self.source, self.code) if part)
        message = " ".join(self.message.split())
        return f"{shown_path}:{self.line}:{self.column} {self.severity}{f' [{tag}]' if tag else ''} {message}"


def from_lsp(item: object) -> Diagnostic:
    """A Diagnostic from an lsprotocol `Diagnostic` (0-based positions)."""
    start = item.range.start  # type: ignore[attr-defined]
    severity = getattr(item, "severity", None)
    code = getattr(item, "code", None)
    return Diagnostic(
        line=int(start.line) + 1,
        column=int(start.character) + 1,
        severity=SEVERITIES.get(int(severity), "error") if severity is not None else "error",
        message=str(getattr(item, "message", "")),
        source=str(getattr(item, "source", None) or ""),
        code="" if code is None else str(code),
    )


def report(
    shown_path: str,
    after: Sequence[Diagnostic],
    before: Sequence[Diagnostic] | None,
    *,
    warnings: bool = False,
    max_items: int = 20,
    max_chars: int = 3000,
    server: str = "",
) -> str:
    """The text appended to an edit's tool result: the errors (and warnings, by setting), new ones first.

    Empty when the file is clean. `before` is what the server said before the edit (None: not known), so the
    diagnostics the edit introduced are marked apart from those already there.
    """
    wanted = {"error", "warning"} if warnings else {"error"}
    shown = [d for d in after if d.severity in wanted]
    if not shown:
        return ""
    old_keys = {d.key() for d in before or ()}
    new = [d for d in shown if before is not None and d.key() not in old_keys]
    old = [d for d in shown if d not in new]
    lines: list[str] = []
    header = f'<diagnostics server="{server}">' if server else "<diagnostics>"
    if before is None:
        lines += [d.line_text(shown_path) for d in shown]
    else:
        if new:
            lines.append(f"Introduced by this edit ({len(new)}):")
            lines += [d.line_text(shown_path) for d in new]
        if old:
            lines.append(f"Already there before it ({len(old)}):")
            lines += [d.line_text(shown_path) for d in old]
    kept: list[str] = []
    used = 0
    items = 0
    for line in lines:
        is_item = not line.endswith("):")
        if (is_item and items >= max_items) or used + len(line) > max_chars:
            dropped = sum(1 for rest in lines[len(kept) :] if not rest.endswith("):"))
            kept.append(f"… {dropped} more not shown")
            break
        kept.append(line)
        used += len(line) + 1
        items += is_item
    return "\n".join([header, *kept, "</diagnostics>"])
