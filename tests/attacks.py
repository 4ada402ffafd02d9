"""Terminal attacks as a hostile model or repository would write them, and a check for raw control bytes."""

from __future__ import annotations

import re

#: one line per attack: each would change the terminal if printed raw
ATTACK_LINES = [
    "title: \x1b]0;PWNED-TITLE\x07 after",
    "title2: \x1b]2;PWNED-TITLE2\x1b\\ after",
    "alt screen off: \x1b[?1049l after",
    "clear: \x1b[2J\x1b[H after",
    "reset: \x1bc after",
    "clipboard: \x1b]52;c;cHduZWQ=\x07 after",
    "link: \x1b]8;;http://evil.example\x1b\\click me\x1b]8;;\x1b\\ after",
    "bell: \x07\x07 after",
    "carriage return: shown\rHIDDEN after",
    "c1: \x9b2J and \x9d0;C1TITLE\x9c after",
    "del: a\x7fb after",
    "bidi: ls \u202eexe.sh\u202c after",
]
ATTACKS = "\n".join(ATTACK_LINES) + "\n"

#: control characters that must never reach a terminal raw (newline and tab are fine)
_RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: what Textual itself writes: CSI sequences (cursor moves, SGR colours, modes) and its OSC 8 links
_OWN_SEQUENCES = re.compile(r"\x1b\[[0-9;:?<>=]*[ -/]*[@-~]|\x1b\]8;[^\x07\x1b]*\x1b\\")


def raw_controls(text: str) -> list[str]:
    """The control characters in `text` (as repr strings), in order of appearance."""
    return [repr(m.group()) for m in _RAW.finditer(text)]


def stray_controls(terminal_output: str) -> list[str]:
    """Control characters in what an app wrote to the terminal, other than its own CSI sequences."""
    return raw_controls(_OWN_SEQUENCES.sub("", terminal_output))
