"""Read-only requests (find, list, where is, explain): their tool calls and the answer, never an edit."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from tui.agent.offline.calls import Blocks, count_call, search_call, text_block, tool_call
from tui.agent.offline.conversation import GrepHit
from tui.agent.offline.facts import TurnFacts, editable_hits
from tui.agent.offline.intent import Intent, Kind
from tui.agent.offline.project import display_path, mentioned_files, pick_read_target, walk_project
from tui.agent.offline.replies import FOOTER, at_least, files_seen, languages_line
from tui.text.wording import plural, shorten

TODO_PATTERN = r"\b(TODO|FIXME)\b"
SHOWN_FILES = 50
SHOWN_HITS = 20
_DEFINITION_KEYWORDS = "def|class|function|func|fn|struct|enum|trait|interface|type|const|let|var|module|impl"
_TOP_LEVEL_NAME = re.compile(
    r"^(?:export\s+)?(?:default\s+)?(?:pub(?:\(\w+\))?\s+)?(?:async\s+)?"
    r"(?:def|class|function|func|fn|struct|enum|trait|interface|type|const)\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)"
)
_HEADING = re.compile(r"^#{1,3}\s+(.+)$")
_COMMENT = re.compile(r'^\s*(?:"""|\'\'\'|#!?|//+|/\*+|\*|--|<!--)\s*(.*?)\s*(?:"""|\'\'\'|\*/|-->)?\s*$')


def definition_pattern(name: str) -> str:
    """A regex (ripgrep and grep -E) for lines that define `name` in common languages."""
    short = re.escape(name.rsplit(".", 1)[-1])
    return rf"\b({_DEFINITION_KEYWORDS})\s+{short}\b|^{short}\s*(:[^=]*)?="


def list_pattern(suffixes: tuple[str, ...]) -> str:
    """The Glob pattern for a listing: every file, or the files with these suffixes."""
    if not suffixes:
        return "**/*"
    names = [suffix.lstrip(".") for suffix in suffixes]
    return f"**/*.{names[0]}" if len(names) == 1 else "**/*.{" + ",".join(names) + "}"


def _no_tools(what: str) -> tuple[Blocks, str]:
    return [text_block(f"I can't {what}: the tools it needs are not offered in this mode.\n\n{FOOTER}")], "end_turn"


def first_calls(intent: Intent, prompt: str, tools: set[str], project_dir: Path) -> tuple[Blocks, str] | None:
    """The first reply for a listing, a definition or an explanation; None for the usual first step."""
    if intent.kind is Kind.LIST:
        if "Glob" not in tools:
            return _no_tools("list files")
        what = "files" if not intent.suffixes else f"{', '.join(intent.suffixes)} files"
        call = tool_call("Glob", {"pattern": list_pattern(intent.suffixes)})
        return [text_block(f"I'll list the {what} of the project."), call], "tool_use"
    if intent.kind is Kind.LOCATE:
        search = search_call(definition_pattern(intent.name), tools, f"Find where {intent.name} is defined")
        if search is None:
            return _no_tools("search the project")
        return [text_block(f"I'll search for where `{intent.name}` is defined."), search], "tool_use"
    if intent.kind is Kind.EXPLAIN:
        named = mentioned_files(prompt, project_dir)
        if named and "Read" in tools:
            shown = display_path(str(named[0]), project_dir)
            call = tool_call("Read", {"file_path": str(named[0])})
            return [text_block(f"I'll read `{shown}` and explain it."), call], "tool_use"
        calls: Blocks = []
        if "Glob" in tools:
            calls.append(tool_call("Glob", {"pattern": "**/*"}))
        target = pick_read_target(prompt, project_dir)
        if target is not None and "Read" in tools:
            calls.append(tool_call("Read", {"file_path": str(target)}))
        if not calls:
            return _no_tools("look at the project")
        return [text_block("I'll list the project's files and read its overview."), *calls], "tool_use"
    if intent.kind is Kind.TODOS and "Grep" in tools:
        calls = [
            call
            for call in (
                tool_call("Glob", {"pattern": "**/*"}) if "Glob" in tools else None,
                search_call(TODO_PATTERN, tools, "Search for TODO/FIXME"),
                count_call(TODO_PATTERN),
            )
            if call is not None
        ]
        note = "I'll list the project's files, then search for TODO/FIXME markers and count them (generated files left out)."
        return [text_block(note), *calls], "tool_use"
    return None


