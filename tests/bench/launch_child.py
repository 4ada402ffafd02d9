"""A child process for the launch benchmark: `python -m tests.bench.launch_child bare|agent [--headless]`.

Prints `READY <sdk-imported>` at the first `on_ready` (the first frame) and exits. `bare` is a
Textual hello-world (Header, VerticalScroll, TextArea, Footer); `agent` is agent-tui's app on the
offline model, built exactly as `agent-tui --offline` builds it.
"""

from __future__ import annotations

import os
import sys


def _ready(app: object) -> None:
    sys.stdout.write(f"READY {'anthropic' in sys.modules}\n")
    sys.stdout.flush()
    if os.environ.get("BENCH_STAY") != "1":
        app.exit()  # type: ignore[attr-defined]


def bare_app() -> object:
    from textual.app import App, ComposeResult
    from textual.containers import VerticalScroll
    from textual.widgets import Footer, Header, Static, TextArea

    class HelloWorld(App[None]):
        TITLE = "hello-world"

        def compose(self) -> ComposeResult:
            yield Header()
            with VerticalScroll():
                yield Static("Hello, world")
            yield TextArea(id="prompt")
            yield Footer()

        def on_ready(self) -> None:
            _ready(self)

    return HelloWorld()


def agent_app() -> object:
    from pathlib import Path

    from tui.ui import gc_tuning

    gc_tuning.pause()  # as tui.cli.main does before it imports the app

    from tui.agent.options import AgentOptions
    from tui.ui import app as app_module
    from tui.ui.app import AgentApp

    class BenchAgentApp(AgentApp):
        CSS_PATH = str(Path(app_module.__file__).parent / str(AgentApp.CSS_PATH))  # resolved beside the real app

        def on_ready(self) -> None:
            super().on_ready()
            _ready(self)

    options = AgentOptions(offline=True, interactive=True)
    if os.environ.get("BENCH_MCP_CONFIG"):  # the MCP benchmark: servers configured as --mcp-config does
        from tui.mcp.options import fill_mcp_options

        fill_mcp_options(options, [os.environ["BENCH_MCP_CONFIG"]], strict=True, trusted=False)
    return BenchAgentApp(options)


def main() -> None:
    which = sys.argv[1]
    app = bare_app() if which == "bare" else agent_app()
    app.run(headless="--headless" in sys.argv)  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
