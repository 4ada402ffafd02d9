"""/init: draft a memory file from a look at the project, and write it through the normal Write permission.

The draft is built here, without the model (so it works offline and costs nothing): the
README's opening, the languages by file count, the manifest files and the build and test
commands they imply, the top-level folders. It goes to `AGENTS.md`, or to `CLAUDE.md` where
that is the project's file; an existing file keeps its text and gets the section appended.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from tui.config.bounded_read import load_json_file
from tui.config.special_files import read_regular_bytes
from tui.text.wording import plural

from .memory_shortcut import project_memory_file
from .mentions import project_files

SECTION = "## Project overview (written by /init)"
LANGUAGES = {
    ".py": "Python",
    ".ts": "TypeScript",
    ".tsx": "TypeScript",
    ".js": "JavaScript",
    ".jsx": "JavaScript",
    ".go": "Go",
    ".rs": "Rust",
    ".java": "Java",
    ".kt": "Kotlin",
    ".rb": "Ruby",
    ".c": "C",
    ".h": "C",
    ".cpp": "C++",
    ".cc": "C++",
    ".cs": "C#",
    ".php": "PHP",
    ".swift": "Swift",
    ".sh": "Shell",
}


def _text(path: Path, limit: int = 64_000) -> str:
    try:
        return read_regular_bytes(path, limit).decode("utf-8", "replace")
    except OSError:
        return ""


def _readme_summary(project_dir: Path) -> str:
    for name in ("README.md", "README.rst", "README.txt", "README"):
        text = _text(project_dir / name)
        if not text:
            continue
        paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
        prose = [p for p in paragraphs if not p.startswith(("#", "!", "[!", "<", "```", "|"))]
        if prose:
            return " ".join(prose[0].split())[:600]
    return ""


def _commands(project_dir: Path, files: set[str]) -> list[str]:
    found: list[str] = []
    if "package.json" in files:
        try:
            scripts = load_json_file(project_dir / "package.json").get("scripts") or {}
        except (OSError, ValueError, AttributeError):
            scripts = {}
        found += [f"`npm run {name}`" for name in ("build", "test", "lint") if name in scripts]
    if "pyproject.toml" in files or "setup.py" in files:
        found.append(
            "`python -m pytest`"
            if any(f.startswith("tests/") or "/test_" in f for f in files)
            else "`pip install -e .`"
        )
    if "Makefile" in files:
        targets = re.findall(r"^([A-Za-z][\w-]*):", _text(project_dir / "Makefile"), re.M)
        found += [f"`make {t}`" for t in targets if t in ("build", "test", "lint", "check")]
    if "Cargo.toml" in files:
        found += ["`cargo build`", "`cargo test`"]
    if "go.mod" in files:
        found += ["`go build ./...`", "`go test ./...`"]
    return found


def draft_section(project_dir: Path) -> str:
    """The `/init` section for `project_dir`."""
    listed = project_files(project_dir)
    files = {f for f in listed if not f.endswith("/")}
    top_folders = sorted({f.split("/", 1)[0] + "/" for f in files if "/" in f and not f.startswith(".")})
    languages = Counter(LANGUAGES[s] for f in files if (s := Path(f).suffix) in LANGUAGES)
    lines = [SECTION, ""]
    if summary := _readme_summary(project_dir):
        lines += [summary, ""]
    if languages:
        lines.append(
            "- Languages: " + ", ".join(f"{name} ({plural(count, 'file')})" for name, count in languages.most_common(4))
        )
    manifests = [
        m for m in ("pyproject.toml", "setup.py", "package.json", "Cargo.toml", "go.mod", "Makefile") if m in files
    ]
    if manifests:
        lines.append("- Manifests: " + ", ".join(f"`{m}`" for m in manifests))
    if commands := _commands(project_dir, files):
        lines.append("- Build and test: " + ", ".join(commands))
    if top_folders:
        lines.append("- Top-level folders: " + ", ".join(f"`{f}`" for f in top_folders[:15]))
    lines.append(f"- {plural(len(files), 'file')} tracked (ignored files left out)")
    return "\n".join(lines) + "\n"


def init_plan(project_dir: Path) -> tuple[Path, str, bool]:
    """(file, its full new content, whether it exists) for /init; the content keeps an existing file's text."""
    target = project_memory_file(project_dir)
    section = draft_section(project_dir)
    if not target.exists():
        return target, f"# {project_dir.name}\n\n{section}", False
    current = _text(target, 1_000_000)
    if SECTION in current:  # a second /init replaces its own section, nothing else
        before, rest = current.split(SECTION, 1)
        after = rest[m.start() :] if (m := re.search(r"^## ", rest, re.M)) else ""
        parts = [p.strip("\n") for p in (before, section, after) if p.strip()]
        return target, "\n\n".join(parts) + "\n", True
    return target, f"{current.rstrip()}\n\n{section}", True
