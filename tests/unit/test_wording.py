"""Counts and shortened texts read like English: "1 file", and no word cut in half."""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

from tui.agent.offline.conversation import error_reason
from tui.text.wording import plural, shorten

ROOT = Path(__file__).resolve().parents[2]


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


#: plural nouns a count stands before in the app's sentences
_COUNTED_NOUNS = frozenset(
    "files lines tools calls matches messages tokens rules entries skills commands hooks plugins servers sessions "
    "bytes characters chars paths results items tasks agents turns prompts folders tests errors changes steps "
    "questions requests replies blocks images pages marketplaces markers edits processes subagents warnings "
    "problems records events attempts batches checkpoints snapshots versions resources".split()
)
#: numbers formatted by helpers that never give "1" for a real count (`1.2k`), and what is not a count at all
_NOT_BARE_COUNTS = re.compile(
    r"^(?:[A-Z][A-Z0-9_]*|(?:short_tokens|human_tokens|k|sent_bytes)\(.*|event|.*\.join\(.*)$"
)


def _bare_counts(path: Path) -> list[str]:
    """f-strings in `path` that put a value straight before a plural noun ("{n} files"), bypassing plural()."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.JoinedStr):
            continue
        for value, after in itertools.pairwise(node.values):
            if not (isinstance(value, ast.FormattedValue) and isinstance(after, ast.Constant)) or value.conversion > 0:
                continue  # `{name!r} matches …`: a quoted text, not a count
            noun = re.match(r" ([a-z]+)\b(?!\.)", str(after.value))
            expression = ast.unparse(value.value)
            if noun and noun.group(1) in _COUNTED_NOUNS and not _NOT_BARE_COUNTS.match(expression):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {{{expression}}}{after.value[:30]!r}")
    return found


def test_every_count_in_a_sentence_goes_through_plural() -> None:
    """ "1 files", "1 tokens": a count before a plural noun must come from plural() (or a singular/plural test)."""
    problems = [line for path in sorted((ROOT / "tui").rglob("*.py")) for line in _bare_counts(path)]
    assert problems == []
