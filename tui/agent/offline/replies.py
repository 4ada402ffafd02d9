"""The words of the offline model: greeting, progress notes, the demo file, the summary."""

from __future__ import annotations

import re
from pathlib import Path

from tui.agent.offline.conversation import error_reason
from tui.agent.offline.facts import TurnFacts, editable_hits
from tui.agent.offline.project import display_path, language_counts, walk_project
from tui.text.wording import plural

FOOTER = "_Answered by the offline demo model; set `ANTHROPIC_API_KEY` to talk to Claude._"

_EXIT_CODE = re.compile(r"(?i)exit(?:ed with)?[ _]?(?:code|status)?\s*[:=]?\s*(-?\d+)")

GREETING = """Hi! I'm the **offline demo model** built into agent-tui: a small deterministic \
script, not Claude. It needs no network and no API key, and it works on the real files of \
this project through the same tools, permission dialogs and stream a real model uses.

Things to try:

- `find the TODOs and fix one` - lists the files, reads and searches in parallel, then \
proposes an edit you approve or deny
- `read README.md` - reads a file you name
- `list the python files`, `where is main defined` - searches and changes nothing
- `summarize this project`, `explain README.md` - reads and summarizes

Set `ANTHROPIC_API_KEY` (and leave out `--offline`) to talk to Claude instead."""


def at_least(cut: bool) -> str:
    """ "at least " before a count taken from a result that was cut short."""
    return "at least " if cut else ""


def files_seen(facts: TurnFacts, project_dir: Path) -> list[str]:
    """The files of the project as the Glob result listed them (or a direct walk)."""
    return facts.glob_paths if facts.glob_paths is not None else walk_project(project_dir)


def languages_line(paths: list[str]) -> str:
    """`.py (12), .md (3)`: the most common extensions of the given paths."""
    counts = language_counts(paths)
    return ", ".join(f"{suffix} ({count})" for suffix, count in counts) or "none"


def findings_sentence(facts: TurnFacts, project_dir: Path) -> str:
    """One sentence with the counts the tool results gave back."""
    files = files_seen(facts, project_dir)
    hits = editable_hits(facts, project_dir)
    hit_files = {display_path(hit.path, project_dir) for hit in hits}
    reads = ", ".join(f"`{display_path(shown, project_dir)}`" for shown, _ in facts.reads.values())
    parts = [f"The project has **{at_least(facts.glob_cut)}{plural(len(files), 'file')}** ({languages_line(files)})"]
    if reads:
        parts.append(f"I read {reads}")
    if facts.searched:
        cut = at_least(facts.search_cut)
        parts.append(
            f"the search found **{cut}{plural(len(hits), 'TODO/FIXME line')}** in {cut}{plural(len(hit_files), 'file')}"
        )
    return "; ".join(parts) + "."


def demo_file_content(facts: TurnFacts, project_dir: Path) -> str:
    """A short Markdown summary of the project, for the Write step."""
    files = files_seen(facts, project_dir)
    reads = [display_path(shown, project_dir) for shown, _ in facts.reads.values()]
    lines = [
        "# agent-tui offline demo",
        "",
        "A summary of this project written by the offline demo model of agent-tui.",
        "",
        f"- Files: {'at least ' if facts.glob_cut else ''}{len(files)}",
        f"- Languages by extension: {languages_line(files)}",
        f"- Read during the demo: {', '.join(reads) or 'nothing'}",
        "- TODO/FIXME lines: none found",
        "",
    ]
    return "\n".join(lines)


def _exit_code(text: str | None, is_error: bool) -> str:
    """The exit code a Bash result reports, or the best honest guess."""
    match = _EXIT_CODE.search(text or "")
    if match:
        return match.group(1)
    return "non-zero" if is_error else "0"


def _change_lines(facts: TurnFacts, project_dir: Path, note: str) -> list[str]:
    """Bullets and a code block about the edit (or write) of this turn."""
    call = facts.change_call
    if call is None:
        return [f"- No file was changed: {note}"]
    path = display_path(str(call.input.get("file_path", "")), project_dir)
    if call.result_text is None:
        outcome = "was not answered"
    elif call.is_error:
        outcome = f"was **not applied**: {error_reason(call.result_text)}"
    else:
        outcome = "was **applied**"
    lines = [f"- The {call.name} of `{path}` {outcome}"]
    applied = call.result_text is not None and not call.is_error
    if call.name == "Edit":
        old = str(call.input.get("old_string", "")).split("\n")
        new = str(call.input.get("new_string", "")).split("\n")
        diff = [f"-{line}" for line in old] + [f"+{line}" for line in new]
        title = "The changed line:" if applied else "The change that was proposed:"
        lines += ["", title, "", "```diff", *diff, "```"]
    else:
        content = str(call.input.get("content", "")).rstrip("\n").split("\n")[:8]
        title = "The new file begins:" if applied else "The file that was proposed begins:"
        lines += ["", title, "", "```markdown", *content, "```"]
    return lines


def summary(facts: TurnFacts, project_dir: Path, note: str = "") -> str:
    """The end_turn answer: a heading, what was done with real numbers, the changed line."""
    files = files_seen(facts, project_dir)
    hits = editable_hits(facts, project_dir)
    hit_files = {display_path(hit.path, project_dir) for hit in hits}
    reads = [display_path(shown, project_dir) for shown, _ in facts.reads.values()]
    lines = ["## Offline demo: what I did", ""]
    lines.append(f"- Looked at **{at_least(facts.glob_cut)}{plural(len(files), 'file')}** ({languages_line(files)})")
    if reads:
        lines.append("- Read " + ", ".join(f"`{path}`" for path in reads))
    if facts.searched:
        cut = at_least(facts.search_cut)
        lines.append(
            f"- Found **{cut}{plural(len(hits), 'TODO/FIXME line')}** in {cut}{plural(len(hit_files), 'file')}"
        )
    command = facts.command_call
    if command is not None:
        shown = command.input.get("command", "")
        if command.is_error and _EXIT_CODE.search(command.result_text or "") is None:
            lines.append(f"- `{shown}` did not run: {error_reason(command.result_text)}")
        else:
            code = _exit_code(command.result_text, command.is_error)
            lines.append(f"- Ran `{shown}`: exit code {code}")
    body = _change_lines(facts, project_dir, note or "there was nothing to change")
    change_bullet, rest = body[0], body[1:]
    lines.insert(len(lines) - (1 if command is not None else 0), change_bullet)
    lines += rest
    lines += ["", FOOTER]
    return "\n".join(lines)


def images_reply(images: list[tuple[str, int]]) -> str:
    """The answer to a prompt with pictures: what arrived, and that this model cannot look at them."""
    listed = ", ".join(f"{media_type}, {chars * 3 // 4 / 1000:,.0f} KB" for media_type, chars in images)
    return (
        f"I received {plural(len(images), 'image')} ({listed}) as image blocks in your message. "
        "The offline demo model cannot look at pictures; with `ANTHROPIC_API_KEY` set, Claude describes "
        "them.\n\n_Answered by the offline demo model; set `ANTHROPIC_API_KEY` to talk to Claude._"
    )
