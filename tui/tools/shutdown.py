"""Leaving cleanly: SIGTERM, SIGHUP, Ctrl+C and a closed stdout end agent-tui without a traceback.

Whatever ends the run, `run_entry` kills the processes Bash started (`tui.tools.processes`)
and removes their temp files before the console script exits; a `kill -9` is left to the
guard (`tui.system.leftovers`), and each start clears up after dead runs whose guard died too.
While the full-screen app runs, a signal asks the app to exit (so Textual leaves the alternate
screen and restores the terminal modes); elsewhere it raises `Terminated` in the main thread. That
raise lands at whatever bytecode runs: inside a weakref callback, a finalizer or `__del__` Python only
prints the exception and goes on, so `sys.unraisablehook` takes such a `Terminated` (nothing printed) and
sends the signal again, to land at another bytecode (issue 38: `-p … | head -1` printed a traceback). A
watchdog ends the process if that clean exit has not happened within WATCHDOG_SECONDS (a
terminal that was closed may block writes for good). No Textual import: `-p` uses this too.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from .processes import become_subreaper, tracker

EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
WATCHDOG_SECONDS = 5.0
BROKEN_PIPE_EXIT = 128 + signal.SIGPIPE  # what `git log | head -1` and coreutils exit with
# alternate screen off, cursor on, mouse and bracketed-paste reporting off: the watchdog's last resort
_RESET_TERMINAL = "\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l\x1b[?2004l"


class Terminated(BaseException):
    """Raised in the main thread by SIGTERM/SIGHUP (or a closed stdout) to unwind to `run_entry`."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


_installed = False
_exiting = False  # set by the first exit signal and by run_entry's cleanup: later signals are ignored
_pending_code: int | None = None
_exit_app: Callable[[int], None] | None = None
_terminal: tuple[int, Any] | None = None  # (fd, termios attributes) saved while the app runs
_watchdog: threading.Timer | None = None
_in_unraisable_hook = False  # the handler must not raise inside the hook: Python would print that one
_previous_unraisablehook: Callable[[Any], object] | None = None
RESEND_DELAY_S = 0.005  # the hook has returned by then (it holds its own guard against an early landing)


def install() -> None:
    """For the console script: become the subreaper of Bash's children, catch SIGTERM/SIGHUP, clear up after dead runs."""
    global _installed
    if threading.current_thread() is not threading.main_thread():
        return
    become_subreaper()
    for signum in EXIT_SIGNALS:
        signal.signal(signum, _on_signal)
    _install_unraisable_hook()
    _installed = True
    _start_leftover_sweep()


_sweep: threading.Thread | None = None


def _start_leftover_sweep() -> None:
    """Off the start path: end what runs killed with `kill -9` left (whose guard died too) and remove their temp files."""
    global _sweep
    _sweep = threading.Thread(target=_sweep_leftovers, name="leftovers", daemon=True)
    _sweep.start()


def _sweep_leftovers() -> None:
    import tempfile

    from tui.system.leftovers import clean_dead_owners

    clean_dead_owners(tempfile.gettempdir())


def run_entry(main: Callable[[], int]) -> int:
    """Run `main`; Ctrl+C and the exit signals become exit codes, and the cleanup always runs."""
    global _exiting
    try:
        code = main()
    except KeyboardInterrupt:
        _say("agent-tui: interrupted.")
        code = 130
    except Terminated as exc:
        code = exc.code
    except BrokenPipeError:
        code = BROKEN_PIPE_EXIT
    finally:
        _exiting = True
        if _installed:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl+C now would only cut the cleanup short
        cleanup()
    return code


def cleanup() -> None:
    """Kill every process Bash started that still runs and remove the temp files (idempotent)."""
    if _sweep is not None:
        _sweep.join(WATCHDOG_SECONDS / 2)  # what dead runs left is gone by the time this one ends
    tracker().cleanup()
    from tui.sandbox.runtime import current as current_sandbox

    current_sandbox().close()  # the sandbox's run folder and proxy


def request_exit(code: int) -> None:
    """From any thread: end the run as a signal would, with exit `code`."""
    global _pending_code
    _pending_code = code
    if _installed:
        os.kill(os.getpid(), signal.SIGTERM)  # the handler runs in the main thread


