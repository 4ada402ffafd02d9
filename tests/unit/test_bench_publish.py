"""The benchmark run in the docs: its full table in docs/benchmarks.md, one headline line per area in README.md,
both from the same results and between their markers (tests/bench/publish.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench import publish as pub
from tests.bench.run import main

ROWS = [
    {
        "suite": "print",
        "benchmark": "-p session: wall",
        "value": 0.5,
        "unit": "s",
        "baseline": 1.0,
        "baseline_label": "Claude Code",
        "ratio": 0.5,
        "goal": "≤ 0.75× Claude Code",
        "met": True,
    },
    {
        "suite": "print",
        "benchmark": "-p session: peak RSS",
        "value": 50.0,
        "unit": "MiB",
        "baseline": 300.0,
        "ratio": 0.17,
        "goal": "≤ 0.5× Claude Code",
        "met": True,
    },
    {
        "suite": "app",
        "benchmark": "keystroke echo p95",
        "note": "36 keys",
        "value": 14.7,
        "unit": "ms",
        "goal": "p95 ≤ 50 ms",
        "met": True,
    },
    {
        "suite": "app",
        "benchmark": "long reply",
        "value": 2.4,
        "unit": "s",
        "baseline": 1.4,
        "ratio": 1.71,
        "goal": "≤ 1.5× SDK alone",
        "met": False,
    },
    {
        "suite": "tools",
        "benchmark": "Glob **/*.py (stdlib, s)",
        "value": 0.23,
        "unit": "s",
        "baseline": 0.16,
        "ratio": 1.42,
        "goal": "ratio <= 1.2",
    },  # a saved tools row carries no verdict
    {"suite": "mcp", "benchmark": "mcp", "value": None, "unit": "", "note": "not available: no module"},
]
REPORT = {"generated": "2026-12-05T10:00:00", "quick": False, "machine": {}, "rows": ROWS}


@pytest.fixture
def pages(tmp_path: Path) -> tuple[Path, Path]:
    readme = tmp_path / "README.md"
    readme.write_text("# x\n\n## Benchmarks\n\n<!-- bench:headline -->\nold\n<!-- /bench:headline -->\n\nhand notes\n")
    docs = tmp_path / "benchmarks.md"
    docs.write_text("# Benchmarks\n\nabove\n\n<!-- bench:table -->\n| old |\n<!-- /bench:table -->\n\nbelow\n")
    return readme, docs


def test_the_table_has_every_row_with_its_verdict() -> None:
    text = pub.table(pub.filled(ROWS))
    lines = text.splitlines()
    assert lines[0] == "| benchmark | figure | baseline | ratio | goal | met |" and len(lines) == 2 + len(ROWS)
    assert "| -p session: wall | 0.50 s | 1.00 s (Claude Code) | 0.50× | ≤ 0.75× Claude Code | yes |" in lines
    assert "| keystroke echo p95 — 36 keys | 14.7 ms | — | — | p95 ≤ 50 ms | yes |" in lines
    assert "| long reply | 2.40 s | 1.40 s | 1.71× | ≤ 1.5× SDK alone | **no** |" in lines
    assert lines[6].endswith("| ratio <= 1.2 | **no** |")  # judged from its goal


def test_the_headline_is_a_short_table_of_the_picked_rows() -> None:
    rows = pub.filled(
        [
            *ROWS,
            {
                "suite": "app",
                "benchmark": "20,000-token reply at full speed: last token on screen",
                "note": "pilot | 120×40",
                "value": 2.4,
                "unit": "s",
                "baseline": 1.6,
                "baseline_label": "SDK alone",
                "ratio": 1.5,
                "goal": "≤ 1.25× SDK alone",
                "met": False,
            },
            {"suite": "print", "benchmark": "-p 3-request session: wall", "value": 0.4, "unit": "s"},
        ]
    )
    lines = pub.headline(rows).splitlines()
    assert lines[0] == "| what you compare | agent-tui | against | ratio | goal | met |"
    assert len(lines) == 2 + len(pub.HEADLINE_PICKS)  # one row a pick, measured or not
    wall = f"| [-p 3-request session: wall]({pub.TABLE_LINK}) | **0.40 s** | — | — |  | — |"
    assert lines[2] == wall  # the exact name wins over a longer one that starts with it
    reply = next(line for line in lines if "20,000-token" in line)
    assert reply == (
        f"| [20,000-token reply at full speed: last token on screen]({pub.TABLE_LINK}) | **2.40 s** "
        f"| 1.60 s (SDK alone) | 1.50× | ≤ 1.25× SDK alone | **no** ([why]({pub.WHY_LINK})) |"
    )
    soak = next(line for line in lines if "soak: RSS" in line)
    assert soak.endswith("| — | not measured in this run | — | — | — |")


def test_a_picked_row_that_could_not_run_says_why() -> None:
    rows = [
        {
            "suite": "terminal",
            "benchmark": "bytes written to the terminal during a streamed turn",
            "value": None,
            "note": "Claude Code could not be installed from npm here",
        }
    ]
    line = next(line for line in pub.headline(rows).splitlines() if "bytes written" in line)
    assert "| — | Claude Code could not be installed from npm here |" in line


def test_the_headline_figures_can_be_read_back() -> None:
    rows = [
        {"suite": "print", "benchmark": "-p 3-request session: wall", "value": 0.5, "unit": "s"},
        {
            "suite": "app",
            "benchmark": "500-turn session: RSS after scrolling — a | b *c*",
            "value": 140.0,
            "unit": "MiB",
        },
    ]
    figures = pub.headline_figures(pub.headline(rows))
    assert figures == [
        ("-p 3-request session: wall", "0.50 s"),
        ("500-turn session: RSS after scrolling — a | b *c*", "140 MiB"),
    ]


def test_publish_writes_both_between_their_markers_and_nothing_else(pages: tuple[Path, Path]) -> None:
    readme, docs = pages
    pub.publish(REPORT, readme=readme, docs=docs)
    assert readme.read_text() == (
        "# x\n\n## Benchmarks\n\n<!-- bench:headline -->\n"
        f"{pub.headline(pub.filled(ROWS))}\n<!-- /bench:headline -->\n\nhand notes\n"
    )
    assert docs.read_text() == (
        "# Benchmarks\n\nabove\n\n<!-- bench:table -->\n"
        f"{pub.table(pub.filled(ROWS))}\n<!-- /bench:table -->\n\nbelow\n"
    )
    before = readme.read_text(), docs.read_text()
    pub.publish(REPORT, readme=readme, docs=docs)
    assert (readme.read_text(), docs.read_text()) == before


def test_a_missing_or_doubled_marker_is_an_error_and_writes_nothing(pages: tuple[Path, Path]) -> None:
    readme, docs = pages
    docs.write_text("# Benchmarks\n\n<!-- bench:table -->\n")
    before = readme.read_text()
    with pytest.raises(ValueError, match="bench:table"):
        pub.publish(REPORT, readme=readme, docs=docs)
    assert readme.read_text() == before
    with pytest.raises(ValueError):
        pub.between("<!-- bench:table -->\n<!-- bench:table -->\n<!-- /bench:table -->", pub.TABLE_MARKERS)


def test_publish_from_the_command_line_reads_a_saved_run(
    pages: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    readme, docs = pages
    saved = tmp_path / "run.json"
    saved.write_text(json.dumps(REPORT))
    monkeypatch.setattr(pub, "README", readme)
    monkeypatch.setattr(pub, "DOCS", docs)
    soak = tmp_path / "soak.json"
    soak.write_text(
        json.dumps(
            {
                **REPORT,
                "rows": [
                    {
                        "suite": "soak",
                        "benchmark": "soak: RSS at the end of the day",
                        "value": 200.0,
                        "unit": "MiB",
                        "goal": "≤ 1.10× after warm-up",
                    }
                ],
            }
        )
    )
    assert main(["--publish", str(saved), str(soak)]) == 0
    assert (
        "| long reply | 2.40 s |" in docs.read_text()
        and "| soak: RSS at the end of the day | 200 MiB |" in docs.read_text()
    )
    assert "**200 MiB**" in readme.read_text()


def test_the_repository_has_each_marker_once() -> None:
    root = Path(pub.__file__).resolve().parents[2]
    assert pub.between((root / "README.md").read_text(encoding="utf-8"), pub.HEADLINE_MARKERS)
    assert pub.between((root / "docs" / "benchmarks.md").read_text(encoding="utf-8"), pub.TABLE_MARKERS)


def test_a_suite_run_again_replaces_its_rows_where_they_stood() -> None:
    def run(*rows: tuple[str, str]) -> dict[str, object]:
        return {"generated": "x", "rows": [{"suite": suite, "benchmark": name} for suite, name in rows]}

    full = run(("print", "wall"), ("app", "reply"), ("app", "rss"), ("tools", "grep"))
    again = run(("app", "reply 2"), ("app", "rss 2"))
    soak = run(("soak", "day"))
    rows = pub.joined([full, again, soak])["rows"]
    assert [r["benchmark"] for r in rows] == ["wall", "reply 2", "rss 2", "grep", "day"]
    assert pub.joined([full])["rows"] == full["rows"]
