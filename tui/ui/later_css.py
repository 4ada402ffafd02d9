"""The rules for what the first frame does not show (the conversation's turns, the dialogs), added after it.

app.tcss styles the first screen; app_later.tcss the turns' blocks and the dialogs, ~4 ms of parsing that
the first frame does not need. `ensure` adds it to the app's stylesheet exactly as Textual reads a CSS_PATH
file (user CSS, after app.tcss, so every rule keeps its rank), once: at the first frame (AgentApp.on_ready),
or sooner when something could show a turn or a dialog before it (a key or click typed ahead, a session
given to the app). None of its rules matches a widget of the first screen, so nothing styled before has to
be styled again (tests/ui/test_later_css.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

LATER_CSS = Path(__file__).with_name("app_later.tcss")
#: the stylesheet's key for it (Stylesheet.read keys a file by its absolute path)
_SOURCE = os.path.abspath(LATER_CSS)


def ensure(app: Any) -> None:
    """Add app_later.tcss to `app`'s stylesheet, if not yet (parsed with the next styling)."""
    stylesheet = app.stylesheet
    if not stylesheet.has_source(_SOURCE):
        stylesheet.read(_SOURCE)
