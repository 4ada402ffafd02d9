"""The vi keys of the prompt (`/vim`), as a pure state machine over lines of text (no Textual here).

Normal mode: counts; motions `h j k l w b e 0 $ gg G`; `x`, `D`, `C`, `p`, `u`; operators `d` and
`c` with any motion or doubled (`dd`, `cc`, `d2w`, `2dw`, `cw` changes to the end of the word as in
vi); `i a A I o O` enter insert mode. Insert mode is ordinary typing until Esc. The widget
(widgets/vi_keys.py) feeds it one key at a time and applies the text and cursor it gives back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Pos = tuple[int, int]
INSERT, NORMAL = "insert", "normal"
#: keys that start insert mode, and the motions
_INSERTS = frozenset("iaAIoO")
_MOTIONS = frozenset("hjklwbe0$G")
#: undo steps kept
UNDO_LIMIT = 100


@dataclass
class ViResult:
    """What one key did: the new text (None: unchanged), the cursor and the mode."""

    lines: list[str] | None
    cursor: Pos
    mode: str


def _kind(ch: str) -> int:
    """vi's character classes for word motions: 0 blank, 1 word character, 2 other."""
    if ch.isspace():
        return 0
    return 1 if ch.isalnum() or ch == "_" else 2


@dataclass
class ViEngine:
    """The mode, the keys of a command not yet complete, the unnamed register and the undo steps."""

    mode: str = INSERT
    pending: str = ""
    register: str = ""
    register_lines: bool = False
    undo: list[tuple[list[str], Pos]] = field(default_factory=list)

    # --- the entry point ------------------------------------------------------------------

    def escape(self, lines: list[str], cursor: Pos) -> ViResult:
        """Esc: insert mode ends (the cursor steps back onto the last character typed); a pending command is dropped."""
        self.pending = ""
        row, col = cursor
        if self.mode == INSERT:
            self.mode = NORMAL
            col -= 1
        return ViResult(None, self._clamp(lines, (row, col)), self.mode)

    def key(self, char: str, lines: list[str], cursor: Pos) -> ViResult:
        """One printable key typed in normal mode."""
        self.pending += char
        command = self.pending
        count, rest = self._split_count(command)
        if rest == "" or rest in ("g", "d", "c") or (len(rest) >= 2 and rest[0] in "dc" and self._incomplete(rest[1:])):
            return ViResult(None, cursor, self.mode)  # wait for the rest of the command
        self.pending = ""
        lines = list(lines) or [""]
        cursor = self._clamp(lines, cursor)
        if rest[0] in "dc" and len(rest) > 1:
            return self._operator(rest[0], rest[1:], count, lines, cursor)
        return self._command(rest, count, lines, cursor)

    # --- parsing ----------------------------------------------------------------------------

    @staticmethod
    def _split_count(command: str) -> tuple[int | None, str]:
        digits = ""
        for ch in command:
            if ch.isdigit() and not (ch == "0" and not digits):
                digits += ch
            else:
                break
        return (int(digits) if digits else None), command[len(digits) :]

    @staticmethod
    def _incomplete(motion: str) -> bool:
        """After an operator: a count still growing, or `g` waiting for its second `g`."""
        _count, rest = ViEngine._split_count(motion)
        return rest == "" or rest == "g"

    # --- commands ---------------------------------------------------------------------------

    def _command(self, key: str, count: int | None, lines: list[str], cursor: Pos) -> ViResult:
        n = count or 1
        row, col = cursor
        if key in _MOTIONS or key == "gg":
            target, _ = self._motion(key, count, lines, cursor)
            return ViResult(None, self._clamp(lines, target), self.mode)
        if key in _INSERTS:
            return self._insert(key, lines, cursor)
        if key == "x":
            line = lines[row]
            if not line:
                return ViResult(None, cursor, self.mode)
            self._save(lines, cursor)
            self.register, self.register_lines = line[col : col + n], False
            lines[row] = line[:col] + line[col + n :]
            return ViResult(lines, self._clamp(lines, cursor), self.mode)
        if key in ("D", "C"):
            return self._operator("d" if key == "D" else "c", "$", count, lines, cursor)
        if key == "p":
            return self._paste(n, lines, cursor)
        if key == "u":
            return self._undo(n, lines, cursor)
        return ViResult(None, cursor, self.mode)  # not a command: nothing happens, as in vi

    def _insert(self, key: str, lines: list[str], cursor: Pos) -> ViResult:
        row, col = cursor
        self._save(lines, cursor)
        self.mode = INSERT
        line = lines[row]
        if key == "a":
            return ViResult(None, (row, min(col + 1, len(line))), INSERT)
        if key == "A":
            return ViResult(None, (row, len(line)), INSERT)
        if key == "I":
            return ViResult(None, (row, len(line) - len(line.lstrip())), INSERT)
        if key in "oO":
            at = row + 1 if key == "o" else row
            lines.insert(at, "")
            return ViResult(lines, (at, 0), INSERT)
        return ViResult(None, (row, col), INSERT)

    def _paste(self, n: int, lines: list[str], cursor: Pos) -> ViResult:
        if not self.register:
            return ViResult(None, cursor, self.mode)
        self._save(lines, cursor)
        row, col = cursor
        if self.register_lines:
            new = self.register.split("\n") * n
            lines[row + 1 : row + 1] = new
            return ViResult(lines, (row + 1, len(new[0]) - len(new[0].lstrip())), self.mode)
        text = self.register * n
        line = lines[row]
        at = min(col + 1, len(line)) if line else 0
        merged = line[:at] + text + line[at:]
        parts = merged.split("\n")
        lines[row : row + 1] = parts
        end = at + len(text)
        before = merged[:end]
        end_row = row + before.count("\n")
        end_col = len(before.rsplit("\n", 1)[-1]) - 1
        return ViResult(lines, self._clamp(lines, (end_row, end_col)), self.mode)

    def _undo(self, n: int, lines: list[str], cursor: Pos) -> ViResult:
        if not self.undo:
            return ViResult(None, cursor, self.mode)
        for _ in range(n):
            if not self.undo:
                break
            restored, cursor = self.undo.pop()
        return ViResult(restored, self._clamp(restored, cursor), self.mode)

    def _save(self, lines: list[str], cursor: Pos) -> None:
        self.undo.append((list(lines), cursor))
        del self.undo[:-UNDO_LIMIT]

    # --- operators --------------------------------------------------------------------------

    def _operator(self, op: str, motion: str, count: int | None, lines: list[str], cursor: Pos) -> ViResult:
        inner, rest = self._split_count(motion)
        if inner is not None:
            count = (count or 1) * inner
        n = count or 1
        row, col = cursor
        if rest == op:  # dd, cc: whole lines
            last = min(row + n - 1, len(lines) - 1)
            return self._delete_lines(op, row, last, lines, cursor)
        if rest not in _MOTIONS and rest != "gg":
            return ViResult(None, cursor, self.mode)
        if op == "c" and rest == "w" and lines[row][col : col + 1].strip():
            rest = "e"  # vi: `cw` on a word changes to its end, leaving the blank after it
        target, linewise = self._motion(rest, count, lines, cursor, for_operator=True)
        if linewise:
            first, last = sorted((row, target[0]))
            return self._delete_lines(op, first, last, lines, cursor)
        start, end = sorted((cursor, target))
        if rest in ("e", "$"):  # inclusive motions (never past the end of the line)
            end = (end[0], min(end[1] + 1, len(lines[end[0]])))
        if start == end:
            if op == "c":
                self._save(lines, cursor)
                self.mode = INSERT
                return ViResult(None, cursor, INSERT)
            return ViResult(None, cursor, self.mode)
        self._save(lines, cursor)
        text = "\n".join(lines)
        offset = lambda pos: sum(len(line) + 1 for line in lines[: pos[0]]) + pos[1]  # noqa: E731
        a, b = offset(start), min(offset(end), len(text))
        self.register, self.register_lines = text[a:b], False
        new = (text[:a] + text[b:]).split("\n")
        if op == "c":
            self.mode = INSERT
            return ViResult(new, start, INSERT)
        return ViResult(new, self._clamp(new, start), self.mode)

    def _delete_lines(self, op: str, first: int, last: int, lines: list[str], cursor: Pos) -> ViResult:
        self._save(lines, cursor)
        self.register, self.register_lines = "\n".join(lines[first : last + 1]), True
        if op == "c":
            lines[first : last + 1] = [""]
            self.mode = INSERT
            return ViResult(lines, (first, 0), INSERT)
        del lines[first : last + 1]
        if not lines:
            lines = [""]
        row = min(first, len(lines) - 1)
        line = lines[row]
        return ViResult(lines, (row, len(line) - len(line.lstrip())), self.mode)

    # --- motions ----------------------------------------------------------------------------

    def _motion(
        self, key: str, count: int | None, lines: list[str], cursor: Pos, for_operator: bool = False
    ) -> tuple[Pos, bool]:
        """Where `key` moves the cursor, and whether it is a linewise motion (j k gg G)."""
        n = count or 1
        row, col = cursor
        last_row = len(lines) - 1
        if key == "h":
            return (row, max(col - n, 0)), False
        if key == "l":
            limit = len(lines[row]) if for_operator else max(len(lines[row]) - 1, 0)
            return (row, min(col + n, limit)), False
        if key == "j":
            return (min(row + n, last_row), col), True
        if key == "k":
            return (max(row - n, 0), col), True
        if key == "0":
            return (row, 0), False
        if key == "$":
            target = min(row + n - 1, last_row)
            return (target, max(len(lines[target]) - 1, 0)), False
        if key in ("gg", "G"):
            default = 0 if key == "gg" else last_row
            target = min(max((count - 1) if count else default, 0), last_row)
            line = lines[target]
            return (target, len(line) - len(line.lstrip())), True
        pos = cursor
        for _ in range(n):
            pos = {"w": self._word_forward, "b": self._word_back, "e": self._word_end}[key](lines, pos)
        if key == "w" and for_operator and pos[0] > row:  # `dw` on a line's last word stops at its end
            pos = (row, len(lines[row]))
        return pos, False

    @staticmethod
    def _at(lines: list[str], pos: Pos) -> str:
        line = lines[pos[0]]
        return line[pos[1]] if pos[1] < len(line) else "\n"

    @staticmethod
    def _step(lines: list[str], pos: Pos) -> Pos | None:
        row, col = pos
        if col < len(lines[row]):
            return row, col + 1
        return (row + 1, 0) if row + 1 < len(lines) else None

    @staticmethod
    def _step_back(lines: list[str], pos: Pos) -> Pos | None:
        row, col = pos
        if col > 0:
            return row, col - 1
        return (row - 1, len(lines[row - 1])) if row > 0 else None

    def _word_forward(self, lines: list[str], pos: Pos) -> Pos:
        kind = _kind(self._at(lines, pos))
        nxt: Pos | None = pos
        while nxt is not None and kind and _kind(self._at(lines, nxt)) == kind:  # the rest of this word
            nxt = self._step(lines, nxt)
        while nxt is not None and _kind(self._at(lines, nxt)) == 0:  # blanks, stopping at an empty line
            if nxt != pos and nxt[1] == 0 and not lines[nxt[0]]:
                return nxt
            nxt = self._step(lines, nxt)
        if nxt is None:  # no next word: the end of the text (a motion is clamped onto the last character)
            return len(lines) - 1, len(lines[-1])
        return nxt

    def _word_end(self, lines: list[str], pos: Pos) -> Pos:
        nxt = self._step(lines, pos)
        while nxt is not None and _kind(self._at(lines, nxt)) == 0:
            nxt = self._step(lines, nxt)
        if nxt is None:
            return pos
        kind = _kind(self._at(lines, nxt))
        while True:
            after = self._step(lines, nxt)
            if after is None or _kind(self._at(lines, after)) != kind:
                return nxt
            nxt = after

    def _word_back(self, lines: list[str], pos: Pos) -> Pos:
        prev = self._step_back(lines, pos)
        while prev is not None and _kind(self._at(lines, prev)) == 0:
            if prev[1] == 0 and not lines[prev[0]]:
                return prev  # an empty line is a word
            prev = self._step_back(lines, prev)
        if prev is None:
            return 0, 0
        kind = _kind(self._at(lines, prev))
        while True:
            before = self._step_back(lines, prev)
            if before is None or _kind(self._at(lines, before)) != kind:
                return prev
            prev = before

    # --- the cursor -------------------------------------------------------------------------

    def _clamp(self, lines: list[str], pos: Pos) -> Pos:
        """A cursor on a character of a line that exists (in insert mode it may sit after the last one)."""
        if not lines:
            return 0, 0
        row = min(max(pos[0], 0), len(lines) - 1)
        limit = len(lines[row]) - (0 if self.mode == INSERT else 1)
        return row, min(max(pos[1], 0), max(limit, 0))
