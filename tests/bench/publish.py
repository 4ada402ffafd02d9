"""A benchmark run in the docs: the full table in docs/benchmarks.md, one headline line per area in README.md.

Both are written between markers from the same results, so the front door and the reference always show the
same run:

    python -m tests.bench --publish                 # the saved run, tests/bench/results/latest.json
    python -m tests.bench --publish RUN.json        # another saved run

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
#: what each suite's headline line is called (a suite not named here is called by its short name)
AREAS = {
    "print": "`-p` against Claude Code",
    "launch": "launch to first frame",
    "engine": "the loop",
    "app": "streaming and long sessions",
    "tools": "Grep and Glob",
    "hooks": "hooks",
    "providers": "Bedrock and Vertex",
    "mcp": "MCP",
    "mcp-search": "MCP tool search",
    "subagents": "subagents",
    "tokens": "tokens per request",
    "sandbox": "sandbox",
    "timetravel": "time travel",
    "cost": "cost attribution",
    "images": "images",
    "terminal": "bytes to the terminal",
    "soak": "a long day",
}
#: the rows (by position in their suite) a headline line shows besides the ones that miss their goal
HEADLINE_ROWS = {"print": (0, 1), "launch": (0, 1), "engine": (0, 1, 2), "app": (0, 3, 4)}


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


def _figure(r: dict[str, Any]) -> str:
    """One row as a headline shows it: `name **figure** against baseline (ratio×)`, and a missed goal."""
    unit = r.get("unit", "")
    name = r["benchmark"].replace("*", r"\*")  # `Glob **/*.py` is not emphasis
    text = f"{name} **{fmt(r.get('value'), unit)}**"
    if r.get("baseline") is not None:
        text += f" against {fmt(r['baseline'], unit)}"
    if r.get("ratio") is not None:
        text += f" ({r['ratio']:.2f}×)"
    if r.get("met") is False:
        text += f", goal {r.get('goal', '')}: not met"
    return text


def headline(rows: list[dict[str, Any]]) -> str:
    """One line per suite, in the order the suites ran: its chosen rows, every missed goal, the goals met."""
    suites: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        suites.setdefault(str(r.get("suite", r["benchmark"])), []).append(r)
    lines = []
    for suite, members in suites.items():
        if all(r.get("value") is None for r in members):  # a suite that could not run has no figure to show
            lines.append(f"- [{AREAS.get(suite, suite)}]({TABLE_LINK}): not measured in this run")
            continue
        shown = [r for i, r in enumerate(members) if i in HEADLINE_ROWS.get(suite, (0,)) or r.get("met") is False]
        judged = [r for r in members if r.get("met") is not None]
        met = sum(r["met"] is True for r in judged)
        tally = f"{met} of {len(judged)} goals met" if judged else "no goal"
        lines.append(f"- [{AREAS.get(suite, suite)}]({TABLE_LINK}): {'; '.join(map(_figure, shown))}; {tally}")
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


def publish(report: dict[str, Any], *, readme: Path | None = None, docs: Path | None = None) -> None:
    """Write the run's table into `docs` and its headline into `readme` (README.md and docs/benchmarks.md unless
    given), each between its markers; nothing is written unless both sets of markers are there."""
    readme, docs = readme or README, docs or DOCS
    rows = filled(report["rows"])
    docs_text = replace_between(docs.read_text(encoding="utf-8"), TABLE_MARKERS, table(rows))
    readme_text = replace_between(readme.read_text(encoding="utf-8"), HEADLINE_MARKERS, headline(rows))
    docs.write_text(docs_text, encoding="utf-8")
    readme.write_text(readme_text, encoding="utf-8")


_ROW = re.compile(r"^- \[[^\]]+\]\([^)]+\): (?P<body>.*)$")
_FIGURE = re.compile(r"(?:^|; )(?P<name>(?:[^;*\\]|\\.)+?) \*\*(?P<figure>[^*]+)\*\*")


def headline_figures(text: str) -> list[tuple[str, str]]:
    """(benchmark, figure) for every figure a headline block shows, to check each against the table."""
    found = []
    for line in text.splitlines():
        match = _ROW.match(line)
        if match:
            found += [(m["name"].replace("\\*", "*"), m["figure"]) for m in _FIGURE.finditer(match["body"])]
    return found