def _count(count: int, noun: str, cut: bool) -> str:
    """`12 files`, or `at least 12 files` when the tool result was cut short."""
    return at_least(cut) + plural(count, noun)


def _hit_lines(hits: list[GrepHit], project_dir: Path, limit: int = SHOWN_HITS) -> list[str]:
    lines = [f"- `{display_path(h.path, project_dir)}:{h.line}` {shorten(h.text.strip(), 100)}" for h in hits[:limit]]
    if len(hits) > limit:
        lines.append(f"- … and {plural(len(hits) - limit, 'more line')}")
    return lines


def _unique(hits: list[GrepHit], project_dir: Path) -> list[GrepHit]:
    seen: dict[tuple[str, int], GrepHit] = {}
    for hit in hits:
        seen.setdefault((display_path(hit.path, project_dir), hit.line), hit)
    return [seen[key] for key in sorted(seen)]


def _files_bullet(facts: TurnFacts, project_dir: Path) -> str:
    files = files_seen(facts, project_dir)
    return f"- Looked at **{_count(len(files), 'file', facts.glob_cut)}** ({languages_line(files)})"


def _findings(intent: Intent, facts: TurnFacts, project_dir: Path) -> list[str]:
    """What a find (or a look around) turned up, with honest counts."""
    lines = ["## Offline demo: what I found", "", _files_bullet(facts, project_dir)]
    reads = [display_path(shown, project_dir) for shown, _ in facts.reads.values()]
    if reads:
        lines.append("- Read " + ", ".join(f"`{path}`" for path in reads))
    hits = _unique(facts.lines, project_dir) if facts.counts is not None else editable_hits(facts, project_dir)
    if facts.searched:
        files = {display_path(hit.path, project_dir) for hit in hits}
        total, file_count, cut = len(hits), len(files), facts.search_cut
        if facts.counts is not None:  # the count-mode search is complete where the listing may be cut
            total, file_count, cut = sum(facts.counts.values()), len(facts.counts), facts.counts_cut
        lines.append(
            f"- Found **{_count(total, 'TODO/FIXME line', cut)}** in {_count(file_count, 'file', cut)} "
            "(lock, minified, binary and generated files left out)"
        )
        shown = sorted(hits, key=lambda h: (display_path(h.path, project_dir), h.line))[:SHOWN_HITS]
        if shown:
            lines += ["", *_hit_lines(shown, project_dir)]
            if total > len(shown):
                lines.append(f"- … and {at_least(cut)}{plural(total - len(shown), 'more line')}")
    ask = "find" if intent.kind is Kind.TODOS else "look"
    lines += [
        "",
        f"Nothing was changed: you asked me to {ask}, not to change anything. "
        "Ask `find the TODOs and fix one` to see an edit.",
    ]
    return lines


def _listing(intent: Intent, facts: TurnFacts, project_dir: Path) -> list[str]:
    files = sorted(facts.glob_paths or [])
    what = f"{', '.join(intent.suffixes)} files" if intent.suffixes else "Files"
    cut_note = "."
    if facts.glob_cut:
        matched = (
            f", of {plural(facts.glob_total, 'file')} Glob matched with generated ones" if facts.glob_total else ""
        )
        cut_note = f" (the listing stops at the 100 newest{matched}; narrow the pattern for the rest)."
    lines = [
        f"## {what[0].upper()}{what[1:]}",
        "",
        f"The project has **{_count(len(files), 'matching file', facts.glob_cut)}**{cut_note}",
    ]
    if files:
        lines += ["", *(f"- `{display_path(path, project_dir)}`" for path in files[:SHOWN_FILES])]
        if len(files) > SHOWN_FILES:
            lines.append(f"- … and {plural(len(files) - SHOWN_FILES, 'more file')}")
    return lines


