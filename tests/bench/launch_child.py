"""A child process for the launch benchmark: `python -m tests.bench.launch_child bare|agent [--headless]`.

Prints `READY <sdk-imported> <cpu-ms>` at the first `on_ready` (the first frame) and exits; `cpu-ms` is
the process's CPU time (all threads) until then, which a loaded machine disturbs less than the wall time. `bare` is a
Textual hello-world (Header, VerticalScroll, TextArea, Footer); `agent` is agent-tui's app on the
offline model, built exactly as `agent-tui --offline` builds it.
"""

from __future__ import annotations

import os
import sys


def _ready(app: object) -> None:
    import time

    sys.stdout.write(f"READY {'anthropic' in sys.modules} {1000 * time.process_time():.2f}\n")
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

    gc_tuning.pause()  # as tui.cli.main.main does before it imports the app

    from tui.agent.options import AgentOptions
    from tui.ui import app as app_module
    from tui.ui.app import AgentApp

    class BenchAgentApp(AgentApp):
        CSS_PATH = str(Path(app_module.__file__).parent / str(AgentApp.CSS_PATH))  # resolved beside the real app

        def on_ready(self) -> None:  # AgentApp.on_ready runs too (Textual calls handlers along the MRO)
            _ready(self)

    options = AgentOptions(offline=True, interactive=True)
    if os.environ.get("BENCH_CLI_ARGS"):  # the MCP benchmark: options exactly as the CLI builds them from flags
        import json

        from tui.cli.main import options_from_args
        from tui.cli.parser import build_parser

        options = options_from_args(build_parser().parse_args(json.loads(os.environ["BENCH_CLI_ARGS"])))[0]
        options.interactive = True
    return BenchAgentApp(options)


def main() -> None:
    which = sys.argv[1]
    app = bare_app() if which == "bare" else agent_app()
    app.run(headless="--headless" in sys.argv)  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
