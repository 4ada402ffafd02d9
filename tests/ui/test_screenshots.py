"""The screenshot script's demo project and the committed screenshots it produced.

Regenerating them drives a whole offline turn (~15 s), so the suite checks the outputs
instead: each SVG must show what the README and docs/ say it shows.
"""

from __future__ import annotations

import html
import importlib.util
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "screenshots.py"


def load_script():
    spec = importlib.util.spec_from_file_location("screenshots_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def svg_text(path: Path) -> str:
    """The visible text of a Textual SVG screenshot, spaces restored."""
    pieces = re.findall(r">([^<>]*)</text>", path.read_text(encoding="utf-8"))
    return html.unescape("".join(pieces)).replace("\xa0", " ")


def test_demo_project_has_what_the_offline_turn_needs(tmp_path: Path) -> None:
    script = load_script()
    project = script.make_demo_project(tmp_path)
    assert sorted(p.name for p in project.iterdir()) == ["README.md", "a.py", "b.py"]
    assert "TODO" in (project / "a.py").read_text()
    assert script.SIZE == (140, 45)


@pytest.mark.parametrize(
    ("name", "phrases"),
    [
        ("permission-dialog.svg", ["Allow Edit a.py", "TODO: handle an empty name", "Allow once", "Deny"]),
        ("main-parallel-tools.svg", ["3 tools, 3 in parallel", "Tool activity", "Find the TODOs in this project"]),
        ("inspector.svg", ["API calls", "stop_reason", "tool_use", "Response"]),
        ("subagents.svg", ["Agent Explore: Find TODO markers", "2 tools, 2 in parallel", "explore-1"]),
        ("rewind.svg", ["Rewind", "a.py +1 -1", "explore this project with subagents"]),
        (
            "cache-break.svg",
            [
                "cache miss: tools changed (+9 mcp__git tools",
                "tokens written again",
                "Cost",
                "cache write",
                "tool results",
            ],
        ),
        (
            "cost-breakdown.svg",
            [
                "session: $",
                "by kind",
                "by part",
                "tool results",
                "by turn",
                "by model",
                "by agent",
                "cache misses",
                "cache read",
            ],
        ),
        ("steer.svg", ["steer: 2 messages added to request #", "Also add a docstring to greet"]),
        (
            "image-attachment.svg",
            [
                "[image 1: build-times.png 1568×882",
                "(from 2400×1350)]",
                "[image 1: after-fix.png 1200×900 ✕]",
                "I received 1 image (image/jpeg",
            ],
        ),
    ],
)
def test_committed_screenshot_shows_its_subject(name: str, phrases: list[str]) -> None:
    path = REPO / "screenshots" / name
    if not path.exists():
        pytest.skip(f"{name} not generated yet: run python scripts/screenshots.py")
    text = svg_text(path)
    for phrase in phrases:
        assert phrase in text, f"{name} lacks {phrase!r}"


def test_the_cost_screenshots_are_committed_and_in_the_docs() -> None:
    page = (REPO / "docs" / "cost-and-context.md").read_text(encoding="utf-8")
    for name in ("cache-break.svg", "cost-breakdown.svg"):
        assert (REPO / "screenshots" / name).exists(), f"run python scripts/screenshots.py to make {name}"
        assert f"(../screenshots/{name})" in page
