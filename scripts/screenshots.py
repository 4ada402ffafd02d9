"""Regenerate screenshots/*.svg from the real app on the offline model: `python scripts/screenshots.py`.

Runs `AgentApp` headless at 140×45 in a throwaway demo project (and throwaway user config,
so your settings and theme do not leak in), drives one turn with Pilot and saves:
  screenshots/permission-dialog.svg   the Edit approval dialog with its diff
  screenshots/main-parallel-tools.svg the finished turn: parallel tools, timeline, stop_reasons
  screenshots/inspector.svg           the inspector (F2) open on the parallel tool_use call
  screenshots/subagents.svg           two Explore subagents run in parallel, nested under their Agent calls
  screenshots/rewind.svg              the rewind list (Esc Esc): every prompt with the files it changed
  screenshots/image-attachment.svg    a pasted image sent (drawn under its chip), a second one waiting as a chip
Then a second session on the fake Messages API (tests/fakeapi, priced as claude-sonnet-5-5, its prompt
cache simulated) whose second turn connects an MCP server named `git`:
  screenshots/cache-break.svg         the named cache break in the conversation and the inspector's Cost view
  screenshots/cost-breakdown.svg      /cost (by kind, part, turn, model, agent) beside one request's breakdown
  screenshots/steer.svg               a steered turn: messages queued while it ran joined the next request
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "screenshots"
SIZE = (140, 45)
#: a fixed folder so the header's project path is the same in every run
DEMO_ROOT = Path(tempfile.gettempdir()) / "agent-tui-demo"
PROMPT = "Find the TODOs in this project and fix the one in a.py"

DEMO_FILES = {
    "README.md": "# demo\n\nA tiny project for agent-tui's screenshots.\n",
    "a.py": 'def greet(name):\n    # TODO: handle an empty name\n    return f"Hello, {name}!"\n',
    "b.py": 'from a import greet\n\nprint(greet("world"))\n',
}


def make_demo_project(root: Path) -> Path:
    """README.md, a.py with a TODO, b.py: enough for the offline model's whole turn."""
    project = root / "demo-project"
    project.mkdir(parents=True)
    for name, text in DEMO_FILES.items():
        (project / name).write_text(text, encoding="utf-8")
    return project


