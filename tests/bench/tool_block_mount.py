"""What mounting a folded Agent tool block costs the UI thread: `python -m tests.bench.tool_block_mount`.

A 140×45 pilot mounts eight Agent blocks at the bottom of a turn, one at a time, three rounds (the first
is a warm-up); for each: UI-thread CPU of the awaited mount, and of the mount until the next frame is drawn
(that one includes the pilot's own pause). Not a benchmark row: a probe for the mount the 8-subagent frame
row pays eight times in its busiest frames (docs: frames within budget, issue 38).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time

from .common import median, scratch_project


async def _mount_costs(project: os.PathLike[str]) -> list[tuple[float, float]]:
    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession
    from tui.ui.app import AgentApp
    from tui.ui.widgets.blocks import ToolCallBlock
    from tui.ui.widgets.conversation_model import ToolRecord

    os.environ["ANTHROPIC_API_KEY"] = "sk-test"
    options = AgentOptions(project_dir=project, interactive=True, transcript=False)  # type: ignore[arg-type]
    session = AgentSession(options)
    session.prepare()
    app = AgentApp(options, session=session)
    costs: list[tuple[float, float]] = []
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        await app.controller.add_marker("start", "stop")
        await pilot.pause()
        view = app.controller.view
        assert view is not None
        for round_ in range(3):
            for i in range(8):
                tool = ToolRecord(f"t{round_}{i}", "Agent", label=f"Agent(job {i})", agent_path=f"main/agent-{i}")
                start = time.thread_time()
                await view.mount(ToolCallBlock(tool))
                app.conversation.content_added()
                mounted = time.thread_time()
                await pilot.pause()
                if round_:
                    costs.append(((mounted - start) * 1000, (time.thread_time() - start) * 1000))
    session.close()
    return costs


def main() -> None:
    with scratch_project("bench-mount-") as project, tempfile.TemporaryDirectory() as home:
        os.environ["HOME"] = home
        costs = asyncio.run(_mount_costs(project))
    mounts, frames = [m for m, _ in costs], [f for _, f in costs]
    print(f"{len(costs)} Agent blocks: mount {median(mounts):.2f} ms, mount to the next frame {median(frames):.2f} ms")


if __name__ == "__main__":
    main()