def _definitions(intent: Intent, facts: TurnFacts, project_dir: Path) -> list[str]:
    hits = _unique(facts.lines, project_dir)
    if not facts.searched:
        return [f"I could not search for `{intent.name}`: the search did not run."]
    if not hits:
        return [f"I found no definition of `{intent.name}` (generated files left out)."]
    places = _count(len(hits), "place", facts.search_cut)
    return [f"`{intent.name}` is defined in {places}:", "", *_hit_lines(hits, project_dir)]


def _first_paragraph(lines: dict[int, str]) -> str:
    """The first lines of prose in a text file (not a heading, comment, list item or code)."""
    prose: list[str] = []
    for number in sorted(lines)[:40]:
        text = lines[number].strip()
        if prose and not text:
            break
        if text and not text.startswith(("#", "<", "```", "|", "[", "!", "=", "-", "*")):
            prose.append(text)
    return " ".join(prose)


def describe_file(lines: dict[int, str]) -> list[str]:
    """What a file is: its title or first comment, its first paragraph, size and top-level names."""
    numbers = sorted(lines)
    intro = ""
    for number in numbers[:15]:
        text = lines[number]
        match = _HEADING.match(text) or _COMMENT.match(text)
        if match and match.group(1).strip():
            intro = match.group(1).strip().strip('"').strip()
            break
    names = [m.group(1) for n in numbers if (m := _TOP_LEVEL_NAME.match(lines[n]))]
    headings = [m.group(1).strip() for n in numbers if (m := _HEADING.match(lines[n]))]
    out = [f"- {plural(len(numbers), 'line')} read"]
    if intro:
        out.append(f"- Title: _{shorten(intro, 160)}_" if headings else f"- It begins: _{shorten(intro, 160)}_")
    if names:
        out.append(
            f"- Top-level names ({len(names)}): "
            + ", ".join(f"`{name}`" for name in names[:20])
            + (", …" if len(names) > 20 else "")
        )
    else:
        paragraph = _first_paragraph(lines)
        if paragraph:
            out.append(f"- It says: {shorten(paragraph, 300)}")
        if len(headings) > 1:
            out.append(
                f"- Sections ({len(headings)}): " + ", ".join(headings[:12]) + (", …" if len(headings) > 12 else "")
            )
    return out


def _explanation(facts: TurnFacts, project_dir: Path) -> list[str]:
    reads = list(facts.reads.values())
    if facts.glob_paths is None and len(reads) == 1:
        shown, lines = reads[0]
        return [f"## `{display_path(shown, project_dir)}`", "", *describe_file(lines)]
    files = files_seen(facts, project_dir)
    if facts.glob_cut or facts.glob_paths is None:  # a listing cut short would name only the folders it reached
        files = walk_project(project_dir)
    folders = Counter(path.split("/", 1)[0] for path in (display_path(p, project_dir) for p in files) if "/" in path)
    out = ["## This project", "", _files_bullet(facts, project_dir)]
    if folders:
        top = sorted(folders.items(), key=lambda item: (-item[1], item[0]))[:8]
        out.append("- Main folders: " + ", ".join(f"`{name}/` ({plural(count, 'file')})" for name, count in top))
    for shown, lines in reads:
        out += ["", f"`{display_path(shown, project_dir)}`:", "", *describe_file(lines)]
    return out


def answer(intent: Intent, facts: TurnFacts, project_dir: Path) -> str:
    """The end_turn answer to a request that changes nothing."""
    if intent.kind is Kind.LIST:
        lines = _listing(intent, facts, project_dir)
    elif intent.kind is Kind.LOCATE:
        lines = _definitions(intent, facts, project_dir)
    elif intent.kind is Kind.EXPLAIN:
        lines = _explanation(facts, project_dir)
    else:
        lines = _findings(intent, facts, project_dir)
    return "\n".join([*lines, "", FOOTER])
