"""Costs of custom commands, skills and the prompt shortcuts, each next to a baseline from the same run.

    .venv/bin/python -m tests.bench.bench_commands

Prints: the catalog scan a session does at start (no folders; 100 commands and 20 skills) against
building the session itself; the first request's bytes with and without skills; expanding a
command; one `@` completion keystroke over 50,000 paths against a 12-item slash completion.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def median_ms(fn: Callable[[], object], repeat: int = 30) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def make_project(root: Path, commands: int, skills: int) -> Path:
    for i in range(commands):
        path = root / ".claude" / "commands" / f"group{i % 5}" / f"cmd{i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\ndescription: command {i}\nargument-hint: <x>\n---\nDo $ARGUMENTS number {i}.\n")
    for i in range(skills):
        path = root / ".claude" / "skills" / f"skill{i}" / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\ndescription: skill {i}\n---\nSkill body {i} for $0.\n")
    return root


def first_request_bytes(project: Path) -> int:
    from tui.agent.api.request import build_request
    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession

    session = AgentSession(AgentOptions(project_dir=project, transcript=False))
    body = build_request(
        model="m",
        max_tokens=1,
        system=session.system_blocks(),
        tools=session.tool_definitions(),
        messages=[{"role": "user", "content": "hi"}],
    )
    return len(json.dumps(body))


def main() -> None:
    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession
    from tui.hooks.commands import load_catalog
    from tui.hooks.expand import expand
    from tui.hooks.mentions import fuzzy_matches

    os.environ["CLAUDE_CONFIG_DIR"] = tempfile.mkdtemp()
    with tempfile.TemporaryDirectory() as empty_dir, tempfile.TemporaryDirectory() as full_dir:
        empty, full = Path(empty_dir), make_project(Path(full_dir), 100, 20)
        session_ms = median_ms(lambda: AgentSession(AgentOptions(project_dir=empty, transcript=False)))
        scan_empty = median_ms(lambda: load_catalog(empty))
        scan_full = median_ms(lambda: load_catalog(full))
        print(f"session construction (baseline)        {session_ms:8.2f} ms")
        print(f"catalog scan, no folders               {scan_empty:8.3f} ms  ({scan_empty / session_ms:.1%} of it)")
        print(f"catalog scan, 100 commands + 20 skills {scan_full:8.2f} ms  ({scan_full / session_ms:.1%} of it)")
        plain, with_skills = first_request_bytes(empty), first_request_bytes(full)
        print(f"first request, no skills              {plain:8d} bytes (no Skill tool: nothing added)")
        print(f"first request, 120 listed             {with_skills:8d} bytes (+{with_skills - plain} for the listing)")
        command = load_catalog(full).get("group0:cmd0")
        assert command is not None
        expand_ms = median_ms(lambda: expand(command, "a b c", project_dir=full, policy=None))
        print(f"expanding a command (no ! lines)       {expand_ms:8.3f} ms")
    paths = [f"src/pkg{i % 300}/module_{i}.py" for i in range(50_000)]
    slash = [f"command{i}" for i in range(120)]
    lowered = [p.lower() for p in paths]  # the completer lowercases the list once
    at_ms = median_ms(lambda: fuzzy_matches("mod12", paths, lowered=lowered), repeat=10)
    slash_ms = median_ms(lambda: fuzzy_matches("com", slash))
    print(
        f"@ completion over 50,000 paths         {at_ms:8.2f} ms per keystroke ({at_ms / slash_ms:.0f}x a / completion)"
    )


if __name__ == "__main__":
    main()