def _on_signal(signum: int, frame: Any) -> None:
    global _exiting
    if _in_unraisable_hook:
        _send_again()  # raised here it would be printed and ignored: land after the hook instead
        return
    if _exiting:
        return  # already on the way out (the watchdog covers a stuck exit)
    _exiting = True
    code = _pending_code if _pending_code is not None else 128 + signum
    tracker().signal_all(signal.SIGTERM)  # Bash's children start ending now; cleanup() finishes them
    _start_watchdog(code)
    if _exit_app is not None:
        import asyncio  # loaded already: the app runs on it

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            loop.call_soon_threadsafe(_exit_app, code)
            return
    raise Terminated(code)


def _install_unraisable_hook() -> None:
    global _previous_unraisablehook
    if sys.unraisablehook is not _on_unraisable:
        _previous_unraisablehook = sys.unraisablehook
        sys.unraisablehook = _on_unraisable


def _on_unraisable(unraisable: Any) -> None:
    """`Terminated` raised where Python can only ignore it (a weakref callback, `__del__`): deliver it again."""
    global _in_unraisable_hook, _exiting, _pending_code
    if not isinstance(unraisable.exc_value, Terminated):
        (_previous_unraisablehook or sys.__unraisablehook__)(unraisable)
        return
    _in_unraisable_hook = True
    try:
        _pending_code = unraisable.exc_value.code  # the code the first signal chose (141 for a closed pipe)
        _exiting = False  # the handler runs again (children signalled and watchdog started already)
        _send_again()
    finally:
        _in_unraisable_hook = False  # the last statement: no call after it, so no signal lands in this hook


def _send_again() -> None:
    """The exit signal once more, from a thread, so that its handler runs at the main thread's next bytecode."""

    def send() -> None:
        time.sleep(RESEND_DELAY_S)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=send, name="exit-again", daemon=True).start()


def _start_watchdog(code: int) -> None:
    global _watchdog
    if _watchdog is None:
        _watchdog = threading.Timer(WATCHDOG_SECONDS, _force_exit, (code,))
        _watchdog.daemon = True
        _watchdog.start()


def _force_exit(code: int) -> None:
    """The clean exit did not happen in time: clean up, restore the terminal, and leave at once."""
    try:
        tracker().cleanup(grace=0.2)
        if _terminal is not None:
            import termios

            os.write(_terminal[0], _RESET_TERMINAL.encode())
            termios.tcsetattr(_terminal[0], termios.TCSANOW, _terminal[1])
    except Exception:
        pass
    os._exit(code)


@contextmanager
def exit_app_on_signal(exit_app: Callable[[int], None]) -> Iterator[None]:
    """While the app runs, SIGTERM/SIGHUP/SIGINT call `exit_app(code)` on its event loop."""
    global _exit_app, _terminal
    _exit_app = exit_app
    _terminal = _save_terminal()
    previous = signal.signal(signal.SIGINT, _on_signal) if _installed else None
    try:
        yield
    finally:
        _exit_app = None
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _save_terminal() -> tuple[int, Any] | None:
    try:
        import termios

        fd = sys.__stdout__.fileno() if sys.__stdout__ is not None else 1
        return (fd, termios.tcgetattr(fd)) if os.isatty(fd) else None
    except Exception:
        return None


class PipeGuard:
    """Wraps stdout: when the reader goes away (`| head -1`), output goes nowhere and the run ends."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.broken = False

    def write(self, text: str) -> int:
        if not self.broken:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._broke()
        return len(text)

    def flush(self) -> None:
        if not self.broken:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._broke()

    def _broke(self) -> None:
        self.broken = True
        try:  # later flushes (the interpreter's own at exit too) write into /dev/null
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass
        request_exit(BROKEN_PIPE_EXIT)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def guard_stdout() -> None:
    """For -p: a closed stdout ends the run quietly with BROKEN_PIPE_EXIT."""
    if not isinstance(sys.stdout, PipeGuard):
        sys.stdout = PipeGuard(sys.stdout)


def _say(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
