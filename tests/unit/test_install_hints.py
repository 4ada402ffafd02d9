"""Every install hint names a command that installs this project (agent-tui-loop), never PyPI's other agent-tui."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

from tui import DISTRIBUTION, install_hint

ROOT = Path(__file__).resolve().parents[2]


def test_the_hint_installs_this_project_into_the_running_python() -> None:
    assert install_hint("bedrock") == f"{sys.executable} -m pip install 'agent-tui-loop[bedrock]'"
    assert install_hint() == f"{sys.executable} -m pip install agent-tui-loop"


def test_the_distribution_is_ours_and_acp_and_otlp_http_come_by_default() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == DISTRIBUTION and project["scripts"] == {"agent-tui": "tui.cli.main:entry"}
    needed = {re.split(r"[<>=\[ ]", dep)[0] for dep in project["dependencies"]}
    assert {"agent-client-protocol", "opentelemetry-sdk", "opentelemetry-exporter-otlp-proto-http"} <= needed
    extras = project["optional-dependencies"]
    assert "opentelemetry-exporter-otlp-proto-grpc>=1.45,<2" in extras["otel-grpc"]
    assert "acp" not in extras and "otel" not in extras


def test_no_text_names_the_other_agent_tui_package() -> None:
    stranger = re.compile(r"pip install ['\"]?agent-tui(?:\[|['\"\s])")
    places = [*sorted((ROOT / "tui").rglob("*.py")), *sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
    found = [str(p.relative_to(ROOT)) for p in places if stranger.search(p.read_text(encoding="utf-8"))]
    assert found == []
