"""Fixtures for the app's pilot and snapshot tests: a demo project, apps on the fake or offline engine."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from textual.pilot import Pilot
from textual.screen import Screen

from tui.agent.options import AgentOptions

from .fake_engine import FakeSession

S = TypeVar("S", bound=Screen[Any])

for _key in [k for k in os.environ if k.startswith("TEXTUAL_") and not k.startswith("TEXTUAL_SNAPSHOT")] + [
    "NO_COLOR",
    "FORCE_COLOR",
]:
    os.environ.pop(_key, None)

SIZE = (140, 45)


@pytest.fixture(autouse=True)
def _toasts_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every toast an app raises is kept for `notices(app)`, past its time on screen."""
    from textual.notifications import Notification, Notifications

    add = Notifications.add

    def kept(self: Notifications, notification: Notification) -> Notifications:
        self.__dict__.setdefault("raised", []).append(notification)
        return add(self, notification)

    monkeypatch.setattr(Notifications, "add", kept)


@pytest.fixture
def snap_compare(snap_compare: Callable[..., bool], request: pytest.FixtureRequest) -> Callable[..., bool]:
    """The plugin's snap_compare; a mismatch also prints the rows that differ, as text, into the test's output.

    The plugin's HTML report stays on the machine that ran the test: a snapshot that failed once under CI's load
    said only "assert False", and the next one says what was on the screen instead.
    """
    import pickle

    from pytest_textual_snapshot import node_to_report_path

    from .snapshot_diff import screen_diff

    def compare(*args: Any, **kwargs: Any) -> bool:
        if snap_compare(*args, **kwargs):
            return True
        report = node_to_report_path(request.node)
        if report.exists():
            expected, actual = pickle.loads(report.read_bytes())[1:3]
            print(f"the screen against the snapshot:\n{screen_diff(expected, actual)}")
        return False

    return compare


def notices(app: Any) -> list[str]:
    """The text of every toast `app` raised, in order.

    `app._notifications` drops a toast 5 s after it was raised: a test that first waited for something slow
    (a server connecting on a loaded machine) then looked for a toast that was already gone.
    """
    return [str(n.message) for n in app._notifications.__dict__.get("raised", [])]


@pytest.fixture
def demo_project(tmp_path: Path) -> Path:
    """A tiny project with TODOs, like the one a new user would try."""
    project = tmp_path / "demo"
    project.mkdir()
    (project / "app.py").write_text("def main():\n    # TODO: handle empty input\n    return 1\n")
    (project / "util.py").write_text("def helper(x):\n    return x * 2  # TODO: validate x\n")
    (project / "README.md").write_text("# demo\n")
    return project


@pytest.fixture
def offline_options(demo_project: Path, tmp_path: Path) -> Callable[..., AgentOptions]:
    def make(**overrides: object) -> AgentOptions:
        values: dict[str, object] = dict(
            offline=True,
            offline_delay=0,
            interactive=True,
            project_dir=demo_project,
            transcript=False,
            sessions_dir=tmp_path / "sessions",
        )
        values.update(overrides)
        return AgentOptions(**values)  # type: ignore[arg-type]

    return make


@pytest.fixture
def fake_session(offline_options: Callable[..., AgentOptions]) -> FakeSession:
    return FakeSession(offline_options(), fixed_clock=True)


async def wait_until(pilot: Pilot, predicate: Callable[[], object], timeout: float = 60.0) -> None:
    """Let the app run until `predicate()` is true (fails the test after `timeout`: a bound for a loaded machine)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for the app: {app_state(pilot.app)}")
        await pilot.pause(0.02)


def app_state(app: Any) -> str:
    """What a timed-out wait saw: whether the app still runs, its screens, their classes and the focus."""
    screens = " > ".join(f"{type(s).__name__}{sorted(s.classes)}" for s in app.screen_stack)
    focused = type(app.focused).__name__ if app.focused is not None else None
    return f"running={app._running} return_code={app.return_code} screens: {screens}; focused: {focused}"


async def wait_for_dialog(pilot: Pilot, kind: type[S], timeout: float = 60.0) -> S:
    """Wait until the app shows a `kind` dialog that takes keys, and return it.

    A dialog (a VettedScreen) drops the keys that arrive before it is drawn (and in its grace time): the screen
    being pushed is not enough, and on a loaded machine its first paint came after the test's key.
    """
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, kind) and getattr(app.screen, "armed", True), timeout)
    assert isinstance(app.screen, kind)
    return app.screen


async def wait_for_dialog_look(pilot: Pilot, screen: Screen[Any]) -> None:
    """Wait until `screen` is on top, armed and drawn without its `-arming` look: what a snapshot of it shows.

    Armed is not enough: the class goes on a timer set when the screen is first drawn, and a snapshot on a loaded
    machine could come before it ran. One condition at a time, so that a timeout says which one never came; the
    class is only added at mount, so its absence alone proves nothing.
    """
    await wait_until(pilot, lambda: pilot.app.screen is screen)
    await wait_until(pilot, lambda: getattr(screen, "armed", True))
    await wait_until(pilot, lambda: not screen.has_class("-arming"))
    await pilot.pause()  # the styles of the class removed are applied


async def type_prompt(pilot: Pilot, text: str) -> None:
    pilot.app.query_one("#prompt").insert(text)
    await pilot.press("enter")
