"""The sanitiser: every control character shown visibly, newline and tab kept, clean text untouched."""

from __future__ import annotations

import subprocess
import sys

from tests.attacks import ATTACKS, raw_controls
from tui.text.sanitize import is_safe, one_line, visible


def test_escape_sequences_are_shown_not_interpreted() -> None:
    assert visible("\x1b[2J") == "␛[2J"
    assert visible("\x1b]0;title\x07") == "␛]0;title␇"
    assert visible("\x1bc") == "␛c"
    assert visible("\x1b]52;c;eA==\x07") == "␛]52;c;eA==␇"
    assert visible("a\x00b\x08c\x0bd\x0ce\x1ff") == "a␀b␈c␋d␌e␟f"


def test_del_c1_and_bidi_controls_are_shown_as_escapes() -> None:
    assert visible("a\x7fb") == "a␡b"
    assert visible("\x9b2J") == "\\x9b2J"
    assert visible("\x85\x9d\x9c") == "\\x85\\x9d\\x9c"
    assert visible("ls \u202eexe.sh\u202c") == "ls \\u202eexe.sh\\u202c"
    assert visible("\u2066x\u2069") == "\\u2066x\\u2069"


def test_newlines_and_tabs_stay_crlf_is_a_newline_and_a_lone_cr_is_shown() -> None:
    assert visible("a\n\tb\r\nc") == "a\n\tb\nc"
    assert visible("shown\rHIDDEN") == "shown␍HIDDEN"


def test_undecodable_bytes_kept_by_surrogateescape_show_as_the_byte() -> None:
    name = b"bad\xff\x1b.txt".decode("utf-8", "surrogateescape")
    shown = visible(name)
    assert shown == "bad\\xff␛.txt"
    shown.encode("utf-8")  # a lone surrogate would fail here (and in the terminal driver)
    assert visible("\ud800") == "\\ud800"


def test_clean_text_comes_back_unchanged_and_unicode_is_left_alone() -> None:
    text = "héllo 日本語 **bold** `code` 🙂\n\tindented\n"
    assert visible(text) is text
    assert one_line("plain") == "plain"
    assert is_safe(text) and not is_safe("\x1b")


def test_one_line_keeps_text_on_one_line() -> None:
    assert one_line("rm -rf x\necho\tdone\x1b[2J") == "rm -rf x⏎echo done␛[2J"


def test_the_whole_attack_file_has_no_raw_control_left() -> None:
    assert raw_controls(ATTACKS)  # the fixture really is hostile
    shown = visible(ATTACKS)
    assert raw_controls(shown) == []
    assert shown.count("\n") == ATTACKS.count("\n")
    assert "PWNED-TITLE" in shown and "␛]0;" in shown  # visible, not dropped


def test_five_megabytes_in_one_call_are_handled_whole() -> None:
    text = ("lorem ipsum \x1b[31mred\x1b[0m dolor\n" * 150_000)[:5_000_000]
    shown = visible(text)
    assert raw_controls(shown) == []
    assert shown.count("␛") == text.count("\x1b")


def test_the_module_is_a_stdlib_only_leaf() -> None:
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import tui.text.sanitize\n"
        "new = {m for m in set(sys.modules) - before if m.split('.')[0] in ('tui', 'textual', 'rich')}\n"
        "assert new == {'tui', 'tui.text', 'tui.text.sanitize', 'tui.text.redact'}, new\n"  # redact: the URL credentials, stdlib too
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_the_user_info_of_a_url_is_masked_wherever_text_is_shown() -> None:
    from tui.text.sanitize import is_safe, one_line, visible

    text = "proxy http://agent:pw@10.0.0.1:3128 and https://ghp_token@github.com/x, clone ssh://git@github.com/x"
    shown = "proxy http://***@10.0.0.1:3128 and https://***@github.com/x, clone ssh://git@github.com/x"
    assert visible(text) == shown and one_line(text) == shown and not is_safe(text)
    assert (
        visible("mail me@example.com or see http://example.com/@user")
        == "mail me@example.com or see http://example.com/@user"
    )
