"""Counts and shortened texts read like English: "1 file", and no word cut in half."""

from __future__ import annotations

from tui.agent.offline.conversation import error_reason
from tui.wording import plural, shorten


def test_plural_is_singular_for_one_only() -> None:
    assert [plural(n, "file") for n in (0, 1, 2)] == ["0 files", "1 file", "2 files"]
    assert plural(1, "match") == "1 match" and plural(3, "match") == "3 matches"
    assert plural(1_204, "line") == "1,204 lines" and plural(1, "more line") == "1 more line"


def test_shorten_cuts_at_a_word_boundary() -> None:
    reason = "Permission denied: Bash is denied by the rule `Bash(rm *)` in the project settings of this folder."
    cut = shorten(reason, 50)
    assert len(cut) <= 50 and cut.endswith("…")
    assert reason.startswith(cut[:-1]) and reason[len(cut) - 1] == " "
    assert shorten("short", 50) == "short"
    assert shorten("x" * 80, 20) == "x" * 19 + "…"  # one long word: nothing else fits


def test_a_long_denial_reason_in_the_offline_summary_ends_on_a_whole_word() -> None:
    words = " ".join(f"word{n}" for n in range(60))
    shown = error_reason(f"<tool_use_error>Permission denied: {words}</tool_use_error>")
    assert len(shown) <= 160 and shown.endswith("…")
    assert shown[:-1].split()[-1] in words.split()


def test_a_long_bash_command_label_ends_on_a_whole_word(tmp_path) -> None:
    from tui.tools.base import ToolContext
    from tui.tools.bash import BashTool

    command = "git log --oneline --decorate --graph --all --date-order --author=someone --grep=something-long"
    label = BashTool().label({"command": command}, ToolContext(project_dir=tmp_path, state=None))  # type: ignore[arg-type]
    assert label.endswith("…") and command.startswith(label.removeprefix("Bash: ")[:-1])
    assert command[len(label.removeprefix("Bash: ")) - 1] == " "
