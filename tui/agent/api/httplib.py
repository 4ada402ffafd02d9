"""The HTTP library under the installed SDK: httpx for anthropic 0.x, httpx2 for 1.x and 2.x.

Transports, timeouts and transport errors must come from the same library as the SDK's
own client, so everything that builds or catches them imports `httpx` from here.
"""

from __future__ import annotations

import re
from importlib.util import find_spec
from pathlib import Path


def _sdk_major() -> int:
    """The installed SDK's major version, read from its `_version.py` (importlib.metadata costs ~15 ms)."""
    spec = find_spec("anthropic")
    if spec is not None and spec.origin:
        found = re.search(r'__version__\s*=\s*"(\d+)\.', (Path(spec.origin).parent / "_version.py").read_text())
        if found:
            return int(found.group(1))
    from importlib.metadata import version

    return int(version("anthropic").split(".", 1)[0])


SDK_MAJOR = _sdk_major()

if SDK_MAJOR >= 1:
    import httpx2 as httpx
else:  # pragma: no cover - depends on the pinned SDK
    import httpx  # type: ignore[no-redef]

__all__ = ["SDK_MAJOR", "httpx"]
