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
import time
from typing import Any

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


#: a publishing (engine) thread collects the young generation once it is this full, before the threshold is reached
EARLY_YOUNG = YOUNG_THRESHOLD * 3 // 4


def collect_young_early() -> None:
    """Collect the young generation now, on the calling thread, if it is nearly due (the app's bus subscriber).

    The collection runs wherever an allocation crosses the threshold. Eight subagents streaming allocate on
    their own threads, and one collection in three or four landed on the UI thread inside a frame (8-9 ms of a
    frame's 15-20 ms on a loaded 2-core machine). Called for each engine event on the thread that published
    it, this runs the collection there instead, most often while the UI is between frames. The generation
    chosen is the one CPython would collect (an older one once its count is due), so none is skipped.
    """
    if _saved is None or not gc.isenabled():
        return
    counts = gc.get_count()
    if counts[0] < EARLY_YOUNG:
        return
    thresholds = gc.get_threshold()
    gc.collect(2 if counts[2] >= thresholds[2] else 1 if counts[1] >= thresholds[1] else 0)


#: idle collections are skipped while fewer objects than this were allocated since the last one
IDLE_MIN_ALLOCATIONS = 2_000
#: every this many idle collections also collect the middle generation (where removed widgets end up)
IDLE_OLDER_EVERY = 8
_idle_runs = 0


def collect_idle() -> None:
    """Collect now, while no frame is waiting, what an automatic collection would collect later.

    Paging through a long history removes turn widgets (cyclic garbage, ~3,000 objects a turn);
    left to the allocation threshold, a collection of 20,000 of them landed inside a scroll frame
    every ~6 pages and took 50-200 ms on a loaded 2-core machine. Called once the view has settled.
    Widgets that lived through a collection are in the middle generation when removed: collecting
    it every IDLE_OLDER_EVERY idle runs keeps each run short (left to CPython's threshold of 50
    runs, one took 0.4-0.9 s for 65,000 objects).
    """
    global _idle_runs
    if not gc.isenabled():
        return
    counts, thresholds = gc.get_count(), gc.get_threshold()
    if counts[0] < IDLE_MIN_ALLOCATIONS:
        return
    _idle_runs += 1
    generation = 2 if counts[2] >= thresholds[2] else 1 if _idle_runs % IDLE_OLDER_EVERY == 0 else 0
    gc.collect(generation)


#: a turn's end collects the old generation every this many turns (else the middle one)
TURN_FULL_EVERY = 10
_turns = 0


def collect_after_turn() -> None:
    """Collect the garbage of a finished turn once its last frame is drawn.

    With THRESHOLDS the old generation is collected only after 100 middle ones (billions of
    allocations): through a long day the turns unmounted while following the bottom reach it and
    stay, and the soak benchmark's RSS grew 2.7x over 200 turns. Every TURN_FULL_EVERY turns
    the old generation is collected too (what the start-up froze is not walked).
    """
    global _turns
    if not gc.isenabled():
        return
    _turns += 1
    full = _turns % TURN_FULL_EVERY == 0
    gc.collect(2 if full else 1)
    if full:
        trim_when_due()


def restore() -> None:
    """Put the thresholds back and let the collector see every object again (app shut down); glibc gives its
    free memory back (`trim_malloc`), once: the app's exit and its unmount both call this."""
    global _saved
    _resume()
    if _saved is not None:
        gc.set_threshold(*_saved)
        _saved = None
        gc.unfreeze()
        trim_malloc()


#: glibc malloc arenas the app's process may use (glibc's default is 8 per core: the app's ~16 threads each got one)
MALLOC_ARENAS = 2
#: mallopt's M_ARENA_MAX
_M_ARENA_MAX = -8


def cap_malloc_arenas() -> bool:
    """Let the threads share MALLOC_ARENAS glibc arenas instead of one each (True when set).

    Each arena keeps the memory freed in it for its own thread's next allocations: with an arena per
    thread (tool pools, bus subscribers, the loop) a long day held more freed memory than it reused
    (the quick soak: 178 MiB at the end with glibc's default, 165 MiB with MALLOC_ARENA_MAX=2, frames
    the same). A MALLOC_ARENA_MAX the user set is left alone; no glibc, nothing done.
    """
    import os

    if "MALLOC_ARENA_MAX" in os.environ:
        return False
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.mallopt(_M_ARENA_MAX, MALLOC_ARENAS))
    except (OSError, AttributeError):
        return False


#: seconds at least between two trims after a turn: a trim after every full collection (every 10 turns) cost frame
#: time in an earlier session; one a minute, on a quiet screen, costs well under a millisecond of it (a trim of a
#: fragmented 60 MB heap took 0.14 ms here). The quick soak: 7 MiB of the end's 170 MiB were glibc's to give back
TRIM_EVERY_S = 60.0
#: time.monotonic() of the last trim; None before the first
_last_trim: float | None = None
#: glibc's malloc_trim once looked up (None: not yet; False: no glibc)
_malloc_trim: Any = None


def trim_malloc() -> bool:
    """Hand the memory glibc keeps free in its arenas back to the kernel (True when it released some).

    glibc keeps freed memory for the process's next allocations; a day's peaks (a rewind, a compaction, a big
    tool output) leave some of it behind. No glibc (macOS, musl), nothing done; ctypes is loaded on the first call.
    """
    global _malloc_trim, _last_trim
    if _malloc_trim is None:
        try:
            import ctypes

            _malloc_trim = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _malloc_trim = False
    _last_trim = time.monotonic()
    return bool(_malloc_trim and _malloc_trim(0))


def trim_when_due() -> bool:
    """`trim_malloc` if TRIM_EVERY_S have passed since the last trim (the first: since this was first called)."""
    global _last_trim
    now = time.monotonic()
    if _last_trim is None:
        _last_trim = now
        return False
    if now - _last_trim < TRIM_EVERY_S:
        return False
    return trim_malloc()
