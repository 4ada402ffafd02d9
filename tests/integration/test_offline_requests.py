"""The offline demo through `agent-tui -p --offline`: it does what it is asked, and its counts are honest."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.integration.test_headless import run_cli

READ_ONLY_PROMPTS = (
    "find the TODOs",
    "list the python files",
    "where is Widget defined",
    "summarise this project",
    "explain src/app.py",
    "look at the code",
)


def _project(root: Path) -> Path:
    """A small project with TODOs in source and in generated, vendored, lock and binary files."""
    (root / "src").mkdir(parents=True)
    (root / "README.md").write_text("# Widgets\n\nA tiny widget library for the demo.\n")
    (root / "src" / "app.py").write_text(
        '"""The app."""\n\n\ndef main():\n    # TODO: parse args\n    pass\n\n\nclass Widget:\n    pass\n'
    )
    (root / "src" / "util.py").write_text("X = 1  # FIXME later\n")
    for rel, text in {
        "screenshots/main.svg": "<svg><!-- TODO --></svg>\n",
        "package-lock.json": '{"TODO": 1}\n',
        "poetry.lock": "# TODO\n",
        "uv.lock": "# TODO\n",
        "node_modules/dep/index.js": "// TODO dep\n",
        "static/app.min.js": "/* TODO */var a;\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "blob.bin").write_bytes(b"\x00\x01TODO\x00" * 10)
    return root


def _hashes(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".agent-tui" not in p.parts
    }


def _tool_names(stdout: str) -> list[str]:
    names = []
    for line in stdout.splitlines():
        event = json.loads(line)
        if event.get("type") == "assistant":
            names += [b["name"] for b in event["message"]["content"] if b.get("type") == "tool_use"]
    return names


@pytest.mark.parametrize("mode", ["acceptEdits", "bypassPermissions"])
def test_asked_to_find_list_or_explain_it_never_edits(tmp_path: Path, mode: str) -> None:
    root = _project(tmp_path / "proj")
    before = _hashes(root)
    for prompt in READ_ONLY_PROMPTS:
        proc = run_cli(["-p", prompt, "--offline", "--permission-mode", mode, "--output-format", "stream-json"], root)
        assert proc.returncode == 0, proc.stderr
        names = _tool_names(proc.stdout)
        assert names and not {"Edit", "Write", "Bash"} & set(names), (prompt, names)
        assert _hashes(root) == before, prompt


def test_generated_files_are_left_out_and_the_count_is_the_same_twice(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    answers = [
        run_cli(["-p", "find the TODOs", "--offline", "--permission-mode", "acceptEdits"], root) for _ in range(2)
    ]
    assert answers[0].returncode == 0, answers[0].stderr
    text = answers[0].stdout
    assert "Found **2 TODO/FIXME lines** in 2 files" in text
    assert "src/app.py:5" in text and "src/util.py:1" in text
    for generated in ("node_modules", "screenshots", "package-lock", "poetry.lock", "uv.lock", "min.js", "blob.bin"):
        assert generated not in text
    assert "Looked at **3 files**" in text  # README.md, app.py, util.py: nothing generated
    assert answers[1].stdout == text


def test_counts_are_complete_or_say_at_least(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "many.py").write_text("".join(f"# TODO item number {n} with some padding text\n" for n in range(3000)))
    for n in range(120):
        (root / f"m{n:03}.py").write_text("x = 1\n")
    todos = run_cli(["-p", "find the TODOs", "--offline"], root)  # the same twice: the test above
    assert todos.returncode == 0, todos.stderr
    assert "Found **3,000 TODO/FIXME lines** in 1 file" in todos.stdout  # counted to the end
    assert "… and 2,980 more lines" in todos.stdout
    listing = run_cli(["-p", "list the python files", "--offline"], root)
    assert "**at least 100 matching files**" in listing.stdout
    fixed = run_cli(["-p", "find the TODOs and fix one", "--offline"], root)  # its content search was cut
    assert "at least " in fixed.stdout and "3,000 TODO" not in fixed.stdout


def test_summarise_and_explain_read_and_answer(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    summary = run_cli(["-p", "summarise this project", "--offline", "--output-format", "stream-json"], root)
    assert _tool_names(summary.stdout) == ["Glob", "Read"]
    result = json.loads(summary.stdout.splitlines()[-1])["result"]
    assert "Widgets" in result and "`src/` (2 files)" in result
    explained = run_cli(["-p", "explain src/app.py", "--offline"], root).stdout
    assert "## `src/app.py`" in explained and "`main`, `Widget`" in explained and "The app." in explained


def test_where_is_names_the_definition(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    out = run_cli(["-p", "where is Widget defined?", "--offline"], root).stdout
    assert "`Widget` is defined in 1 place:" in out and "`src/app.py:9`" in out


def test_asked_to_fix_it_still_edits(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    proc = run_cli(["-p", "find the TODOs and fix one", "--offline", "--permission-mode", "acceptEdits"], root)
    assert proc.returncode == 0, proc.stderr
    assert "NOTE: reviewed by agent-tui offline demo" in (root / "src" / "app.py").read_text()
    assert "// TODO dep" in (root / "node_modules" / "dep" / "index.js").read_text()
