"""A stand-in browser for OAuth tests: `python follow_redirects.py URL` follows every redirect, then exits.

Set as `$BROWSER` ("python …/follow_redirects.py %s"): Python's webbrowser runs it with the
sign-in link; the authorization server redirects straight to agent-tui's loopback callback.
Each URL it visits is appended to the file named by `$FOLLOW_LOG`, when set.
"""

from __future__ import annotations

import os
import sys

import httpx


def main() -> int:
    log = os.environ.get("FOLLOW_LOG")
    with httpx.Client(follow_redirects=True, timeout=30) as client:
        response = client.get(sys.argv[1])
        if log:
            with open(log, "a", encoding="utf-8") as fh:
                for hop in [*response.history, response]:
                    fh.write(f"{hop.status_code} {hop.request.url}\n")
    return 0 if response.status_code == 200 else 1


if __name__ == "__main__":
    raise SystemExit(main())
