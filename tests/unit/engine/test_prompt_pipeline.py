"""The one prompt pipeline (tui/agent/prompt/pipeline.py): refuse, tell, stop while asking, bash mode, run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.agent import events as ev
from tui.agent.events.permission import PermissionReply
from tui.agent.options import AgentOptions
from tui.agent.prompt.pipeline import ACP, APP, PRINT
from tui.agent.session import AgentSession

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))  # no user commands of the machine's
    project = tmp_path / "proj"
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".claude" / "commands" / "branch.md").write_text("On !`git branch --show-current`.\n")
    (tmp_path / "outside.txt").write_text("not the project's\n")
    return project


def _session(project: Path, interactive: bool = False) -> tuple[AgentSession, list[ev.Event]]:
    options = AgentOptions(project_dir=project, offline=True, transcript=False, interactive=interactive)
    session = AgentSession(options)
    seen: list[ev.Event] = []
    session.bus.subscribe(seen.append, inline=True)
    return session, seen


def test_a_refused_command_is_one_sentence_and_nothing_is_sent(project: Path) -> None:
    session, seen = _session(project)
    outcome = session.run_prompt("/branch", source=PRINT)  # an untrusted folder's `!` line
    assert "not trusted" in outcome.refusal and not outcome.cancelled
    assert not any(isinstance(e, ev.TurnStarted) for e in seen) and session.messages == []
    session.close()


def test_a_mention_left_out_is_a_notice_and_the_prompt_goes_without_it(project: Path) -> None:
    session, seen = _session(project)
    outcome = session.run_prompt(f"look at @{project.parent / 'outside.txt'}", source=PRINT)
    assert outcome.refusal == "" and not outcome.cancelled
    notices = [e for e in seen if isinstance(e, ev.Notice) and "was not attached" in e.text]
    assert len(notices) == 1 and notices[0].level == "warning"
    started = [e for e in seen if isinstance(e, ev.TurnStarted)]
    assert len(started) == 1 and "not the project's" not in started[0].prompt
    assert isinstance(seen[-1], ev.TurnFinished)  # -p's turn ran on the calling thread, to its end
    session.close()


def test_an_interrupt_while_asking_about_a_mention_sends_nothing(project: Path) -> None:
    session, seen = _session(project, interactive=True)

    def interrupt(event: ev.Event) -> None:
        if isinstance(event, ev.PermissionRequested):
            session.cancel()  # Esc (the app) or session/cancel (ACP) while the question is open

    session.bus.subscribe(interrupt, inline=True)
    outcome = session.run_prompt(f"look at @{project.parent / 'outside.txt'}", source=ACP)
    assert outcome.cancelled and outcome.refusal == ""
    assert any(isinstance(e, ev.PermissionRequested) for e in seen)
    assert not any(isinstance(e, ev.TurnStarted) for e in seen)
    session.close()


def test_bash_mode_runs_through_the_dispatcher_and_joins_the_next_request(project: Path, sandbox_off: object) -> None:
    session, seen = _session(project, interactive=True)
    session.bus.subscribe(
        lambda e: isinstance(e, ev.PermissionRequested) and e.reply.set_result(PermissionReply(True)), inline=True
    )
    outcome = session.run_prompt("!echo from-bash", source=APP)
    assert outcome.bash is not None and "from-bash" in outcome.bash[0] and not outcome.bash[1]
    assert [e.name for e in seen if isinstance(e, ev.ToolFinished)] == ["Bash"]
    assert not any(isinstance(e, ev.TurnStarted) for e in seen)  # no turn: the output waits for the next request
    text = session.messages[-1]["content"][-1]["text"]
    assert text.startswith("<bash-input>echo from-bash</bash-input>\n<bash-stdout>from-bash")
    session.close()


def test_bang_is_prompt_text_where_there_is_no_bash_mode(project: Path) -> None:
    session, seen = _session(project)
    outcome = session.run_prompt("!echo hi", source=PRINT)
    assert outcome.bash is None
    assert [e.prompt for e in seen if isinstance(e, ev.TurnStarted)] == ["!echo hi"]
    session.close()


def test_no_front_end_prepares_or_runs_a_prompt_itself() -> None:
    """The front ends hand prompts to `session.run_prompt`; the pipeline's steps are the engine's."""
    front_ends = [*(ROOT / "tui" / "ui").rglob("*.py"), *(ROOT / "tui" / "acp").rglob("*.py")]
    front_ends += [*(ROOT / "tui" / "sdk_control").rglob("*.py"), *ROOT.glob("tui/headless*.py")]
    steps = ("prepare_prompt", "command_turn", "attach_mentions", "run_bash_mode", "add_bash_context")
    found = [f"{p.relative_to(ROOT)}: {s}" for p in front_ends for s in steps if s in p.read_text()]
    assert found == []
