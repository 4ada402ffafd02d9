"""A benchmark run in the docs: the full table in docs/benchmarks.md, a short table of headline figures in README.md.

Both are written between markers from the same results, so the front door and the reference always show the
same run:

    python -m tests.bench --publish                       # the saved run, tests/bench/results/latest.json
    python -m tests.bench --publish RUN.json SOAK.json    # a full run and the soak (which runs alone), together
    python -m tests.bench --publish RUN.json AGAIN.json   # a suite run again (--only) replaces its rows in RUN

A full run (`python -m tests.bench`, without --only or --quick) publishes itself. The sentences around the
table (what machine, what moved and why) are not generated: read them again after publishing.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.bench.common import REPO, fmt

README = REPO / "README.md"
DOCS = REPO / "docs" / "benchmarks.md"
#: where the README's headline lines link: the full table's heading in docs/benchmarks.md
TABLE_LINK = "docs/benchmarks.md#latest-full-run"
TABLE_MARKERS = ("<!-- bench:table -->", "<!-- /bench:table -->")
HEADLINE_MARKERS = ("<!-- bench:headline -->", "<!-- /bench:headline -->")
#: where a missed goal in the headline links: the hand-written reasons below the full table
WHY_LINK = "docs/benchmarks.md#goals-not-met-and-why"
#: the few figures a user compares, in the order the README shows them: (suite, the row's name or its start).
#: Against Claude Code and the floor first, then the app's own budgets.
HEADLINE_PICKS = (
    ("print", "-p 3-request session: wall"),
    ("print", "-p 3-request session: wall vs the SDK floor"),
    ("print", "-p 3-request session: peak RSS"),
    ("tokens", "first request of a plain prompt: tokens"),
    ("terminal", "bytes written to the terminal during a streamed turn"),
    ("launch", "launch to first frame, tmux"),
    ("launch", "launch to first frame, headless"),
    ("app", "20,000-token reply"),
    ("app", "500-turn session: RSS after scrolling"),
    ("subagents", "8 subagents streaming: UI frame work p95"),
    ("soak", "soak: RSS at the end of the day"),
    ("soak", "soak: UI frame work p95, last tenth of the day"),
)


def goal_met(r: dict[str, Any]) -> bool | None:
    """The verdict for a row whose goal reads "ratio <= N", "≤ N×" or "value < N s"."""
    goal = str(r.get("goal", "")).replace("≤", "<=")
    for subject in ("ratio", "value"):
        figure = r.get(subject)
        if figure is None:
            continue
        for op in ("<=", "<"):
            prefix = f"{subject} {op}"
            if goal.startswith(prefix):
                try:
                    limit = float(goal[len(prefix) :].strip().split()[0])
                except (ValueError, IndexError):
                    return None
                return figure <= limit if op == "<=" else figure < limit
    if goal.startswith("<=") and "×" in goal and r.get("ratio") is not None:
        try:
            return r["ratio"] <= float(goal[2:].split("×")[0])
        except ValueError:
            return None
    return None


def table(rows: list[dict[str, Any]]) -> str:
    """A Markdown table: benchmark, figure, baseline, ratio, goal, met."""
    lines = ["| benchmark | figure | baseline | ratio | goal | met |", "|---|---|---|---|---|---|"]
    for r in rows:
        unit = r.get("unit", "")
        base = fmt(r.get("baseline"), unit) if r.get("baseline") is not None else "—"
        if r.get("baseline_label"):
            base += f" ({r['baseline_label']})"
        ratio = f"{r['ratio']:.2f}×" if r.get("ratio") is not None else "—"
        met = {True: "yes", False: "**no**", None: "—"}[r.get("met")]
        name = r["benchmark"] + (f" — {r['note']}" if r.get("note") else "")
        lines.append(f"| {name} | {fmt(r.get('value'), unit)} | {base} | {ratio} | {r.get('goal', '')} | {met} |")
    return "\n".join(lines)


def pick(rows: list[dict[str, Any]], suite: str, name: str) -> dict[str, Any] | None:
    """The row of `suite` called `name`, or else the first whose name starts with it (names carry notes)."""
    members = [r for r in rows if str(r.get("suite", "")) == suite]
    exact = [r for r in members if r["benchmark"] == name]
    return (exact or [r for r in members if r["benchmark"].startswith(name)] or [None])[0]


def _cell(text: str) -> str:
    """Text fit for a table cell: a `|` would end it, `*` would start emphasis."""
    return text.replace("|", "\\|").replace("*", r"\*")


def headline(rows: list[dict[str, Any]]) -> str:
    """A short table of the figures a user compares (HEADLINE_PICKS): figure, baseline, ratio, goal, verdict.

    A pick the run did not measure says so; a missed goal links to the reasons written under the full table."""
    lines = ["| what you compare | agent-tui | against | ratio | goal | met |", "|---|---|---|---|---|---|"]
    for suite, name in HEADLINE_PICKS:
        r = pick(rows, suite, name)
        if r is None or r.get("value") is None:
            why = _cell(str(r.get("note", ""))) if r else ""
            lines.append(f"| [{_cell(name)}]({TABLE_LINK}) | — | {why or 'not measured in this run'} | — | — | — |")
            continue
        unit = r.get("unit", "")
        base = fmt(r["baseline"], unit) if r.get("baseline") is not None else "—"
        if r.get("baseline_label"):
            base += f" ({r['baseline_label']})"
        ratio = f"{r['ratio']:.2f}×" if r.get("ratio") is not None else "—"
        met = {True: "yes", False: f"**no** ([why]({WHY_LINK}))", None: "—"}[r.get("met")]
        figure = fmt(r.get("value"), unit)
        lines.append(
            f"| [{_cell(r['benchmark'])}]({TABLE_LINK}) | **{figure}** | {_cell(base)} | {ratio} "
            f"| {_cell(str(r.get('goal', '')))} | {met} |"
        )
    return "\n".join(lines)


def between(text: str, markers: tuple[str, str]) -> str:
    """What `text` holds between the two markers (each on a line of its own, once)."""
    start, end = markers
    if text.count(start) != 1 or text.count(end) != 1 or text.index(start) > text.index(end):
        raise ValueError(f"expected {start} … {end} once each, in that order")
    return text[text.index(start) + len(start) : text.index(end)].strip("\n")


def replace_between(text: str, markers: tuple[str, str], body: str) -> str:
    """`text` with what stands between the markers replaced by `body`."""
    between(text, markers)  # the markers are there, once each
    start, end = markers
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{body}\n{end}{tail}"


def filled(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows with a verdict where a saved run left it open (the tools suite's rows carry none)."""
    out = [dict(r) for r in rows]
    for r in out:
        if r.get("met") is None:
            r["met"] = goal_met(r)
    return out


