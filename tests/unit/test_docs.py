"""The README is the front door and docs/ the reference: every link leads somewhere, every page can be reached
from the README, and what the docs list (settings, slash commands, screenshots, the benchmark headline) is what
the code and the table hold. `mkdocs build --strict` (in CI) checks the built site; this checks the Markdown
without MkDocs, as GitHub shows it."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))

_FENCE = re.compile(r"^```.*?^```", re.M | re.S)
_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _links(path: Path) -> list[str]:
    """The targets of the Markdown links and images in `path`, code left out."""
    prose = _CODE.sub("", _FENCE.sub("", _text(path)))
    return _LINK.findall(prose)


def _slug(heading: str) -> str:
    """A heading's anchor as MkDocs (Python-Markdown's toc) makes it; GitHub's agrees for these headings."""
    text = re.sub(r"[`*]", "", heading)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _anchors(path: Path) -> set[str]:
    return {_slug(m) for m in re.findall(r"^#{1,6} (.+)$", _FENCE.sub("", _text(path)), re.M)}


def _local_targets(path: Path) -> list[tuple[str, Path, str]]:
    """(link as written, file it leads to, anchor) for every link that is not to the web."""
    found = []
    for link in _links(path):
        if re.match(r"^[a-z]+:", link):
            continue
        file_part, _, anchor = link.partition("#")
        target = (path.parent / file_part).resolve() if file_part else path
        found.append((link, target, anchor))
    return found


def test_every_link_leads_to_a_file_and_heading_that_exist() -> None:
    broken = []
    for page in [README, *PAGES]:
        for link, target, anchor in _local_targets(page):
            if not target.exists():
                broken.append(f"{page.name}: {link} (no such file)")
            elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
                broken.append(f"{page.name}: {link} (no such heading)")
    assert broken == []


def test_every_page_is_in_the_nav_and_reachable_from_the_readme() -> None:
    nav = re.findall(r"^\s*- (?:[^:\n]+: )?(\S+\.md)\s*$", _text(ROOT / "mkdocs.yml"), re.M)
    assert sorted(nav) == sorted(p.name for p in PAGES)
    seen, todo = set(), [README]
    while todo:
        page = todo.pop()
        for _, target, _ in _local_targets(page):
            if target.suffix == ".md" and target.parent == DOCS and target not in seen:
                seen.add(target)
                todo.append(target)
    assert sorted(p.name for p in PAGES if p not in seen) == []
    linked_from_readme = {t for _, t, _ in _local_targets(README)}
    assert DOCS / "index.md" in linked_from_readme


def test_every_screenshot_is_shown() -> None:
    shown = {t for page in [README, *PAGES] for _, t, _ in _local_targets(page) if t.suffix == ".svg"}
    assert sorted(p.name for p in (ROOT / "screenshots").glob("*.svg") if p not in shown) == []
    assert any(t.parent == ROOT / "screenshots" for _, t, _ in _local_targets(README))  # the front door shows one


def test_the_readme_stays_a_front_door() -> None:
    assert len(_text(README).splitlines()) <= 200, "move the detail into a docs/ page and link it"


def test_the_two_commands_are_unchanged_everywhere_they_are_shown() -> None:
    run = "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/agent-tui\n"
    test = 'python3 -m venv .venv && .venv/bin/pip install -e ".[test]" && .venv/bin/python -m pytest\n'
    assert run in _text(README) and test in _text(README)
    assert run in _text(DOCS / "index.md") and test in _text(DOCS / "development.md")
    assert test in _text(ROOT / ".ci" / "run")  # CI runs the README's test command as it stands


def test_every_setting_is_in_the_settings_page() -> None:
    from tui.config.settings_schema import SCALAR_TYPES

    page = _text(DOCS / "settings.md")
    assert sorted(key for key in SCALAR_TYPES if f"`{key}`" not in page) == []


def test_every_built_in_slash_command_is_in_the_app_page() -> None:
    from tui.ui.commands import SLASH_COMMANDS, load_session_commands

    load_session_commands()
    page = _text(DOCS / "keys-and-commands.md")
    assert len(SLASH_COMMANDS) > 20
    assert sorted(name for name in SLASH_COMMANDS if not re.search(rf"`/{re.escape(name)}[ `]", page)) == []


def test_the_readme_benchmark_headline_shows_the_docs_table() -> None:
    from tests.bench.publish import HEADLINE_MARKERS, TABLE_LINK, TABLE_MARKERS, between, headline_figures

    headline = between(_text(README), HEADLINE_MARKERS)
    rows = between(_text(DOCS / "benchmarks.md"), TABLE_MARKERS).splitlines()
    figures = headline_figures(headline)
    assert figures and all(TABLE_LINK in line for line in headline.splitlines()[2:])  # below the table's head
    missing = [
        (name, figure)
        for name, figure in figures
        if not any(row.startswith(f"| {name}") and f"| {figure} |" in row for row in rows)
    ]
    assert missing == []


def test_every_import_rule_the_architecture_page_names_is_a_test() -> None:
    named = set(re.findall(r"`(test_\w+)`", _text(DOCS / "architecture.md")))
    checks = ("test_structure.py", "test_front_face.py")
    defined = {t for f in checks for t in re.findall(r"^def (test_\w+)\(", _text(ROOT / "tests" / "unit" / f), re.M)}
    assert len(named) > 10 and sorted(named - defined) == []
