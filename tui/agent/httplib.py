"""The HTTP library under the installed SDK: httpx for anthropic 0.x, httpx2 for 1.x and 2.x.

Transports, timeouts and transport errors must come from the same library as the SDK's
own client, so everything that builds or catches them imports `httpx` from here.
"""

from __future__ import annotations

from importlib.metadata import version

SDK_MAJOR = int(version("anthropic").split(".", 1)[0])

if SDK_MAJOR >= 1:
    import httpx2 as httpx
else:  # pragma: no cover - depends on the pinned SDK
    import httpx  # type: ignore[no-redef]

__all__ = ["SDK_MAJOR", "httpx"]
