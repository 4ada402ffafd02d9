"""What the tool results of the current turn have told the offline model so far."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from tui.agent.offline.conversation import (
    TODO_MARKER,
    GrepHit,
    ToolCall,
    TurnState,
    output_was_cut,
    parse_glob_paths,
    parse_grep_lines,
    parse_read_lines,
)
from tui.agent.offline.project import display_path, is_generated, normalize

GREP_PATTERN = "TODO|FIXME"
NOTE_TEXT = "NOTE: reviewed by agent-tui offline demo"
DEMO_FILE_NAME = "agent-tui-demo.md"
_GLOB_TOTAL = re.compile(r"of ([\d,]+) matching files")
_COUNT_LINE = re.compile(r"^(.+):(\d+)$")
_COMMENT_BEFORE = re.compile(r"(#|//|/\*|<!--|--|;|\*|%)\s*$")


@dataclass
class TurnFacts:
    """Files seen, reads, TODO hits and the change/command calls of this turn."""

    glob_paths: list[str] | None = None
    glob_cut: bool = False  # the Glob listed only part of the matching files
    glob_total: int | None = None  # how many files the Glob matched in all, when it says so
    reads: dict[str, tuple[str, dict[int, str]]] = field(default_factory=dict)
    attempted_reads: set[str] = field(default_factory=set)
    hits: list[GrepHit] = field(default_factory=list)
    lines: list[GrepHit] = field(default_factory=list)  # every line a search returned (TODO or not)
    searched: bool = False
    search_cut: bool = False  # a search result said it was cut short
    counts: dict[str, int] | None = None  # matching lines per file, from a count-mode Grep
    counts_cut: bool = False
    change_call: ToolCall | None = None
    command_call: ToolCall | None = None


def _is_search_command(call: ToolCall) -> bool:
    """A Bash call that stands in for Grep (used when Grep is not offered)."""
    return call.name == "Bash" and str(call.input.get("command", "")).startswith("grep ")


def gather_facts(turn: TurnState, project_dir: Path) -> TurnFacts:
    """Collects what this turn's answered tool calls returned."""
    facts = TurnFacts()
    for call in turn.calls:
        text = call.result_text or ""
        if call.name == "Glob" and call.succeeded:
            paths = parse_glob_paths(text)
            facts.glob_paths = [p for p in paths if not is_generated(display_path(p, project_dir))]
            facts.glob_cut = output_was_cut(text)
            total = _GLOB_TOTAL.search(text)
            facts.glob_total = int(total.group(1).replace(",", "")) if total else None
        elif call.name == "Read":
            path = normalize(str(call.input.get("file_path", "")), project_dir)
            facts.attempted_reads.add(path)
            if call.succeeded:
                facts.reads[path] = (str(call.input["file_path"]), parse_read_lines(text))
        elif call.name == "Grep" and call.input.get("output_mode") == "count":
            if call.succeeded:
                facts.counts = _per_file_counts(text, project_dir)
                facts.counts_cut = output_was_cut(text)
        elif call.name == "Grep" or _is_search_command(call):
            facts.searched = facts.searched or call.result_text is not None
            if call.result_text is not None and (call.succeeded or call.name == "Bash"):
                default = str(call.input.get("path", ""))
                kept = [
                    hit
                    for hit in parse_grep_lines(text, default_path=default)
                    if not is_generated(display_path(hit.path, project_dir))
                ]
                facts.lines.extend(kept)
                facts.hits.extend(hit for hit in kept if TODO_MARKER.search(hit.text))
                facts.search_cut = facts.search_cut or output_was_cut(text)
        elif call.name in ("Edit", "Write"):
            facts.change_call = call
        elif call.name == "Bash":
            facts.command_call = call
    return facts


def _per_file_counts(text: str, project_dir: Path) -> dict[str, int]:
    """`path:N` lines of a count-mode Grep, generated files left out."""
    counts: dict[str, int] = {}
    for line in text.split("\n"):
        match = _COUNT_LINE.match(line.strip())
        if match and not is_generated(display_path(match.group(1), project_dir)):
            counts[display_path(match.group(1), project_dir)] = int(match.group(2))
    return counts


def in_comment(hit: GrepHit) -> bool:
    """True when the TODO marker sits in a comment (or starts the line, as in Markdown)."""
    match = TODO_MARKER.search(hit.text)
    if match is None:
        return False
    before = hit.text[: match.start()]
    inside_string = before.count('"') % 2 == 1 or before.count("'") % 2 == 1
    return not before.strip() or (not inside_string and bool(_COMMENT_BEFORE.search(before)))


def editable_hits(facts: TurnFacts, project_dir: Path) -> list[GrepHit]:
    """TODO hits in files that still exist: comment hits first, then by path and line.

    Not in search order: ripgrep searches files in parallel and prints them in the order its
    threads finish, so the demo would edit a different file from run to run.
    """
    seen: set[tuple[str, int]] = set()
    usable = []
    for hit in facts.hits:
        path = normalize(hit.path, project_dir)
        if (path, hit.line) in seen or NOTE_TEXT in hit.text or not Path(path).is_file():
            continue
        seen.add((path, hit.line))
        usable.append(hit)
    return sorted(usable, key=lambda hit: (not in_comment(hit), normalize(hit.path, project_dir), hit.line))


def rewrite_todo_line(line: str) -> str:
    """The TODO/FIXME line turned into a reviewed note, indentation and comment kept."""
    match = TODO_MARKER.search(line)
    if match is None:
        return line
    rest = re.sub(r"^(\([^)]*\))?[:\-]?\s*", "", line[match.end() :])
    return line[: match.start()] + NOTE_TEXT + (f" - {rest}" if rest else "")


def edit_strings(hit: GrepHit, lines: dict[int, str]) -> tuple[str, str, int]:
    """old_string, new_string and line number of an Edit that rewrites one TODO line.

    The full line comes from the Read result when it has that line (Grep may cut long lines);
    when the line is not unique in the file, neighbouring lines are added until it is.
    """
    number = hit.line
    if TODO_MARKER.search(lines.get(number, "")) is None:
        matching = [n for n, text in sorted(lines.items()) if text == hit.text]
        number = matching[0] if matching else number
    target = lines.get(number, hit.text)
    known = "\n".join(lines[n] for n in sorted(lines)) or target
    first, last = number, number
    old = target
    while known.count(old) > 1 and (last + 1 in lines or first - 1 in lines):
        if last + 1 in lines and last - number < 3:
            last += 1
        elif first - 1 in lines:
            first -= 1
        else:
            break
        old = "\n".join(lines.get(n, "") for n in range(first, last + 1))
    new = "\n".join(
        rewrite_todo_line(lines.get(n, target)) if n == number else lines.get(n, "") for n in range(first, last + 1)
    )
    return old, new, number
