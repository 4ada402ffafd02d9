"""The one shape every modal has: a head at the top, a body that scrolls, the answers pinned at the bottom.

A box of auto height grows with its body up to its max-height; a box of fixed height gives a `-fill` body
what is left. Below 100 columns a box takes the whole width, below 20 rows the whole screen. The answers (buttons, choices, key hints) are docked, so no size from 40x12 up pushes them
off screen: the body shrinks and scrolls instead. Screens style their own box (width, height, border).
"""

from __future__ import annotations

from textual.containers import Vertical


class DialogBox(Vertical):
    """A modal's box: children with `dialog-head`, `dialog-body` and `dialog-answers` classes take their places."""

    #: the small-screen rules name the screen's breakpoint classes (`-cramped`, `-short`) above the box
    SCOPED_CSS = False
    DEFAULT_CSS = """
    DialogBox > .dialog-head { dock: top; height: auto; }
    DialogBox > .dialog-body { height: auto; max-height: 100%; }
    DialogBox > .dialog-body.-fill { height: 1fr; }
    DialogBox > .dialog-answers { dock: bottom; height: auto; }
    DialogBox .dialog-hint { height: auto; color: $text-muted; }
    DialogBox .dialog-notice { display: none; height: auto; color: $warning; }
    .-cramped DialogBox { width: 100% !important; max-width: 100% !important; }
    .-short DialogBox {
        height: 100% !important; max-height: 100% !important; padding: 0 1 !important; margin: 0 !important;
    }
    """
