"""JSON script files for the CLI: one object per step, mirroring the step constructors of `script.py`.

Example: `[{"raw": "event: ping\\ndata: {}\\n\\n"}, {"reply": [{"text": "Reading."}, {"tool_use": {"name": "Read", "input": {"file_path": "{project}/a.py"}}}],
"stop_reason": "tool_use"}, {"http_error": 529}, {"drop": {"after_events": 4}}, {"reply": [{"text": "Done."}]}]`.
The string `{project}` anywhere in a step is replaced by the project directory given to `load_script`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from . import script as s

_FAULTS = (
    "http_error",
    "sse_error",
    "drop",
    "stall",
    "no_message_stop",
    "max_tokens_mid_tool_use",
    "refusal",
    "pause_turn",
)


class ScriptFormatError(ValueError):
    """A script file that does not describe valid steps."""


def _substitute(value: Any, project: str) -> Any:
    if isinstance(value, str):
        return value.replace("{project}", project)
    if isinstance(value, list):
        return [_substitute(v, project) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, project) for k, v in value.items()}
    return value


def parse_block(spec: dict[str, Any]) -> s.Block:
    """One content block: {"text"}, {"tool_use"}, {"thinking", "signature"}, {"redacted_thinking"},
    {"server_tool_use"} or {"block": <raw block sent whole>}."""
    if "text" in spec:
        return s.text(str(spec["text"]))
    if "tool_use" in spec:
        t = spec["tool_use"]
        return s.tool_use(t["name"], t.get("input") or {}, t.get("id"))
    if "thinking" in spec:
        return s.thinking(str(spec["thinking"]), str(spec.get("signature", "sigFAKE")))
    if "redacted_thinking" in spec:
        return s.redacted_thinking(str(spec["redacted_thinking"]))
    if "server_tool_use" in spec:
        t = spec["server_tool_use"]
        return s.server_tool_use(t.get("name", "web_search"), t.get("input") or {}, t.get("id"))
    if "block" in spec:
        return s.raw_block(spec["block"])
    raise ScriptFormatError(
        f"unknown content block {spec!r}; use text, tool_use, thinking, redacted_thinking, server_tool_use or block"
    )


def _reply_from(blocks: Any, options: dict[str, Any]) -> s.Reply:
    if not isinstance(blocks, list):
        raise ScriptFormatError(f"a reply must be a list of blocks, got {blocks!r}")
    return s.reply(
        *(parse_block(b) for b in blocks),
        stop_reason=options.get("stop_reason", "end_turn"),
        usage=options.get("usage"),
        stop_details=options.get("stop_details"),
        stop_sequence=options.get("stop_sequence"),
    )


def parse_step(spec: dict[str, Any]) -> s.Step:
    """One step object; faults take a number (after_events / status) or an options object."""
    if not isinstance(spec, dict):
        raise ScriptFormatError(f"each step must be an object, got {spec!r}")
    if "raw" in spec:  # a body sent byte for byte: {"raw": "<body>"} or {"raw": {"body", "content_type", "status"}}
        raw_spec = spec["raw"] if isinstance(spec["raw"], dict) else {"body": spec["raw"]}
        return s.raw(
            str(raw_spec.get("body", "")),
            raw_spec.get("content_type", "text/event-stream; charset=utf-8"),
            int(raw_spec.get("status", 200)),
        )
    if "reply" in spec and not any(k in spec for k in _FAULTS):
        return _reply_from(spec["reply"], spec)
    kind = next((k for k in _FAULTS if k in spec), None)
    if kind is None:
        raise ScriptFormatError(f"unknown step {spec!r}; use reply or one of {', '.join(_FAULTS)}")
    raw = spec[kind]
    opts: dict[str, Any] = dict(raw) if isinstance(raw, dict) else {}
    inner = (
        _reply_from(spec["reply"], spec)
        if "reply" in spec
        else (_reply_from(opts["reply"], opts) if "reply" in opts else None)
    )
    if kind == "http_error":
        status = int(raw) if not isinstance(raw, dict) else int(opts["status"])
        return s.http_error(status, opts.get("type"), opts.get("message"), opts.get("headers"))
    count = (
        int(raw) if isinstance(raw, (int, float)) and not isinstance(raw, bool) else int(opts.get("after_events", 3))
    )
    if kind == "sse_error":
        return s.sse_error(count, opts.get("type", "overloaded_error"), opts.get("message", "Overloaded"), inner)
    if kind == "drop":
        return s.drop(count, inner)
    if kind == "stall":
        return s.stall(count, float(opts.get("seconds", 5.0)), inner)
    if kind == "no_message_stop":
        return s.no_message_stop(inner, keep_message_delta=bool(opts.get("keep_message_delta", False)))
    if kind == "max_tokens_mid_tool_use":
        return s.max_tokens_mid_tool_use(
            opts.get("name", "Write"), opts.get("input"), lead_text=opts.get("text", "I'll write the file now.")
        )
    if kind == "refusal":
        return s.refusal(opts.get("text", ""), opts.get("category", "cyber"), opts.get("explanation"))
    return s.pause_turn(opts.get("query", "agent-tui"), opts.get("text", "Let me search for that."))


def load_script(path: str | Path, project: str | Path = ".") -> list[s.Step]:
    """Read a JSON script file into steps, with `{project}` replaced by the absolute project path."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ScriptFormatError(f"cannot read script {path}: {exc}") from exc
    if not isinstance(data, list):
        raise ScriptFormatError(f"script {path} must hold a JSON array of steps")
    return [parse_step(_substitute(step, str(Path(project).resolve()))) for step in data]
