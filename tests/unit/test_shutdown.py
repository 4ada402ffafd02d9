"""tui.tools.shutdown in a process of its own: a stuck app is still ended by the watchdog, children killed."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

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
