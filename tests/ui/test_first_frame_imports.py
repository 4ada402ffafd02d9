"""What the app imports and builds before its first frame: only what that frame draws (issue 38, launch to first frame).

Each module named here was imported before the first frame once and is now imported where it is first needed,
and each piece of work named was done at import; the test fails if an eager import or that work comes back.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: not needed by the first frame (an empty conversation, the prompt, the tool panel, the status line)
LATER = (
    "anthropic",
    "textual.widgets._collapsible",  # the tool and thinking blocks
    "tui.ui.widgets.blocks",
    "tui.ui.widgets.conversation_model",
    "tui.ui.widgets.steady",
    "tui.ui.commands",  # slash commands: registered after the first frame
    "tui.ui.prompt_shortcuts",
    "tui.ui.trust",
    "tui.ui.warmup",
    "tui.ui.notice_hold",  # toasts held under a dialog: built on the first toast
    "tui.ui.screens.vetted_screen",
    "tui.ui.screens.too_small",  # only when the terminal is too small
    "tui.ui.prompt_history",  # the saved prompts: read after the first frame
)


#: ...nor by the options `agent-tui --offline` builds before its app, with no settings file and no proxy set
LATER_FROM_THE_CLI = (
    "urllib.request",  # the proxy settings: only when a `*_proxy` variable is set
    "http.client",
    "tomllib",  # settings and rule files: only when one exists
    "configparser",  # the AWS profile's region: Bedrock only
)


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }


def test_the_cli_s_options_import_nothing_the_first_frame_does_not_need(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from tui.cli.main import options_from_args\n"
        "from tui.cli.parser import build_parser\n"
        "from tui.ui.app import AgentApp\n"
        "options = options_from_args(build_parser().parse_args(['--offline']))[0]\n"
        "options.interactive = True\n"
        "class First(AgentApp):\n"
        "    def on_ready(self):\n"
        f"        print(sorted(m for m in {LATER + LATER_FROM_THE_CLI!r} if m in sys.modules))\n"
        "        self.exit()\n"
        "First(options).run(headless=True)\n"
    )
    project = tmp_path / "project"
    project.mkdir()
    for _ in range(2):  # the first start parses the shipped themes (TOML) and caches them
        run = subprocess.run(
            [sys.executable, "-c", code], cwd=project, env=_env(tmp_path), capture_output=True, text=True, timeout=120
        )
        assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "[]", run.stdout


def test_the_first_frame_imports_nothing_it_does_not_draw(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from tui.agent.options import AgentOptions\n"
        "from tui.ui.app import AgentApp\n"
        "class First(AgentApp):\n"
        "    def on_ready(self):\n"
        f"        print(sorted(m for m in {LATER!r} if m in sys.modules))\n"
        "        from tui.text import redact, sanitize\n"
        "        print(redact._patterns.cache_info().currsize + sanitize._unsafe.cache_info().currsize)\n"
        "        self.exit()\n"
        "First(AgentOptions(offline=True, interactive=True, project_dir=sys.argv[1])).run(headless=True)\n"
    )
    project = tmp_path / "project"
    project.mkdir()
    run = subprocess.run(
        [sys.executable, "-c", code, str(project)],
        cwd=ROOT,
        env=_env(tmp_path),
        capture_output=True,
        timeout=120,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    modules, compiled = run.stdout.strip().splitlines()[-2:]
    assert modules == "[]", run.stdout
    assert compiled == "0", "the credential or `visible` patterns were compiled before the first frame (~1 ms)"
