"""Differential: agent-tui loads the commands, agents, skills, memory files and `.claude/rules` Claude Code loads.

Both CLIs run `-p --output-format stream-json --verbose` on the same folders, against the same fake API
answer (Read each of a few files, then stop); compared: the project's commands, agents and skills in the
`system`/`init` line, the memory files in the first request, and the rules and subfolder memory files
sent after each Read. The
folders are built in the shape of public `.claude/` folders (a templates repository's commands in
subfolders, agents with extra keys, skills with metadata; Anthropic's plugins' list-valued `argument-hint`)
and of files YAML reads only leniently. Out of the default run (marker `differential`):
`.venv/bin/python -m pytest -m differential tests/differential/test_loads_differential.py`
(set `AGENT_TUI_CLAUDE` to reuse an install; otherwise the newest `@anthropic-ai/claude-code` is installed).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures import CLAUDE_LOADS

from .harness import agent_python
from .loads_harness import differences, install_newest_claude, run_folder

pytestmark = [pytest.mark.differential, pytest.mark.timeout(1800)]
RESULTS = Path(__file__).parent / "results"

USER_FILES = {
    "CLAUDE.md": "User memory.\n",
    "rules/mine.md": "Mine: answer briefly.\n",
    "rules/typescript.md": '---\npaths: ["**/*.ts"]\n---\nTypeScript rule.\n',
}

#: a templates-repository shape: commands in subfolders, agents with extra keys, frontmatter YAML reads leniently
TEMPLATES = {
    "CLAUDE.md": "# Project\n\nUse the commands below.\n",
    ".claude/CLAUDE.md": "More project memory.\n",
    "CLAUDE.local.md": "Local memory.\n",
    "packages/web/CLAUDE.md": "Web package memory.\n",
    "packages/web/.claude/rules/web.md": "---\npaths: '*.ts'\n---\nWeb TypeScript rule.\n",
    "packages/web/app.ts": "export {}\n",
    "src/index.ts": "export {}\n",
    "src/util.py": "x = 1\n",
    "docs/guide.md": "guide\n",
    ".claude/rules/frontend/react.md": "---\npaths: src/**/*.{ts,tsx}\n---\nReact rule.\n",
    ".claude/rules/python.md": "---\npaths:\n  - '**/*.py'\n---\nPython rule.\n",
    ".claude/rules/docs.md": "---\npaths: docs/*.md\n---\nDocs rule.\n",
    ".claude/rules/general.md": "---\ndescription: no paths here\n---\nGeneral rule.\n",
    ".claude/commands/dev/code-review.md": "---\nallowed-tools: Read, Grep, Glob, Bash(git diff:*)\n"
    "description: Review the code\n---\nReview.\n",
    ".claude/commands/dev/new-feature.md": "---\nargument-hint: [feature-name] [--with-tests]\n---\nBuild $1.\n",
    ".claude/commands/deploy/ship.md": "---\nargument-hint: [--dry-run] | [--force]\nmodel: 4\n---\nShip.\n",
    ".claude/commands/setup/init.md": "---\ndescription: 'an unclosed quote\n---\nInit.\n",
    ".claude/commands/setup/odd.md": "---\n  stray: indented\ndescription: d\n---\nOdd.\n",
    ".claude/commands/plain.md": "No frontmatter at all.\n",
    ".claude/commands/flags.md": "---\ndisable-model-invocation: maybe\ndescription: [a, b]\n---\nFlags.\n",
    ".claude/agents/frontend-developer.md": "---\nname: frontend-developer\ndescription: Builds UI\n"
    "tools: Read, Write, Edit\ncolor: blue\nemoji: 🎨\n---\nYou build UI.\n",
    ".claude/agents/backend/api-designer.md": "---\nname: api-designer\ndescription: >\n  Designs APIs\n"
    "  carefully\ntools: [Read, Grep]\nmodel: sonnet\n---\nYou design APIs.\n",
    ".claude/agents/no-description.md": "---\nname: no-description\n---\nRefused by both.\n",
    ".claude/agents/number-name.md": "---\nname: 42\ndescription: d\n---\nRefused by both.\n",
    ".claude/agents/list-description.md": "---\nname: list-description\ndescription: [a, b]\n---\nRefused.\n",
    ".claude/agents/pipe.md": "---\nname: pipe\ndescription: [a] | [b]\n---\nLoaded by both.\n",
    ".claude/agents/empty-body.md": "---\nname: empty-body\ndescription: no prompt\n---\n",
    ".claude/skills/pdf-tools/SKILL.md": "---\nname: pdf-tools\ndescription: Work with PDFs\nlicense: MIT\n"
    "metadata:\n  version: 1.0\n---\nPDF.\n",
    ".claude/skills/other-name/SKILL.md": "---\nname: shown-name\ndescription: named otherwise\n---\nx\n",
    ".claude/skills/quiet/SKILL.md": "---\nname: quiet\ndescription: d\ndisable-model-invocation: true\n---\nx\n",
    ".claude/skills/bare/SKILL.md": "A skill with no frontmatter.\n",
}


#: a plugin marketplace in the shape of Anthropic's plugin repositories and of a community plugin collection
MARKET = {
    ".claude-plugin/marketplace.json": json.dumps(
        {
            "name": "shape-market",
            "owner": {"name": "fixture"},
            "plugins": [
                {"name": "sdk-dev", "source": "./plugins/sdk-dev", "description": "SDK app helpers"},
                {"name": "review-kit", "source": "./plugins/review-kit", "description": "Reviews"},
                {"name": "deck-kit", "source": "./plugins/deck-kit", "description": "agents: a folder"},
            ],
        }
    ),
    "plugins/sdk-dev/.claude-plugin/plugin.json": json.dumps({"name": "sdk-dev", "version": "1.0.0"}),
    "plugins/sdk-dev/commands/new-sdk-app.md": "---\ndescription: Create an SDK app\n"
    "argument-hint: [project-name]\n---\nCreate $1.\n",
    "plugins/sdk-dev/agents/sdk-verifier-py.md": "---\nname: sdk-verifier-py\ndescription: Checks a Python app\n"
    "tools: [Read, Grep, Bash]\nmodel: sonnet\n---\nCheck it.\n",
    "plugins/review-kit/commands/review/deep.md": "---\nargument-hint: [--aggressive] | [--maximum]\n---\nDeep.\n",
    "plugins/review-kit/commands/quick.md": "---\nallowed-tools: Read, Grep\n---\nQuick.\n",
    "plugins/review-kit/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews\ncolor: red\n---\nR.\n",
    "plugins/review-kit/agents/bad.md": "---\nname: bad\n---\nNo description: refused by both.\n",
    "plugins/review-kit/skills/style-guide/SKILL.md": "---\nname: style-guide\ndescription: The style\n"
    "metadata:\n  owner: x\n---\nStyle.\n",
    "plugins/review-kit/skills/notes/SKILL.md": "Notes without frontmatter.\n",
    "plugins/review-kit/.claude-plugin/plugin.json": json.dumps(
        {"name": "review-kit", "description": "no version", "skills": ["./skills/style-guide"]}
    ),
    "plugins/deck-kit/.claude-plugin/plugin.json": json.dumps({"name": "deck-kit", "agents": ["./agents"]}),
    "plugins/deck-kit/agents/builder.md": "---\nname: builder\ndescription: d\n---\nB.\n",
    "plugins/deck-kit/commands/deck.md": "---\ndescription: d\n---\nD.\n",
}


def _with_plugins(root: Path) -> Path:
    market = _build(root / "market", MARKET)
    settings = {
        "extraKnownMarketplaces": {"shape-market": {"source": {"source": "directory", "path": str(market)}}},
        "enabledPlugins": {
            "sdk-dev@shape-market": True,
            "review-kit@shape-market": True,
            "deck-kit@shape-market": True,
        },
    }
    return _build(root / "plugin-source", {".claude/settings.json": json.dumps(settings), "CLAUDE.md": "x\n"})


def _build(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize(
    "setup, reads",
    [
        ("claude_loads", ["app.py", "tests/app_check.py", "app.py"]),
        ("templates", ["src/util.py", "src/index.ts", "docs/guide.md", "packages/web/app.ts", "src/util.py"]),
        ("plugins", []),
    ],
)
def test_what_loads_matches_claude_code(setup: str, reads: list[str]) -> None:
    if not shutil.which("npm") and not os.environ.get("AGENT_TUI_CLAUDE"):
        pytest.skip("needs npm (or AGENT_TUI_CLAUDE) to get Claude Code")
    root = Path(tempfile.mkdtemp(prefix="differential-loads-"))
    try:
        claude = os.environ.get("AGENT_TUI_CLAUDE") or install_newest_claude(root)
        if setup == "plugins":
            source = _with_plugins(root)
        else:
            source = CLAUDE_LOADS if setup == "claude_loads" else _build(root / "source", TEMPLATES)
        cc = run_folder("claude", claude, source, root, reads, USER_FILES)
        ours = run_folder("agent-tui", agent_python(), source, root, reads, USER_FILES)
        assert cc.commands, f"Claude Code listed no command: {cc.stderr[-500:]}"
        assert ours.commands, f"agent-tui listed no command: {ours.stderr[-500:]}"
        report = "\n".join(
            f"- {what}: Claude Code {sorted(getattr(cc, what))}; agent-tui {sorted(getattr(ours, what))}"
            for what in ("commands", "agents", "skills", "plugins")
        )
        report += (
            f"\n- memory: {cc.memory} / {ours.memory}\n- rules after each read: {cc.rules_after} / {ours.rules_after}\n"
        )
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / f"loads-{setup}.md").write_text(f"# Differential run: what loads ({setup})\n\n{report}")
        problems = differences(cc, ours)
        assert not problems, "\n".join(problems)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _numbered_answers() -> Any:
    """A fake API step answering `answer 1`, `answer 2` … to the loop's requests (side requests get `none`)."""
    from tests.fakeapi import reply

    answers = iter(f"answer {n}" for n in range(1, 100))
    return lambda body: reply(next(answers)) if body.get("tools") else reply("none")


