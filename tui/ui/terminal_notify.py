"""Desktop notifications through the terminal: which escape sequence a terminal shows, built safely.

iTerm2 shows OSC 9, kitty its own OSC 99, WezTerm, Ghostty and Windows Terminal OSC 777; any other
terminal gets the bell (most flag the tab or window for it). Inside tmux an OSC goes through as a DCS
passthrough (tmux needs `allow-passthrough on` to forward it). The terminal is recognised from the
environment, which tmux keeps from where its server started. The text passes the sanitiser and
cannot end the sequence early. Stdlib only, no Textual.
"""

from __future__ import annotations

from collections.abc import Mapping

from tui.text.sanitize import one_line

STYLES = ("auto", "osc", "bell", "off")
BEL = "\x07"
ST = "\x1b\\"
#: characters of a notification's title or body, at most
MAX_CHARS = 200

#: TERM_PROGRAM values, and variables a terminal sets in its shells, that name the terminal
_PROGRAMS = {"iTerm.app": "iterm2", "WezTerm": "wezterm", "ghostty": "ghostty"}
_MARKERS = (
    ("ITERM_SESSION_ID", "iterm2"),
    ("KITTY_WINDOW_ID", "kitty"),
    ("WEZTERM_PANE", "wezterm"),
    ("GHOSTTY_RESOURCES_DIR", "ghostty"),
    ("WT_SESSION", "windows-terminal"),
)
_TERMS = {"xterm-kitty": "kitty", "xterm-ghostty": "ghostty", "wezterm": "wezterm"}


def detect_terminal(env: Mapping[str, str]) -> str | None:
    """The terminal known to show desktop notifications that `env` names, or None."""
    if found := _PROGRAMS.get(env.get("TERM_PROGRAM", "")):
        return found
    if env.get("LC_TERMINAL") == "iTerm2":
        return "iterm2"
    for variable, name in _MARKERS:
        if env.get(variable):
            return name
    return _TERMS.get(env.get("TERM", ""))


def clean(text: str, *, field: bool = False) -> str:
    """`text` on one line, its control characters shown (never sent), cut to MAX_CHARS; `;` too in a field."""
    text = one_line(text)
    if field:
        text = text.replace(";", ",")
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


def osc(terminal: str | None, title: str, body: str) -> str:
    """The notification sequence for `terminal` (OSC 777 when it is not one of the known ones)."""
    title, body = clean(title, field=True), clean(body)
    if terminal == "iterm2":
        return f"\x1b]9;{title}: {body}{BEL}"
    if terminal == "kitty":  # title, then the body of the same notification (i=): kitty's OSC 99
        return f"\x1b]99;i=agent-tui:d=0;{title}{ST}\x1b]99;i=agent-tui:p=body;{body}{ST}"
    return f"\x1b]777;notify;{title};{body}{BEL}"


def in_tmux(sequence: str) -> str:
    """`sequence` wrapped in tmux's DCS passthrough (every ESC inside doubled)."""
    return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + ST


def sequence(style: str, title: str, body: str, env: Mapping[str, str]) -> str:
    """What to write for one notification under the `notifications` setting; "" for `off`."""
    if style == "off":
        return ""
    terminal = detect_terminal(env)
    if style == "bell" or (style == "auto" and terminal is None):
        return BEL
    out = osc(terminal, title, body)
    return in_tmux(out) if env.get("TMUX") else out
