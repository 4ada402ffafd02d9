"""tui.tools.shutdown in a process of its own: a stuck app is still ended by the watchdog, children killed."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.unit.tools.test_bash import wait_gone
from tests.unit.tools.test_processes import read_pid


def test_the_watchdog_ends_an_app_that_does_not_exit(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    script = f"""
import asyncio, os, signal, subprocess
from tui.tools import shutdown
from tui.tools.processes import tracker

shutdown.install()
t = tracker().spawn(["/bin/bash", "-c", "trap '' TERM; setsid sleep 300 & echo $! > {pid_file}; sleep 300"])

async def main():
    with shutdown.exit_app_on_signal(lambda code: None):  # an app that never gets round to exiting
        while not os.path.exists({str(pid_file)!r}) or not open({str(pid_file)!r}).read().strip():
            await asyncio.sleep(0.01)
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.sleep(60)

asyncio.run(main())
"""
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 143, proc.stderr
    assert time.monotonic() - started < 30
    assert wait_gone([read_pid(pid_file)])


SIGNAL_IN_A_CALLBACK = """
import os, signal, sys, time, weakref
from tui.tools import shutdown

shutdown.install()

def land_here(*_):  # the handler runs while this runs: where an exception is only printed and ignored
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(100_000):
        pass

class Finalized:
    def __del__(self):
        land_here()

class Target:
    pass

def main():
    if sys.argv[1] == "__del__":
        thing = Finalized()
    else:
        thing = Target()
        ref = weakref.ref(thing, land_here)
    del thing
    for _ in range(200):  # well within the watchdog's 5 s
        time.sleep(0.01)
    return 0

code = shutdown.run_entry(main)
print("run_entry:", code)  # not the watchdog's os._exit
sys.exit(code)
"""


@pytest.mark.parametrize("where", ["__del__", "weakref callback"])
def test_a_signal_that_lands_in_a_finalizer_still_ends_the_run_quietly(where: str) -> None:
    """issue 38: SIGTERM (a closed pipe under -p too) raised inside a weakref callback was printed and ignored."""
    proc = subprocess.run(
        [sys.executable, "-c", SIGNAL_IN_A_CALLBACK, where], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 143, proc.stderr
    assert "Exception ignored" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout == "run_entry: 143\n"  # the cleanup ran; the watchdog did not have to end it
