"""The offline model's brain: from a request body and the real project to content blocks.

A request to change something runs in four steps, each derived from the messages alone:
(1) a parallel Glob + Read + Grep, (2) one Edit of a TODO line (or a Write of a demo file),
after a Read of that file if needed, (3) a Bash command, (4) an end_turn Markdown summary.
Any other request (find, list, where is, explain) gets its searches and reads, then an
answer, and never an edit. Only offered tools are called; error results are reported.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from tui.agent.offline.answers import answer, first_calls
from tui.agent.offline.calls import Blocks, search_call, text_block, tool_call
from tui.agent.offline.conversation import QUEUED_MARK, TurnState, current_turn
from tui.agent.offline.delegate import delegate, wants_agents
from tui.agent.offline.facts import (
    DEMO_FILE_NAME,
    GREP_PATTERN,
    TurnFacts,
    edit_strings,
    editable_hits,
    gather_facts,
)
from tui.agent.offline.intent import Kind, classify
from tui.agent.offline.limits import cannot_reply, safe_hits, serves_change
from tui.agent.offline.project import display_path, is_git_repo, normalize, pick_read_target
from tui.agent.offline.replies import GREETING, demo_file_content, findings_sentence, images_reply, summary
from tui.agent.offline.summary import is_summary_request, summary_text
from tui.text.wording import shorten

MAX_REPLIES_PER_TURN = 6
_PROJECT_WORDS = frozenset(
    "file files code todo todos fixme fix bug bugs read edit project repo repository find search "
    "grep test tests write run look change refactor explain function class readme module source "
    "error build review summarize summary implement add remove rename update list show directory "
    "folder git commit diff lint check scan inspect analyze analyse".split()
)
_FILE_LIKE = re.compile(r"\w\.\w{1,8}\b|/")


def offered_tools(body: dict[str, Any]) -> set[str]:
    """Names of the tools the request offers."""
    return {str(tool.get("name")) for tool in body.get("tools") or [] if isinstance(tool, dict)}


def is_small_talk(prompt: str) -> bool:
    """True for greetings and prompts with no project-related word or file name in them."""
    words = set(re.findall(r"[a-z]+", prompt.lower()))
    return not (words & _PROJECT_WORDS) and _FILE_LIKE.search(prompt) is None


def _first_step(turn: TurnState, tools: set[str], project_dir: Path) -> tuple[Blocks, str]:
    """A short plan, then Glob, Read and Grep in parallel."""
    calls: Blocks = []
    doing: list[str] = []
    if "Glob" in tools:
        calls.append(tool_call("Glob", {"pattern": "**/*"}))
        doing.append("list its files")
    target = pick_read_target(turn.prompt, project_dir)
    if target is not None and "Read" in tools:
        calls.append(tool_call("Read", {"file_path": str(target)}))
        doing.append(f"read `{display_path(str(target), project_dir)}`")
    search = search_call(GREP_PATTERN, tools, "Search for TODO/FIXME")
    if search is not None:
        calls.append(search)
        doing.append("search for TODO/FIXME markers (generated files left out)")
    if not calls:
        return [text_block(summary(TurnFacts(), project_dir, "no tools were offered"))], "end_turn"
    plan = ", ".join(doing[:-1]) + (" and " if len(doing) > 1 else "") + doing[-1]
    return [text_block(f"I'll look at the project: {plan}."), *calls], "tool_use"


def _change_step(facts: TurnFacts, tools: set[str], project_dir: Path) -> tuple[Blocks, str] | str:
    """The one edit of the turn (after a Read of its file if needed), or why there is none."""
    found = findings_sentence(facts, project_dir)
    hits = safe_hits(facts, project_dir)
    if hits:
        hit = hits[0]
        path = normalize(hit.path, project_dir)
        shown = display_path(hit.path, project_dir)
        read = facts.reads.get(path)
        if read is None and path not in facts.attempted_reads and "Read" in tools:
            note = f"{found} I'll read `{shown}` before editing its TODO on line {hit.line}."
            return [text_block(note), tool_call("Read", {"file_path": path})], "tool_use"
        if "Edit" not in tools:
            return "the Edit tool is not available in this mode"
        if read is None and path in facts.attempted_reads:
            return f"`{shown}` could not be read"
        file_path, lines = read if read is not None else (path, {})
        old, new, number = edit_strings(hit, lines)
        note = f"{found} I'll turn the TODO on line {number} of `{shown}` into a reviewed note."
        edit = {"file_path": file_path, "old_string": old, "new_string": new}
        return [text_block(note), tool_call("Edit", edit)], "tool_use"
    if "Write" not in tools:
        return "no TODO was found and the Write tool is not available"
    demo_path = str(project_dir.absolute() / DEMO_FILE_NAME)
    normalized = normalize(demo_path, project_dir)
    if (
        Path(demo_path).exists()
        and normalized not in facts.reads
        and "Read" in tools
        and normalized not in facts.attempted_reads
    ):
        note = f"{found} `{DEMO_FILE_NAME}` exists already; I'll read it before rewriting it."
        return [text_block(note), tool_call("Read", {"file_path": demo_path})], "tool_use"
    why = (
        "No TODO comment can be rewritten without changing the code or breaking the file's syntax"
        if editable_hits(facts, project_dir)
        else "No TODO to fix"
    )
    note = f"{found} {why}, so I'll write a short summary to `{DEMO_FILE_NAME}`."
    write = {"file_path": demo_path, "content": demo_file_content(facts, project_dir)}
    return [text_block(note), tool_call("Write", write)], "tool_use"


def _command_step(facts: TurnFacts, project_dir: Path) -> tuple[Blocks, str]:
    """A Bash command that shows the result: git status in a repository, else ls."""
    call = facts.change_call
    if call is not None and call.is_error:
        note = "The change was not applied, so nothing changed on disk; let me check the tree."
    elif call is not None:
        note = "The change is in. Let me check the working tree."
    else:
        note = "Let me check the working tree."
    if is_git_repo(project_dir):
        command = {"command": "git status --short", "description": "Show changed files"}
    else:
        command = {"command": "ls -la", "description": "List the project directory"}
    return [text_block(note), tool_call("Bash", command)], "tool_use"


def _plan(turn: TurnState, tools: set[str], project_dir: Path) -> tuple[Blocks, str]:
    """Picks the step of the turn from the calls made so far."""
    intent = classify(turn.prompt)
    if wants_agents(turn.prompt, tools):
        return delegate(turn)
    if intent.kind is Kind.CHANGE and not serves_change(turn.prompt):
        return [text_block(cannot_reply(turn.prompt))], "end_turn"
    if not turn.calls and turn.images:
        return [text_block(images_reply(turn.images))], "end_turn"
    if not turn.calls:
        if intent.kind in (Kind.LOOK, Kind.CHANGE) and is_small_talk(turn.prompt):
            return [text_block(GREETING)], "end_turn"
        first = first_calls(intent, turn.prompt, tools, project_dir)
        return first if first is not None else _first_step(turn, tools, project_dir)
    facts = gather_facts(turn, project_dir)
    if intent.kind is not Kind.CHANGE:  # only a request to change something leads to an edit
        return [text_block(answer(intent, facts, project_dir))], "end_turn"
    if turn.assistant_replies >= MAX_REPLIES_PER_TURN:
        return [text_block(summary(facts, project_dir, "the turn ran out of steps"))], "end_turn"
    note = ""
    if facts.change_call is None:
        step = _change_step(facts, tools, project_dir)
        if not isinstance(step, str):
            return step
        note = step
    if facts.command_call is None and "Bash" in tools:
        return _command_step(facts, project_dir)
    return [text_block(summary(facts, project_dir, note))], "end_turn"


def _thinking(body: dict[str, Any], blocks: Blocks, stop_reason: str) -> dict[str, Any]:
    """A short thinking block with a fake signature; empty text when display is omitted."""
    names = [block["name"] for block in blocks if block["type"] == "tool_use"]
    plan = f"call {', '.join(names)}" if names else "answer and end the turn"
    thought = f"Step {len(body.get('messages') or [])}: I will {plan} ({stop_reason})."
    if (body.get("thinking") or {}).get("display") == "omitted":
        thought = ""
    digest = hashlib.sha256(json.dumps(blocks, sort_keys=True).encode()).digest()
    return {"type": "thinking", "thinking": thought, "signature": "offline-" + base64.b64encode(digest).decode()}


def _assign_ids(body: dict[str, Any], blocks: Blocks) -> None:
    """Deterministic tool ids: `toolu_offline_` + a hash of position and input."""
    depth = len(body.get("messages") or [])
    for index, block in enumerate(blocks):
        if block["type"] == "tool_use":
            seed = f"{depth}:{index}:{block['name']}:{json.dumps(block['input'], sort_keys=True)}"
            block["id"] = "toolu_offline_" + hashlib.sha256(seed.encode()).hexdigest()[:20]


def plan_reply(body: dict[str, Any], project_dir: Path) -> tuple[Blocks, str]:
    """The content blocks and stop_reason the offline model answers this request with."""
    project_dir = Path(project_dir)
    if is_summary_request(body):  # a compaction: a summary, as a real model writes one
        return [text_block(summary_text(body))], "end_turn"
    turn = current_turn(list(body.get("messages") or []))
    if turn is None:
        blocks, stop_reason = [text_block("Send me a prompt to start a turn.")], "end_turn"
    else:
        blocks, stop_reason = _plan(turn, offered_tools(body), project_dir)
        while stop_reason == "end_turn" and turn.waiting:  # each message queued meanwhile gets its answer
            text = turn.waiting[0]
            turn = TurnState(prompt=text, queued=turn.queued, started=turn.started + 1)
            more, stop_reason = _plan(turn, offered_tools(body), project_dir)
            blocks += [text_block(f"{QUEUED_MARK} “{shorten(' '.join(text.split()), 200)}”"), *more]
    _assign_ids(body, blocks)
    if (body.get("thinking") or {}).get("type") in ("enabled", "adaptive"):
        blocks.insert(0, _thinking(body, blocks, stop_reason))
    return blocks, stop_reason
