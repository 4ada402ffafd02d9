"""An ACP prompt (text, resource links, embedded resources, images) as the text one turn sends.

A file the client names (a `file://` link or an embedded resource) is attached under the Read
tool's rules, as an `@` mention is: deny rules refuse it, a file outside the project needs a yes
(asked through the client). The client's embedded text (its unsaved buffer) is what is sent once
the file may be attached. Images and audio are not taken yet: each gets one sentence instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from tui.tools.attachments import Attachment, decide, load, mentioned_paths

NOT_TAKEN = "agent-tui's ACP server takes text and resources; images and audio are not sent to the model yet"


@dataclass
class Resource:
    """A file the prompt names: its path, and the text the client embedded (None for a link)."""

    path: str
    shown: str
    text: str | None = None


@dataclass
class PromptParts:
    """The prompt's own text, the files it names, other context to append, and a sentence per thing left out."""

    text: str = ""
    files: list[Resource] = field(default_factory=list)
    context: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def file_path(uri: str) -> str | None:
    """The local path of a `file://` URI (or of a bare absolute path); None for any other URI."""
    if uri.startswith("/"):
        return uri
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    return unquote(parsed.path) or None


def split(blocks: list[Any]) -> PromptParts:
    """Sort the prompt's content blocks into text, files, other context and notices."""
    parts = PromptParts()
    texts: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", "")
        if kind == "text":
            texts.append(block.text)
        elif kind == "resource_link":
            name = block.title or block.name or block.uri
            path = file_path(block.uri)
            if path is not None:
                parts.files.append(Resource(path, name))
            else:
                parts.context.append(f"[The user attached {name}: {block.uri}]")
        elif kind == "resource":
            resource = block.resource
            path = file_path(resource.uri)
            text = getattr(resource, "text", None)
            if text is None:
                parts.notices.append(f"{resource.uri} was not attached: it is binary, and {NOT_TAKEN}.")
            elif path is not None:
                parts.files.append(Resource(path, path, text))
            else:
                parts.context.append(f'<resource uri="{resource.uri}">\n{text.rstrip()}\n</resource>')
        elif kind in ("image", "audio"):
            where = f" {block.uri}" if getattr(block, "uri", None) else ""
            parts.notices.append(f"The {kind}{where} was not attached: {NOT_TAKEN}.")
    parts.text = "\n\n".join(t for t in texts if t)
    return parts


def attach_files(parts: PromptParts, rules: Any, ask: Callable[[Attachment], bool]) -> list[str]:
    """The `<file>` blocks of the files the prompt names that Read's rules let through; notices for the rest.

    A file its text also mentions with `@` is left to that mention (some clients send both).
    """
    project = Path(os.path.abspath(rules.project_dir))
    mentioned = {os.path.normpath(project / os.path.expanduser(m)) for m in mentioned_paths(parts.text)}
    blocks: list[str] = []
    seen: set[str] = set()
    for resource in parts.files:
        path = os.path.normpath(project / os.path.expanduser(resource.path))
        if path in mentioned or path in seen:
            continue
        seen.add(path)
        decided = decide(path, rules)
        if decided is None:  # not on disk: only the client's own copy can be sent (an unsaved new buffer)
            if resource.text is not None:
                blocks.append(_file_block(resource.shown, resource.text))
            else:
                parts.notices.append(f"{resource.shown} was not attached: there is no such file.")
            continue
        if decided.kind == "ask" and not ask(decided):
            parts.notices.append(
                f"{resource.shown} was not attached: {decided.reason.rstrip('.')}, and you did not allow it."
            )
            continue
        if decided.kind == "refused":
            parts.notices.append(f"{resource.shown} was not attached: {decided.reason}")
            continue
        if resource.text is not None:
            blocks.append(_file_block(resource.shown, resource.text))
            continue
        loaded = load(decided) if decided.kind == "ask" else decided
        if loaded.kind == "text":
            blocks.append(loaded.text)
        else:
            parts.notices.append(f"{resource.shown} was not attached: {loaded.reason}")
    return blocks


def _file_block(shown: str, text: str) -> str:
    return f'<file path="{shown}">\n{text.rstrip()}\n</file>'


def prompt_text(text: str, files: list[str], context: list[str]) -> str:
    """The text the turn sends: the prompt, then the attached files and other context."""
    if files:
        text += "\n\nFiles the user attached:\n\n" + "\n\n".join(files)
    if context:
        text += "\n\n" + "\n\n".join(context)
    return text
