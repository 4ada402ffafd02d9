"""Work the first reply would otherwise do mid-stream, done once while the app is idle.

The heavy imports stay inside `warm_up_first_reply`: this module is imported before the first frame.
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import App
from textual.dom import DOMNode
from textual.widget import Widget


class _ClassCSS:
    """Stands in for a widget instance when reading a class's default CSS (only its bases are read)."""

    def __init__(self, cls: type[Widget]) -> None:
        self._node_bases = cls._css_bases(cls)


#: every kind of Markdown block a reply uses, parsed and rendered once while the app is idle
WARM_UP_MARKDOWN = """# Heading

Text with **bold**, *italic*, `code` and a [link](https://example.com).

- item
  1. nested

> quoted

| a | b |
|---|---|
| 1 | 2 |

```python
def f(x):
    return x
```

---
"""


async def warm_up_first_reply(app: App[Any]) -> None:
    """Do once, while idle, what the first reply would otherwise do in the middle of its stream.

    That is importing Markdown (markdown-it, linkify, Textual's and Rich's Markdown), parsing
    the default CSS of every Markdown block widget and setting up code highlighting: ~0.3-0.5 s
    of UI-thread time. Nothing is mounted (a hidden Markdown never finished mounting and
    stalled the message queue); best effort: any failure only leaves the cost where it was.
    """
    try:
        from io import StringIO

        from markdown_it import MarkdownIt
        from rich.console import Console
        from rich.markdown import Markdown as RichMarkdown  # what finished parts of a reply render with
        from textual.widgets import _collapsible, _markdown, _static

        from .widgets import blocks, conversation, reply_stream

        await asyncio.sleep(0)
        MarkdownIt("gfm-like").parse(WARM_UP_MARKDOWN)  # what Textual's Markdown parses with
        await asyncio.sleep(0)
        modules = (_markdown, _collapsible, _static, reply_stream, blocks, conversation)
        classes = {
            c for module in modules for c in vars(module).values() if isinstance(c, type) and issubclass(c, Widget)
        }
        for cls in classes:
            for read_from, css, tie_breaker, scope in DOMNode._get_default_css(_ClassCSS(cls)):  # type: ignore[arg-type]
                app.stylesheet.add_source(
                    css, read_from=read_from, is_default_css=True, tie_breaker=tie_breaker, scope=scope
                )
        app.stylesheet.parse()  # cached: mounting these widgets later finds their rules parsed
        await asyncio.sleep(0)
        Console(file=StringIO(), width=80, color_system="truecolor").print(RichMarkdown(WARM_UP_MARKDOWN))
    except Exception:  # pragma: no cover - relies on Textual internals that may move
        pass
