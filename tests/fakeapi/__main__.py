"""CLI: serve a JSON script on a fixed port for tmux demos and benchmarks (`python -m tests.fakeapi --help`)."""

from __future__ import annotations

import argparse
import itertools
import signal
import sys
import threading
from typing import Any

from .scriptfile import ScriptFormatError, load_script
from .server import FakeAPI


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fakeapi", description=__doc__)
    parser.add_argument("--script", required=True, help="JSON array of steps (see tests/fakeapi/scriptfile.py)")
    parser.add_argument("--port", type=int, default=8787, help="port on 127.0.0.1 (0 = any free port)")
    parser.add_argument("--token-delay", type=float, default=0.0, help="seconds between SSE events")
    parser.add_argument("--project", default=".", help="directory substituted for {project} in the script")
    parser.add_argument("--cycle", action="store_true", help="start the script again when it runs out")
    parser.add_argument("--no-validate", action="store_true", help="skip request validation")
    parser.add_argument("--no-cache", action="store_true", help="report no prompt-cache usage")
    parser.add_argument("--min-cache-tokens", type=int, default=1024)
    args = parser.parse_args(argv)
    try:
        steps = load_script(args.script, args.project)
    except ScriptFormatError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    script: Any = steps
    if args.cycle:
        cycle = itertools.cycle(steps)
        lock = threading.Lock()

        def next_in_cycle(body: dict[str, Any]) -> Any:
            with lock:
                return next(cycle)

        script = next_in_cycle

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        api = FakeAPI(
            script,
            validate=not args.no_validate,
            simulate_cache=not args.no_cache,
            token_delay=args.token_delay,
            min_cache_tokens=args.min_cache_tokens,
            port=args.port,
            log=log,
        )
    except OSError as exc:
        print(f"error: cannot listen on 127.0.0.1:{args.port}: {exc}", file=sys.stderr)
        return 2
    print(api.base_url, flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        done.wait()
    except KeyboardInterrupt:
        pass
    finally:
        api.stop()
        for problem in api.errors:
            log(f"validation: {problem}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
