"""`.claude/rules` with `paths:` on the wire: sent once, after the result of the first Read or Edit of a matching file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import FakeAPI, reply, tool_use
from tests.integration.helpers import make_session
from tui.agent.context.map import memory_files


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src/a.py").write_text("print('a')\n")
    (root / "src/b.py").write_text("print('b')\n")
    (root / "README.md").write_text("readme\n")
    (root / "linked.py").symlink_to(root / "src/b.py")
    rules = root / ".claude/rules"
    rules.mkdir(parents=True)
    (rules / "always.md").write_text("Always rule.\n")
    (rules / "py.md").write_text('---\npaths: ["src/**/*.py"]\n---\nPython rule.\n')
    (rules / "docs.md").write_text("---\npaths: docs/**\n---\nDocs rule.\n")
    return root


def _texts(body: dict[str, Any]) -> list[str]:
    last = body["messages"][-1]["content"]
    return [b.get("text", "") for b in last if isinstance(b, dict) and b.get("type") == "text"]


def test_a_matching_read_brings_the_rule_once_after_its_result(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    script = [
        reply(tool_use("Read", {"file_path": "README.md"}), stop_reason="tool_use"),
        reply(tool_use("Read", {"file_path": str(project / "src/a.py")}), stop_reason="tool_use"),
        reply(tool_use("Read", {"file_path": "linked.py"}), stop_reason="tool_use"),
        reply("done"),
    ]
    with FakeAPI(script) as api:
        session, _ = make_session(monkeypatch, api.base_url, project, transcript=False)
        session.run_turn("look")
        bodies = [r.body for r in api.message_requests]
    system = str(bodies[0]["system"])
    assert "Always rule." in system and "Python rule." not in system and "Docs rule." not in system
    assert _texts(bodies[1]) == []  # README.md matches no rule
    second = bodies[2]["messages"][-1]["content"]
    assert second[0]["type"] == "tool_result"
    assert _texts(bodies[2]) == [
        f"<system-reminder>\nContents of {project}/.claude/rules/py.md:\n\nPython rule.\n\n</system-reminder>\n"
    ]
    assert _texts(bodies[3]) == []  # sent once: a second matching file (through a link) brings nothing
    shown = [(m["path"], m["sent"]) for m in memory_files(session)]
    assert shown == [
        (f"{project}/.claude/rules/always.md", "system prompt"),
        (f"{project}/.claude/rules/py.md", "after a tool result (paths: matched)"),
    ]


def test_a_link_to_a_matching_file_and_a_failed_read(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    script = [
        reply(tool_use("Read", {"file_path": "src/missing.py"}), stop_reason="tool_use"),
        reply(tool_use("Read", {"file_path": "linked.py"}), stop_reason="tool_use"),
        reply("done"),
    ]
    with FakeAPI(script) as api:
        session, _ = make_session(monkeypatch, api.base_url, project, transcript=False)
        session.run_turn("look")
        bodies = [r.body for r in api.message_requests]
    assert _texts(bodies[1]) == []  # the read failed: nothing was read, nothing comes
    assert [t.split("\n")[1] for t in _texts(bodies[2])] == [f"Contents of {project}/.claude/rules/py.md:"]


def test_a_subfolders_memory_comes_once_a_file_below_it_is_read(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    sub = project / "pkg"
    (sub / "deep" / ".claude" / "rules").mkdir(parents=True)
    (sub / "CLAUDE.md").write_text("pkg memory\n")
    (sub / "CLAUDE.local.md").write_text("pkg local\n")
    (sub / "deep" / "CLAUDE.md").write_text("deep memory\n")
    (sub / "deep" / ".claude/rules/d.md").write_text("---\npaths: '*.py'\n---\ndeep py rule\n")
    (sub / "deep" / "m.py").write_text("m = 1\n")
    (sub / "n.py").write_text("n = 1\n")
    script = [
        reply(tool_use("Read", {"file_path": "pkg/deep/m.py"}), stop_reason="tool_use"),
        reply(tool_use("Read", {"file_path": "pkg/n.py"}), stop_reason="tool_use"),
        reply("done"),
    ]
    with FakeAPI(script) as api:
        session, _ = make_session(monkeypatch, api.base_url, project, transcript=False)
        session.run_turn("look")
        bodies = [r.body for r in api.message_requests]
    assert "pkg memory" not in str(bodies[0]["system"])
    sent = [t.split("\n")[1] for t in _texts(bodies[1])]
    assert sent == [
        f"Contents of {sub}/CLAUDE.md:",
        f"Contents of {sub}/CLAUDE.local.md:",
        f"Contents of {sub}/deep/CLAUDE.md:",
        f"Contents of {sub}/deep/.claude/rules/d.md:",  # `*.py` relative to the folder holding `.claude/`
    ]
    assert _texts(bodies[2]) == []  # pkg/ was sent already


def test_each_file_sent_fires_instructions_loaded(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    from tui.hooks.config import HookConfig, HookSpec

    seen = project.parent / "seen.jsonl"
    spec = HookSpec("InstructionsLoaded", None, f"cat >> {seen}; echo >> {seen}", 10, project / "s.json", True)
    script = [reply(tool_use("Read", {"file_path": "src/a.py"}), stop_reason="tool_use"), reply("done")]
    with FakeAPI(script) as api:
        session, _ = make_session(
            monkeypatch, api.base_url, project, transcript=False, hooks=HookConfig([spec], trusted=True)
        )
        session.run_turn("look")
    import json

    fired_all = [json.loads(line) for line in seen.read_text().splitlines() if line.strip()]
    assert [f["load_reason"] for f in fired_all] == ["session_start", "path_glob_match"]  # always.md, then py.md
    fired = fired_all[1]
    assert fired["hook_event_name"] == "InstructionsLoaded" and fired["load_reason"] == "path_glob_match"
    assert fired["file_path"] == f"{project}/.claude/rules/py.md" and fired["globs"] == ["src/**/*.py"]
    assert fired["memory_type"] == "Project" and fired["trigger_file_path"] == f"{project}/src/a.py"
