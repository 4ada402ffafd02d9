"""Export a conversation (/export): readable Markdown plus a copy of the raw JSONL transcript.

The Markdown is rendered from the transcript records when there is a transcript (so stop
reasons and compactions appear where they happened), else from the in-memory history.
"""

from __future__ import annotations

import datetime as _dt
import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.system.private_files import open_private, private_dir, write_private
from tui.text.wording import plural

from .resume import records_in

if TYPE_CHECKING:
    from tui.agent.session import AgentSession

RESULT_PREVIEW_CHARS = 600


def _fence(text: str) -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}\n{text.rstrip()}\n{ticks}"


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        content = "\n".join(c.get("text", "") for c in content if isinstance(c, dict) and c.get("type") == "text")
    text = str(content or "")
    if len(text) > RESULT_PREVIEW_CHARS:
        text = text[:RESULT_PREVIEW_CHARS] + f"\n… ({plural(len(text) - RESULT_PREVIEW_CHARS, 'more character')})"
    return text


def _tool_call(block: dict[str, Any]) -> str:
    tool_input = block.get("input") or {}
    main = tool_input.get("command") or tool_input.get("file_path") or tool_input.get("pattern")
    if main is None:
        main = json.dumps(tool_input, ensure_ascii=False)[:200]
    return f"**Tool call** `{block.get('name')}`: `{main}`"


def message_markdown(message: dict[str, Any]) -> list[str]:
    """The Markdown paragraphs for one API message."""
    role = message.get("role")
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or ())
    out: list[str] = []
    texts = [b.get("text", "") for b in blocks if b.get("type") == "text" and b.get("text")]
    if role == "user" and texts:
        out.append("## User\n\n" + "\n\n".join(texts))
    elif role == "assistant" and texts:
        out.append("## Assistant\n\n" + "\n\n".join(texts))
    for block in blocks:
        kind = block.get("type")
        if kind == "tool_use":
            out.append(_tool_call(block))
        elif kind == "tool_result":
            label = "Tool error" if block.get("is_error") else "Tool result"
            out.append(f"<details><summary>{label}</summary>\n\n{_fence(_result_text(block))}\n\n</details>")
        elif kind == "thinking" and block.get("thinking"):
            out.append("> *thinking:* " + block["thinking"].strip().replace("\n", "\n> "))
    return out


def records_markdown(records: list[dict[str, Any]], title: str) -> str:
    """Markdown from transcript records in order: messages, stop reasons, compactions."""
    parts = [f"# {title}"]
    for record in records:
        kind = record.get("type")
        if kind == "message":
            parts.extend(message_markdown(record.get("message") or {}))
        elif kind == "merge_user":
            content = (record.get("message") or {}).get("content") or []
            last = [b for b in content if isinstance(b, dict) and b.get("type") == "text"][-1:]
            if last:
                parts.append("## User\n\n" + last[0].get("text", ""))
        elif kind == "compaction":
            parts.append(
                f"---\n\n*Context compacted ({plural(int(record.get('messages_before') or 0), 'message')} → "
                f"{len(record.get('messages') or [])}). Summary:*\n\n{record.get('summary', '')}\n\n---"
            )
        elif kind == "event" and (record.get("event") or {}).get("type") == "LoopStopped":
            event = record["event"]
            detail = f": {event.get('detail')}" if event.get("detail") and event.get("reason") != "end_turn" else ""
            parts.append(f"*— stopped ({event.get('reason')}){detail}*")
    return "\n\n".join(parts) + "\n"


def export_session(session: AgentSession, destination: str | Path | None = None) -> tuple[Path, Path | None]:
    """Write `<id>.md` (and copy `<id>.jsonl`) into `destination` or `.agent-tui/exports/`; returns the paths."""
    project_dir = Path(session.options.project_dir)
    folder = Path(destination).expanduser() if destination else project_dir / ".agent-tui" / "exports"
    if not folder.is_absolute():
        folder = project_dir / folder
    if folder.suffix == ".md":
        md_path, folder = folder, folder.parent
    else:
        md_path = folder / f"{session.session_id}.md"
    # 0600 files; the default folder is made 0700, a folder the user named is left as it is (missing ones: 0700)
    tighten = not destination
    private_dir(folder, tighten=tighten)
    if session.transcript is not None:
        session.bus.flush(5)  # queued event records reach the file first
    source = session.transcript_path
    stamp = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    title = f"agent-tui session {session.session_id} ({session.options.model}, exported {stamp})"
    if source is not None and source.is_file():
        markdown = records_markdown(records_in(source.read_bytes()), title)
    else:
        markdown = records_markdown([{"type": "message", "message": m} for m in session.messages], title)
    write_private(md_path, markdown, tighten_folder=tighten)
    jsonl_path: Path | None = None
    if source is not None and source.is_file():
        jsonl_path = md_path.with_suffix(".jsonl")
        with open(source, "rb") as src, open_private(jsonl_path, "wb", tighten_folder=tighten) as out:
            shutil.copyfileobj(src, out)
    return md_path, jsonl_path
