"""The prompt's vi keys as a pure state machine: motions, operators, counts, insert commands, paste, undo."""

from __future__ import annotations

import re

import pytest

from tui.ui.vi_engine import INSERT, NORMAL, ViEngine


class Prompt:
    """A text and cursor driven through the engine as the prompt drives it; insert mode types like the TextArea."""

    def __init__(self, text: str, cursor: tuple[int, int] = (0, 0), mode: str = NORMAL) -> None:
        self.lines = text.split("\n")
        self.cursor = cursor
        self.engine = ViEngine(mode=mode)

    def keys(self, keys: str) -> Prompt:
        for token in re.findall(r"<esc>|.", keys, re.S):
            if token == "<esc>":
                self.apply(self.engine.escape(self.lines, self.cursor))
            elif self.engine.mode == INSERT:
                row, col = self.cursor
                line = self.lines[row]
                if token == "\n":
                    self.lines[row : row + 1] = [line[:col], line[col:]]
                    self.cursor = (row + 1, 0)
                else:
                    self.lines[row] = line[:col] + token + line[col:]
                    self.cursor = (row, col + 1)
            else:
                self.apply(self.engine.key(token, self.lines, self.cursor))
        return self

    def apply(self, result) -> None:
        if result.lines is not None:
            self.lines = result.lines
        self.cursor = result.cursor

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@pytest.mark.parametrize(
    ("text", "start", "keys", "cursor"),
    [
        ("hello world", (0, 0), "l", (0, 1)),
        ("hello world", (0, 0), "3l", (0, 3)),
        ("hello world", (0, 0), "50l", (0, 10)),  # stops on the last character
        ("hello world", (0, 5), "h", (0, 4)),
        ("hello world", (0, 5), "9h", (0, 0)),
        ("hello world", (0, 0), "w", (0, 6)),
        ("foo.bar baz", (0, 0), "w", (0, 3)),  # punctuation is a word of its own
        ("foo.bar baz", (0, 0), "3w", (0, 8)),
        ("hello world", (0, 0), "e", (0, 4)),
        ("hello world", (0, 4), "e", (0, 10)),
        ("hello world", (0, 8), "b", (0, 6)),
        ("hello world", (0, 6), "b", (0, 0)),
        ("hello world", (0, 6), "0", (0, 0)),
        ("hello world", (0, 0), "$", (0, 10)),
        ("one\ntwo\nthree", (0, 0), "w", (1, 0)),  # words go across lines
        ("one\n\nthree", (0, 0), "w", (1, 0)),  # an empty line is a word
        ("one\ntwo\nthree", (2, 2), "b", (2, 0)),
        ("one\ntwo\nthree", (2, 0), "b", (1, 0)),
        ("one\ntwo\nthree", (0, 2), "j", (1, 2)),
        ("one\ntwo\nthree", (0, 2), "2j", (2, 2)),
        ("one\ntwo\nthree", (2, 4), "k", (1, 2)),  # the column is kept on the line
        ("one\ntwo\nthree", (2, 4), "gg", (0, 0)),
        ("one\n  two\nthree", (0, 0), "G", (2, 0)),
        ("one\n  two\nthree", (0, 0), "2G", (1, 2)),  # a count names the line; first non-blank
        ("one\ntwo\nthree", (2, 0), "2gg", (1, 0)),
        ("last", (0, 0), "w", (0, 3)),  # no next word: the last character
    ],
)
def test_motions(text, start, keys, cursor):
    prompt = Prompt(text, start).keys(keys)
    assert prompt.cursor == cursor and prompt.text == text


@pytest.mark.parametrize(
    ("text", "start", "keys", "after", "cursor"),
    [
        ("hello world", (0, 0), "x", "ello world", (0, 0)),
        ("hello world", (0, 0), "3x", "lo world", (0, 0)),
        ("hello", (0, 4), "x", "hell", (0, 3)),
        ("hello world", (0, 0), "dw", "world", (0, 0)),
        ("hello big world", (0, 0), "d2w", "world", (0, 0)),
        ("hello big world", (0, 0), "2dw", "world", (0, 0)),
        ("hello world", (0, 6), "dw", "hello ", (0, 5)),  # the last word of a line: to its end
        ("one two\nthree", (0, 4), "dw", "one \nthree", (0, 3)),
        ("hello world", (0, 0), "de", " world", (0, 0)),
        ("hello world", (0, 6), "db", "world", (0, 0)),
        ("hello world", (0, 3), "d$", "hel", (0, 2)),
        ("hello world", (0, 3), "D", "hel", (0, 2)),
        ("hello world", (0, 3), "d0", "lo world", (0, 0)),
        ("one\ntwo\nthree", (1, 1), "dd", "one\nthree", (1, 0)),
        ("one\ntwo\nthree", (0, 1), "2dd", "three", (0, 0)),
        ("one\ntwo\nthree", (2, 1), "dd", "one\ntwo", (1, 0)),
        ("only", (0, 2), "dd", "", (0, 0)),
        ("one\ntwo\nthree", (0, 0), "dj", "three", (0, 0)),
        ("one\ntwo\nthree", (1, 0), "dG", "one", (0, 0)),
        ("one\ntwo\nthree", (1, 0), "dgg", "three", (0, 0)),
        ("", (0, 0), "D", "", (0, 0)),
        ("a\n\nb", (1, 0), "D", "a\n\nb", (1, 0)),  # an empty line: nothing to delete, the lines stay
    ],
)
def test_deleting(text, start, keys, after, cursor):
    prompt = Prompt(text, start).keys(keys)
    assert (prompt.text, prompt.cursor, prompt.engine.mode) == (after, cursor, NORMAL)