async def wait_for(pilot, predicate: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Bounded polling: the engine runs on its own threads."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"screenshots: timed out after {timeout:.0f} s waiting for {what}")
        await pilot.pause(0.05)


async def capture(tmp: Path, out_dir: Path = OUT) -> list[Path]:
    """Drive one offline turn in the real app and save the three screenshots into `out_dir`."""
    from tui.agent.options import AgentOptions
    from tui.ui.app import AgentApp
    from tui.ui.screens.permission_dialog import PermissionDialog
    from tui.ui.widgets.inspector import Inspector

    options = AgentOptions(
        offline=True,
        offline_delay=0,
        interactive=True,
        project_dir=make_demo_project(DEMO_ROOT),
        transcript=False,
        sessions_dir=tmp / "sessions",
    )
    app = AgentApp(options, prompt=PROMPT, permission_grace_s=0.0)
    saved: list[Path] = []

    def save(name: str) -> None:
        app.save_screenshot(name, str(out_dir))
        saved.append(out_dir / name)

    async with app.run_test(size=SIZE) as pilot:
        dialog = lambda: isinstance(app.screen, PermissionDialog)  # noqa: E731
        await wait_for(pilot, dialog, "the first permission dialog")
        await pilot.pause(0.3)
        save("permission-dialog.svg")
        while True:  # approve every request (Enter = allow once) until the turn ends
            await pilot.press("enter")
            await wait_for(pilot, lambda: dialog() or not app.controller.busy, "the turn to go on")
            if not dialog():
                break
            await pilot.pause(0.2)
        await wait_for(pilot, lambda: not app.session.running, "the turn to finish")
        app.conversation.scroll_home(animate=False)  # the prompt and the parallel batch
        await pilot.pause(0.5)
        save("main-parallel-tools.svg")

        await pilot.press("f3", "f2")  # tools panel away, inspector in: room for the JSON
        inspector = app.query_one(Inspector)
        await wait_for(pilot, lambda: inspector.display and inspector.region.width > 0, "the inspector")
        parallel = next((c for c in inspector.model.calls if c.stop_reason == "tool_use"), None)
        if parallel is not None:
            inspector.select_call(parallel.number)
        inspector.show_view("response")
        await pilot.pause(0.3)
        tree = inspector.query_one("#inspector-response JsonTree")
        for path in ("$.message", "$.message.content"):  # open down to the tool_use blocks
            node = next((n for n in tree._tree_nodes.values() if n.data and n.data.path == path), None)
            if node is not None:
                node.expand()
                await pilot.pause(0.1)
        await pilot.pause(0.4)
        save("inspector.svg")

        await pilot.press("f2", "f3")  # back to the conversation and the tool panel
        await app.submit_prompt("explore this project with subagents")
        await wait_for(pilot, lambda: app.session.running, "the subagents' turn to start")
        await wait_for(pilot, lambda: not app.session.running, "the subagents' turn to finish")
        app.conversation.scroll_end(animate=False)
        await pilot.pause(0.5)
        save("subagents.svg")

        await pilot.press("escape", "escape")  # Esc Esc on the empty idle prompt: the rewind list
        await wait_for(pilot, lambda: type(app.screen).__name__ == "RewindScreen", "the rewind list")
        await pilot.pause(0.4)
        save("rewind.svg")

        await pilot.press("escape")
        await wait_for(pilot, lambda: type(app.screen).__name__ != "RewindScreen", "the rewind list to close")
        await attach_images(app, pilot, tmp)
        save("image-attachment.svg")
    return saved


COST_PROMPTS = ("What do a.py and b.py do?", "Now ask git for the repository status.")


def _cost_script(project: Path):
    """The fake API's replies: two parallel Reads and an answer, then a plain answer."""
    from tests.fakeapi import reply, text, tool_use

    def step(body: dict) -> object:
        prompts = sum(
            1
            for m in body["messages"]
            if m["role"] == "user" and not any(b.get("type") == "tool_result" for b in m["content"])
        )
        last = body["messages"][-1]["content"]
        if prompts == 1 and not any(b.get("type") == "tool_result" for b in last):
            return reply(
                text("Let me read both files."),
                tool_use("Read", {"file_path": str(project / "a.py")}),
                tool_use("Read", {"file_path": str(project / "b.py")}),
                stop_reason="tool_use",
            )
        if prompts == 1:
            return reply(
                "`a.py` defines `greet(name)`, with a TODO about empty names; `b.py` imports it and "
                "prints a greeting for the world."
            )
        return reply(
            "The git server is connected now; its tools joined the tool list, so this request "
            "wrote the prompt cache again from the tools onwards."
        )

    return step


async def capture_costs(tmp: Path, out_dir: Path = OUT) -> list[Path]:
    """A priced session on the fake API: a named cache break and the cost breakdown."""
    from tests.fakeapi import FakeAPI
    from tui.agent.options import AgentOptions
    from tui.mcp.config import McpServerConfig
    from tui.ui.app import AgentApp
    from tui.ui.widgets.inspector import Inspector

    project = DEMO_ROOT / "demo-project"
    (project / "AGENTS.md").write_text(
        "# House rules\n- Keep functions small and named for what they do.\n- Every change comes with a test.\n",
        encoding="utf-8",
    )
    git = McpServerConfig(
        "git", command=sys.executable, args=("-m", "tests.mcp_servers.kitchen", "--slow-start", "1"), cwd=str(REPO)
    )
    saved: list[Path] = []
    with FakeAPI(_cost_script(project)) as api:
        os.environ.update(ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="sk-screenshots")
        options = AgentOptions(
            model="claude-sonnet-5-5",
            interactive=True,
            project_dir=project,
            transcript=False,
            sessions_dir=tmp / "sessions-cost",
            mcp_servers=[git],
            allowed_tools=["mcp__git"],
        )
        app = AgentApp(options, permission_grace_s=0.0)

        def save(name: str) -> None:
            app.save_screenshot(name, str(out_dir))
            saved.append(out_dir / name)

        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.session.mcp is not None and app.session.mcp.started, "MCP to start")
            for prompt in COST_PROMPTS:
                await app.submit_prompt(prompt)
                await wait_for(pilot, lambda: app.session.running, "the turn to start")
                await wait_for(
                    pilot, lambda: not app.session.running and not app.controller.busy, "the turn to finish", timeout=60
                )
            await pilot.press("f3", "f2")
            inspector = app.query_one(Inspector)
            await wait_for(pilot, lambda: inspector.display and inspector.region.width > 0, "the inspector")
            missed = next(c for c in inspector.model.calls if c.cache_miss)
            inspector.select_call(missed.number)
            inspector.show_view("cost")
            app.conversation.scroll_end(animate=False)
            await pilot.pause(0.5)
            save("cache-break.svg")

            await app.submit_prompt("/cost")
            await pilot.pause(0.5)
            inspector.select_call(2)  # the request carrying this turn's tool results
            app.conversation.scroll_end(animate=False)
            await pilot.pause(0.5)
            save("cost-breakdown.svg")
        os.environ.pop("ANTHROPIC_BASE_URL", None)
        os.environ.pop("ANTHROPIC_API_KEY", None)
    return saved