def joined(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Saved runs as one report (the first one's machine and date): a later run's suites replace the rows an
    earlier run has of them, where they stood; a suite only the later run has is added at the end."""
    rows: list[dict[str, Any]] = []
    for run in runs:
        again = {r.get("suite") for r in run["rows"]}
        at = next((i for i, r in enumerate(rows) if r.get("suite") in again), len(rows))
        rows = [*rows[:at], *run["rows"], *(r for r in rows[at:] if r.get("suite") not in again)]
    return {**runs[0], "rows": rows}


def publish(report: dict[str, Any], *, readme: Path | None = None, docs: Path | None = None) -> None:
    """Write the run's table into `docs` and its headline into `readme` (README.md and docs/benchmarks.md unless
    given), each between its markers; nothing is written unless both sets of markers are there."""
    readme, docs = readme or README, docs or DOCS
    rows = filled(report["rows"])
    docs_text = replace_between(docs.read_text(encoding="utf-8"), TABLE_MARKERS, table(rows))
    readme_text = replace_between(readme.read_text(encoding="utf-8"), HEADLINE_MARKERS, headline(rows))
    docs.write_text(docs_text, encoding="utf-8")
    readme.write_text(readme_text, encoding="utf-8")


_ROW = re.compile(r"^\| \[(?P<name>(?:[^\]\\]|\\.)+)\]\([^)]+\) \| \*\*(?P<figure>[^*]+)\*\* \|")


def headline_figures(text: str) -> list[tuple[str, str]]:
    """(benchmark, figure) for every figure the headline table shows, to check each against the full table."""
    found = []
    for line in text.splitlines():
        match = _ROW.match(line)
        if match:
            found.append((re.sub(r"\\(.)", r"\1", match["name"]), match["figure"]))
    return found
