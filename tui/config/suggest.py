"""The rule "always allow" proposes: a command prefix for Bash, a folder for edits.

Saving the literal command string is the classic complaint (it never matches again),
so Bash gets `Bash(npm run test *)`-style prefixes instead.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

from tui.config.bash_parse import SimpleCommand

#: tools whose second word is the real command (`git push`, `cargo test`)
TWO_WORD_TOOLS = frozenset(
    """
    git npm pnpm yarn bun npx cargo go pip pip3 uv poetry make docker kubectl gh dotnet mvn
    gradle bundle rake composer brew apt apt-get conda pytest deno rustup terraform helm
    """.split()
)
#: `npm run test`, `python -m pytest`: three words
RUNNER_SUBCOMMANDS = {
    ("npm", "run"),
    ("pnpm", "run"),
    ("yarn", "run"),
    ("bun", "run"),
    ("uv", "run"),
    ("poetry", "run"),
}
PYTHONS = frozenset({"python", "python3", "py"})


def suggest_bash_rule(tool_name: str, cmd: SimpleCommand | None, command: str) -> str:
    """`Bash(<prefix> *)` for the first part of `command` that is not allowed yet."""
    argv = cmd.argv if cmd is not None else command.split()[:1]
    if not argv:
        return tool_name
    words = [argv[0]]
    rest = argv[1:]
    if argv[0] in PYTHONS and len(rest) >= 2 and rest[0] == "-m":
        words += rest[:2]
    elif argv[0] in TWO_WORD_TOOLS and rest and not rest[0].startswith("-"):
        words.append(rest[0])
        if (argv[0], rest[0]) in RUNNER_SUBCOMMANDS and len(rest) > 1 and not rest[1].startswith("-"):
            words.append(rest[1])
    if any(c in w for w in words for c in "()*\n"):
        return tool_name
    return f"{tool_name}({' '.join(words)} *)"


def suggest_path_rule(tool_name: str, path: Path | None, project_dir: Path, url: str | None = None) -> str:
    """`Edit(/src/**)` for the file's folder in the project, `Edit` for its root, `//abs/**` outside."""
    if url is not None:
        host = urlparse(url).hostname
        return f"{tool_name}(domain:{host})" if host else tool_name
    if path is None:
        return tool_name
    folder = path.parent
    try:
        rel = folder.relative_to(project_dir)
    except ValueError:
        return f"{tool_name}(/{folder.as_posix()}/**)"
    if rel == Path("."):
        return tool_name
    return f"{tool_name}(/{rel.as_posix()}/**)"
