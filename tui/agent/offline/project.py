"""Looks at the user's real project: which file to read first, languages, git or not."""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

WALK_LIMIT = 5000
SOURCE_SUFFIXES = (
    ".py",
    ".js",
    ".ts",
    ".tsx",
    ".jsx",
    ".go",
    ".rs",
    ".java",
    ".kt",
    ".c",
    ".h",
    ".cc",
    ".cpp",
    ".hpp",
    ".cs",
    ".rb",
    ".php",
    ".swift",
    ".scala",
    ".sh",
    ".lua",
    ".ex",
    ".hs",
)
_FILE_LIKE = re.compile(r"[\w./-]*\w\.\w{1,8}|[\w.-]+/[\w./-]+")
# generated, vendored or binary files: never searched, counted or edited by the demo
GENERATED_DIRS = frozenset(
    {
        "node_modules",
        "screenshots",
        "__snapshots__",
        "__pycache__",
        "dist",
        "build",
        ".venv",
        "venv",
        "site-packages",
        "target",
        "vendor",
        ".git",
    }
)
LOCK_FILES = frozenset(
    {
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "uv.lock",
        "Pipfile.lock",
        "Cargo.lock",
        "Gemfile.lock",
        "composer.lock",
        "go.sum",
        "bun.lockb",
    }
)
GENERATED_SUFFIXES = (
    ".lock",
    ".svg",
    ".min.js",
    ".min.css",
    ".map",
    ".pyc",
    ".pyo",
    ".so",
    ".dll",
    ".dylib",
    ".exe",
    ".o",
    ".a",
    ".class",
    ".jar",
    ".whl",
    ".zip",
    ".gz",
    ".tgz",
    ".bz2",
    ".xz",
    ".7z",
    ".tar",
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".ico",
    ".webp",
    ".bmp",
    ".pdf",
    ".woff",
    ".woff2",
    ".ttf",
    ".otf",
    ".eot",
    ".mp3",
    ".mp4",
    ".wav",
    ".sqlite",
    ".db",
    ".bin",
)
# the same as rg globs, for the Grep call (rg skips binary files by itself)
SEARCH_EXCLUDES = " ".join(
    [f"!{name}" for name in sorted(GENERATED_DIRS - {".git"})]
    + ["!*.lock", "!*.svg", "!*.min.js", "!*.min.css", "!*.map"]
    + [f"!{name}" for name in sorted(LOCK_FILES) if not name.endswith(".lock")]
)


def is_generated(path: str) -> bool:
    """True for lock files, minified, binary and image files and anything under a build or vendor folder."""
    parts = path.replace("\\", "/").split("/")
    name = parts[-1]
    if name in LOCK_FILES or name.lower().endswith(GENERATED_SUFFIXES):
        return True
    return any(part in GENERATED_DIRS for part in parts[:-1])


def walk_project(project_dir: Path, limit: int = WALK_LIMIT) -> list[str]:
    """Relative POSIX paths of the project's files, sorted, skipping hidden and build dirs."""
    found: list[str] = []
    for root, dirs, files in os.walk(project_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in GENERATED_DIRS)
        relative_root = Path(root).relative_to(project_dir)
        for name in sorted(files):
            if name.startswith(".") or is_generated(name):
                continue
            found.append((relative_root / name).as_posix())
            if len(found) >= limit:
                return found
    return found


def mentioned_files(prompt: str, project_dir: Path) -> list[Path]:
    """Existing project files the prompt names, by relative path or by bare file name."""
    named: list[Path] = []
    candidates = [token.strip(".,;:!?'\"`()") for token in _FILE_LIKE.findall(prompt)]
    by_name: dict[str, str] | None = None
    for token in candidates:
        if not token:
            continue
        direct = project_dir / token
        if direct.is_file():
            named.append(direct)
            continue
        if by_name is None:
            by_name = {}
            for relative in walk_project(project_dir):
                by_name.setdefault(relative.rsplit("/", 1)[-1], relative)
        if token in by_name:
            named.append(project_dir / by_name[token])
    return named


def project_readme(project_dir: Path, files: list[str]) -> Path | None:
    """The README at the top of the project: the longest of README.md, README.rst, README … (a one-line
    pointer to another file loses to the real one)."""
    found = [project_dir / f for f in files if "/" not in f and f.lower().startswith("readme")]

    def size(path: Path) -> int:
        try:
            return path.stat().st_size
        except OSError:
            return -1

    return max(found, key=lambda p: (size(p), -len(p.name)), default=None)


def pick_read_target(prompt: str, project_dir: Path) -> Path | None:
    """The most relevant file to read first: one named in the prompt, README, or source."""
    named = mentioned_files(prompt, project_dir)
    if named:
        return named[0]
    files = walk_project(project_dir)
    readme = project_readme(project_dir, files)
    if readme is not None:
        return readme
    for relative in files:
        if relative.endswith(SOURCE_SUFFIXES):
            return project_dir / relative
    return project_dir / files[0] if files else None


def is_git_repo(project_dir: Path) -> bool:
    """True when the project directory is the root of a git work tree."""
    return (project_dir / ".git").exists()


def language_counts(paths: list[str], top: int = 6) -> list[tuple[str, int]]:
    """The most common file extensions among paths, as (".py", 12) pairs."""
    counts: Counter[str] = Counter()
    for path in paths:
        name = path.replace("\\", "/").rsplit("/", 1)[-1]
        suffix = Path(name).suffix.lower()
        counts[suffix or "(no extension)"] += 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:top]


def normalize(path: str, project_dir: Path) -> str:
    """An absolute, symlink-free form of a path (relative paths are taken from the project)."""
    candidate = Path(path)
    if not candidate.is_absolute():
        candidate = project_dir / candidate
    return os.path.realpath(candidate)


def display_path(path: str, project_dir: Path) -> str:
    """A path as the user would like to read it: relative to the project when inside it."""
    real = normalize(path, project_dir)
    root = os.path.realpath(project_dir)
    if real == root or real.startswith(root + os.sep):
        return os.path.relpath(real, root).replace(os.sep, "/")
    return real
