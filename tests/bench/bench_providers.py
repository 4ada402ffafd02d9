"""Benchmark: the scripted 3-request `-p` session per provider (Bedrock, Vertex AI) against the plain API, same fake."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from tests.fakeapi.demo_project import make_demo_project

from .bench_print import PROMPT, ScenarioServer, check
from .common import (
    PYTHON,
    ChildRun,
    Settings,
    bench_env,
    disable_nagle_in_fake_api,
    median,
    precompile_sources,
    row,
    run_child,
)


def provider_envs(base_url: str) -> dict[str, dict[str, str]]:
    """The environment of each variant: the plain API first (the baseline)."""
    bedrock = {"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "us-east-1", "ANTHROPIC_BEDROCK_BASE_URL": base_url}
    return {
        "anthropic": {"ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "sk-test"},
        "bedrock (SigV4)": {**bedrock, "AWS_ACCESS_KEY_ID": "AKIDBENCH", "AWS_SECRET_ACCESS_KEY": "bench"},
        "bedrock (skip auth)": {**bedrock, "CLAUDE_CODE_SKIP_BEDROCK_AUTH": "1"},
        "vertex (skip auth)": {
            "CLAUDE_CODE_USE_VERTEX": "1",
            "CLOUD_ML_REGION": "us-east5",
            "ANTHROPIC_VERTEX_PROJECT_ID": "bench",
            "ANTHROPIC_VERTEX_BASE_URL": f"{base_url}/v1",
            "CLAUDE_CODE_SKIP_VERTEX_AUTH": "1",
        },
    }


def run_variant(env_extra: dict[str, str], project: Path, home: Path) -> ChildRun:
    env = bench_env(home, **env_extra)
    for name in ("AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "GOOGLE_APPLICATION_CREDENTIALS"):
        if name not in env_extra:
            env.pop(name, None)
    env["AWS_CONFIG_FILE"] = env["AWS_SHARED_CREDENTIALS_FILE"] = str(home / "no-aws")
    return run_child(
        [PYTHON, "-m", "tui.cli.main", "-p", PROMPT, "--permission-mode", "acceptEdits", "--cwd", str(project)],
        env=env,
        cwd=project,
    )


def measure(settings: Settings) -> list[dict[str, Any]]:
    disable_nagle_in_fake_api()
    precompile_sources()
    reps = settings.reps(5, 2)
    root = Path(tempfile.mkdtemp(prefix="bench-providers-"))
    project = root / "project"
    make_demo_project(project)
    server = ScenarioServer(project)
    walls: dict[str, list[float]] = {}
    problems: list[str] = []
    try:
        variants = provider_envs(server.api.base_url)
        for rep in range(reps + 1):  # the first round warms the page cache and is discarded
            for name, env_extra in variants.items():  # interleaved, so drift in machine load hits all alike
                make_demo_project(project)
                server.reset()
                home = root / f"home-{rep}-{len(walls.get(name, []))}-{name.split()[0]}"
                home.mkdir(exist_ok=True)
                result = run_variant(env_extra, project, home)
                problem = check(result, name, server, project)
                if problem:
                    problems.append(problem)
                if rep:
                    walls.setdefault(name, []).append(result.wall_s)
    finally:
        server.api.stop()
        shutil.rmtree(root, ignore_errors=True)
    base = median(walls.get("anthropic", []))
    rows = []
    for name, values in walls.items():
        if name == "anthropic":
            continue
        value = median(values)
        r = row(
            f"-p 3-request session on {name}: wall",
            value,
            base,
            "ratio <= 1.5",
            unit="s",
            met=value <= 1.5 * base,
            baseline_label="the plain API, same fake, same run",
            note="; ".join(sorted({p for p in problems if p.startswith(name)}))[:300],
        )
        r["samples"] = {
            "provider": [round(v, 3) for v in values],
            "anthropic": [round(v, 3) for v in walls["anthropic"]],
        }
        rows.append(r)
    return rows


if __name__ == "__main__":
    print(json.dumps(measure(Settings(quick=True)), indent=1))
