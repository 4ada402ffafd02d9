"""Garbage-collector settings for the app: fewer, cheaper collections while a reply streams.

Streaming allocates many short-lived objects on two threads (the loop's events, the UI's
strips); with CPython's default thresholds the cyclic collector ran ~400 times during a
20,000-token reply and took 0.3-0.7 s of it, walking every object Textual and the SDK
created at start-up each time it reached the old generation. Freezing the start-up
objects (as Toad and Vibe do) and raising the young-generation threshold took that to
3 collections and ~0.04 s (measured with /tmp probes on the app benchmark).

Before the first frame the collector is paused altogether (`pause`): start-up allocates
~60,000 long-lived objects (modules, classes, styles) and the default thresholds ran ~150
collections over them, one a full one, ~50 ms of the launch (bare Textual pays ~15 ms).
The app calls `tune` a moment after the first frame: one collection clears the start-up
garbage (~25 ms, where nobody waits on it), the survivors are frozen, collections resume.
"""

from __future__ import annotations

import gc

#: allocations between young-generation collections (CPython's default is 700)
YOUNG_THRESHOLD = 50_000
THRESHOLDS = (YOUNG_THRESHOLD, 50, 100)

_saved: tuple[int, int, int] | None = None
#: pause() switched the collector off (and it was on before)
_paused = False
#: seconds after the first frame before a paused collector is resumed by `tune`
RESUME_DELAY_S = 0.5


def pause() -> None:
    """Switch the collector off until `tune` (the first frame) or `restore`."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def is_paused() -> bool:
    """Whether `pause` switched the collector off and nothing has resumed it yet."""
    return _paused


def _resume() -> None:
    global _paused
    if _paused:
        gc.enable()
        _paused = False


def tune() -> None:
    """Raise the thresholds (once) and freeze what exists now into the permanent generation.

    A paused collector first collects (so start-up garbage is not frozen forever), then resumes.
    """
    global _saved
    if _saved is None:
        _saved = gc.get_threshold()
        gc.set_threshold(*THRESHOLDS)
    if _paused:
        gc.collect()
    gc.freeze()
    _resume()


def restore() -> None:
    """Put the thresholds back and let the collector see every object again (app shut down)."""
    global _saved
    _resume()
    if _saved is not None:
        gc.set_threshold(*_saved)
        _saved = None
        gc.unfreeze()
