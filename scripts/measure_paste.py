"""Paste a big block into agent-tui's prompt in tmux; print how long until the UI answers F1, and the peak RSS.

.venv/bin/python scripts/measure_paste.py --size 1048576            # unbracketed (plain typed-in bytes)
.venv/bin/python scripts/measure_paste.py --size 1048576 --bracketed
.venv/bin/python scripts/measure_paste.py --pythonpath /tmp/main-src  # another checkout's tui/, e.g. main
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakeapi.demo_project import make_demo_project
from tests.ui.tmux_driver import Tmux, rss_kib

LINE = "x = 'the quick brown fox jumps over the lazy dog' + str(12345)  # filler line\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1024 * 1024, help="bytes to paste")
    parser.add_argument("--bracketed", action="store_true", help="paste with bracketed-paste markers")
    parser.add_argument("--limit", type=float, default=300.0, help="give up after this many seconds")
    parser.add_argument("--pythonpath", help="run the tui package found here instead")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="measure-paste-"))
    (root / "home").mkdir()
    term = Tmux(make_demo_project(root / "project"), root / "home")
    env = {"TMPDIR": str(root)} | ({"PYTHONPATH": args.pythonpath} if args.pythonpath else {})
    try:
        term.start_app("--offline", env=env)
        time.sleep(1.5)  # let the start-up work settle, so the RSS before is the idle app's
        pid = term.pid()
        peak, done = [rss_kib(pid)], threading.Event()

        def sample() -> None:
            while not done.wait(0.25):
                peak.append(rss_kib(pid))

        threading.Thread(target=sample, daemon=True).start()
        start = time.monotonic()
        term.paste((LINE * (args.size // len(LINE) + 1))[: args.size], bracketed=args.bracketed)
        term.keys("F1")
        try:
            term.wait_for(lambda screen: "agent-tui help" in screen, "the help screen", timeout=args.limit)
            print(f"the UI answered F1 {time.monotonic() - start:.2f} s after the paste")
        except AssertionError:
            print(f"the UI did not answer F1 within {args.limit:.0f} s")
        done.set()
        print(f"RSS before {peak[0] / 1024:.0f} MiB, peak {max(peak) / 1024:.0f} MiB")
    finally:
        term.kill()
        shutil.rmtree(root, ignore_errors=True)  # the project, HOME and the saved paste
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
