"""Run a command in its own pty inside the current terminal and record every byte it writes, with times.

    python -m tests.bench.pty_record OUT.jsonl -- COMMAND [ARGS...]

The command sees a terminal of the outer one's size (tmux's pane); what it writes goes to the outer
terminal unchanged and, as `{"t": <time.time()>, "hex": ...}` lines, to OUT.jsonl; keys typed into the
outer terminal go to the command. Used by `bench_terminal.py` to count what a TUI sends to the terminal.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import sys
import termios
import time
import tty


def _copy_size(src: int, dst: int) -> None:
    try:
        fcntl.ioctl(dst, termios.TIOCSWINSZ, fcntl.ioctl(src, termios.TIOCGWINSZ, b"\0" * 8))
    except OSError:
        pass


def main(argv: list[str]) -> int:
    out_path, command = argv[0], argv[argv.index("--") + 1 :]
    pid, master = pty.fork()
    if pid == 0:  # the child: the command on the new pty
        os.execvp(command[0], command)
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    _copy_size(stdin, master)
    signal.signal(signal.SIGWINCH, lambda *_: _copy_size(stdin, master))
    saved = termios.tcgetattr(stdin)
    tty.setraw(stdin)
    try:
        with open(out_path, "w") as record:
            while True:
                try:
                    ready, _, _ = select.select([master, stdin], [], [])
                except InterruptedError:
                    continue
                if master in ready:
                    try:
                        data = os.read(master, 65536)
                    except OSError:  # EIO: the command closed its terminal
                        break
                    if not data:
                        break
                    record.write(json.dumps({"t": time.time(), "hex": data.hex()}) + "\n")
                    record.flush()
                    os.write(stdout, data)
                if stdin in ready:
                    data = os.read(stdin, 4096)
                    if not data:
                        break
                    os.write(master, data)
    finally:
        termios.tcsetattr(stdin, termios.TCSAFLUSH, saved)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