def test_lines_written_at_once_are_turns_of_their_own_in_both() -> None:
    """Two `user` lines on stdin at once: Claude Code answers each in its own turn; so must agent-tui."""
    import subprocess

    from tests.fakeapi import FakeAPI

    from .harness import REPO, cli_env

    if not shutil.which("npm") and not os.environ.get("AGENT_TUI_CLAUDE"):
        pytest.skip("needs npm (or AGENT_TUI_CLAUDE) to get Claude Code")
    root = Path(tempfile.mkdtemp(prefix="differential-turns-"))
    lines = "".join(
        json.dumps({"type": "user", "message": {"role": "user", "content": text}}) + "\n" for text in ("one", "two")
    )
    try:
        claude = os.environ.get("AGENT_TUI_CLAUDE") or install_newest_claude(root)
        seen: dict[str, list[str]] = {}
        for who, exe in (("claude", claude), ("agent-tui", agent_python())):
            project, home = root / f"{who}-p", root / f"{who}-h"
            project.mkdir()
            home.mkdir()
            api = FakeAPI(_numbered_answers())
            env = cli_env(who, project, home, api.base_url, trusted=True)
            argv = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]
            if who == "claude":
                argv = [exe, *argv]
            else:
                env["PYTHONPATH"] = str(REPO)
                argv = [exe, "-m", "tui.cli.main", *argv, "--cwd", str(project)]
            try:
                proc = subprocess.run(
                    argv, env=env, cwd=project, input=lines, capture_output=True, text=True, timeout=300
                )
            finally:
                api.stop()
            out = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
            seen[who] = [str(o.get("result")) for o in out if o.get("type") == "result"]
            seen[who + " inits"] = [str(sum(o.get("subtype") == "init" for o in out if o.get("type") == "system"))]
        assert seen["claude"] == seen["agent-tui"] == ["answer 1", "answer 2"], seen
        assert seen["claude inits"] == seen["agent-tui inits"], seen
    finally:
        shutil.rmtree(root, ignore_errors=True)