async def capture_steer(tmp: Path, out_dir: Path = OUT) -> list[Path]:
    """A fresh demo turn where two messages are queued while the Edit waits for approval, then steered in."""
    from tui.agent.options import AgentOptions
    from tui.ui.app import AgentApp
    from tui.ui.screens.permission_dialog import PermissionDialog

    shutil.rmtree(DEMO_ROOT, ignore_errors=True)
    options = AgentOptions(
        offline=True,
        offline_delay=0,
        interactive=True,
        project_dir=make_demo_project(DEMO_ROOT),
        transcript=False,
        sessions_dir=tmp / "sessions-steer",
    )
    app = AgentApp(options, prompt=PROMPT, permission_grace_s=0.0)
    async with app.run_test(size=SIZE) as pilot:
        dialog = lambda: isinstance(app.screen, PermissionDialog)  # noqa: E731
        await wait_for(pilot, dialog, "the permission dialog")
        for text in ("Also add a docstring to greet", "and keep the change small"):
            await app.submit_prompt(text)  # typed while the turn runs: queued under the prompt
        await pilot.pause(0.2)
        while True:
            await pilot.press("enter")
            await wait_for(pilot, lambda: dialog() or not app.controller.busy, "the turn to go on")
            if not dialog():
                break
            await pilot.pause(0.2)
        await wait_for(pilot, lambda: not app.session.running, "the steered turn to finish")
        await pilot.press("f3")  # the conversation wide
        from tui.ui.widgets.blocks import MarkerLine

        markers = [m for m in app.conversation.query(MarkerLine) if "steer:" in str(m.render())]
        if markers:  # the marker at the top: the demo's answers to each queued message follow it
            app.conversation.scroll_to_widget(markers[-1], animate=False, top=True)
        else:
            app.conversation.scroll_end(animate=False)
        await pilot.pause(0.5)
        app.save_screenshot("steer.svg", str(out_dir))
    return [out_dir / "steer.svg"]


def make_chart(path: Path, size: tuple[int, int], bars: list[tuple[int, tuple[int, int, int]]]) -> Path:
    """A bar chart on a sky gradient: a picture with shapes and colour for the image screenshot."""
    from PIL import Image, ImageDraw

    width, height = size
    image = Image.linear_gradient("L").resize(size).convert("RGB")
    bands = [band.point(lambda v, k=k: 40 + v * k // 4) for k, band in zip((1, 2, 3), image.split())]
    image = Image.merge("RGB", bands)
    draw = ImageDraw.Draw(image)
    step = width // (len(bars) + 1)
    for index, (share, colour) in enumerate(bars, 1):
        left = index * step - step // 3
        draw.rectangle((left, height - height * share // 100, left + step * 2 // 3, height), fill=colour)
    draw.rectangle((0, 0, width, height // 12), fill=(235, 235, 240))
    image.save(path)
    return path


async def attach_images(app, pilot, tmp: Path) -> None:
    """Drop a screenshot's path on the prompt and send it, then drop a second one and leave it as a chip."""
    from textual import events

    from tui.ui.widgets.attachment_bar import AttachmentChip

    shots = tmp / "Desktop"
    shots.mkdir()
    first = make_chart(
        shots / "build-times.png",
        (2400, 1350),
        [(35, (230, 80, 70)), (80, (250, 190, 60)), (55, (90, 200, 120)), (95, (80, 150, 240))],
    )
    second = make_chart(shots / "after-fix.png", (1200, 900), [(30, (90, 200, 120)), (25, (90, 200, 120))])
    app.session.policy.add_session_rule(f"Read(/{shots}/**)")  # asked once in real use: allowed for the session
    app.post_message(events.Paste(f"'{first}'"))  # as a terminal pastes a dropped file
    await wait_for(pilot, lambda: len(app.query(AttachmentChip)) == 1, "the first image's chip")
    app.prompt_area.insert("why is the last build so slow?")
    await pilot.press("enter")
    await wait_for(pilot, lambda: app.session.running or not app.controller.busy, "the image turn to start")
    await wait_for(pilot, lambda: not app.controller.busy and not app.session.running, "the image turn to finish")
    app.post_message(events.Paste(f"file://{second}"))
    await wait_for(pilot, lambda: len(app.query(AttachmentChip)) == 1, "the second image's chip")
    app.prompt_area.insert("and after the fix?")
    app.conversation.scroll_end(animate=False)
    await pilot.pause(0.6)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="agent-tui-shots-") as tmp_name:
        tmp = Path(tmp_name)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
            os.environ[var] = str(tmp / var.lower())
        for var in ("NO_COLOR", "FORCE_COLOR", "ANTHROPIC_API_KEY"):
            os.environ.pop(var, None)
        sys.path.insert(0, str(REPO))
        OUT.mkdir(exist_ok=True)
        steered = asyncio.run(capture_steer(tmp))  # a demo project of its own
        shutil.rmtree(DEMO_ROOT, ignore_errors=True)
        for path in [*asyncio.run(capture(tmp)), *asyncio.run(capture_costs(tmp)), *steered]:
            print(f"wrote {path.relative_to(REPO)} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