@pytest.mark.parametrize(
    ("text", "start", "keys", "after"),
    [
        ("hello world", (0, 0), "cwbye<esc>", "bye world"),  # cw stops at the end of the word
        ("hello big world", (0, 0), "c2wsmall<esc>", "small world"),
        ("hello world", (0, 6), "ccnew<esc>", "new"),
        ("one\ntwo", (1, 1), "ccTWO<esc>", "one\nTWO"),
        ("hello world", (0, 5), "C!<esc>", "hello!"),
        ("hello", (0, 0), "ia-<esc>", "a-hello"),
        ("hello", (0, 0), "a-<esc>", "h-ello"),
        ("hello", (0, 1), "A!<esc>", "hello!"),
        ("  hello", (0, 5), "I> <esc>", "  > hello"),
        ("one\nthree", (0, 0), "otwo<esc>", "one\ntwo\nthree"),
        ("two\nthree", (0, 2), "Oone<esc>", "one\ntwo\nthree"),
    ],
)
def test_changing_and_inserting(text, start, keys, after):
    prompt = Prompt(text, start).keys(keys)
    assert prompt.text == after and prompt.engine.mode == NORMAL


def test_escape_steps_back_onto_the_last_character_typed():
    prompt = Prompt("", mode=INSERT).keys("hello<esc>")
    assert prompt.cursor == (0, 4) and prompt.engine.mode == NORMAL


def test_paste_after_the_cursor_and_lines_below():
    assert Prompt("hello world", (0, 0)).keys("dwwP".replace("P", "p")).text == "worldhello "
    assert Prompt("abc", (0, 0)).keys("x2p").text == "baac"
    pasted = Prompt("one\ntwo\nthree", (0, 0)).keys("ddp")
    assert pasted.text == "two\none\nthree" and pasted.cursor == (1, 0)
    assert Prompt("one", (0, 0)).keys("p").text == "one"  # nothing yanked yet


def test_undo_takes_back_one_change_at_a_time_and_a_whole_insert():
    prompt = Prompt("hello world", (0, 0)).keys("x").keys("dw")
    assert prompt.text == "world"
    assert prompt.keys("u").text == "ello world"
    assert prompt.keys("u").text == "hello world" and prompt.cursor == (0, 0)
    prompt.keys("Athere and more<esc>")
    assert prompt.text == "hello worldthere and more"
    assert prompt.keys("u").text == "hello world"
    assert prompt.keys("u").text == "hello world"  # nothing left to undo
    assert Prompt("a b c", (0, 0)).keys("xxx2u").text == " b c"  # three changes, two taken back


def test_an_unknown_key_or_an_unfinished_command_changes_nothing():
    prompt = Prompt("hello", (0, 2)).keys("z").keys("Q")
    assert prompt.text == "hello" and prompt.cursor == (0, 2)
    prompt.keys("d")
    assert prompt.engine.pending == "d"
    prompt.keys("<esc>")  # Esc drops the pending `d`
    assert prompt.engine.pending == "" and prompt.keys("l").cursor == (0, 3) and prompt.text == "hello"
    assert Prompt("hello", (0, 2)).keys("dz").text == "hello"


def test_counts_multiply_and_zero_is_a_motion():
    prompt = Prompt("a b c d e f g h", (0, 0)).keys("2d2w")
    assert prompt.text == "e f g h"
    assert Prompt("x" * 20, (0, 0)).keys("12l").cursor == (0, 12)
    assert Prompt("x" * 20, (0, 10)).keys("0").cursor == (0, 0)
    assert Prompt("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl", (0, 0)).keys("10j").cursor == (10, 0)
