"""Which language server serves a file: configured ones first, then those found on PATH, in a fixed order."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

from tui.config.lean_dataclass import lean_dataclass

#: language id by file extension, for didOpen (the servers' own tables are larger; these cover the defaults)
LANGUAGE_IDS = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".jsx": "javascriptreact",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".go": "go",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
}
_PY = (".py", ".pyi")
_TS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs")
_C = (".c", ".h", ".cc", ".cpp", ".cxx", ".hpp")


@lean_dataclass(frozen=True)
class ServerSpec:
    """One language server: how to start it and which files it serves."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    #: file extension -> language id
    extensions: Mapping[str, str] = field(default_factory=dict)
    init_options: Any = None
    #: files or folders whose presence marks a project root (the nearest one above an edited file wins)
    root_markers: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    #: where it was declared: a settings file, a plugin's `.lsp.json`, or "PATH"
    source: str = "PATH"

    def serves(self, path: str) -> bool:
        return Path(path).suffix.lower() in self.extensions


def _table(exts: Sequence[str]) -> dict[str, str]:
    return {ext: LANGUAGE_IDS[ext] for ext in exts}


#: servers looked for on PATH when none is configured, in this order (the first found per language wins)
KNOWN: tuple[ServerSpec, ...] = (
    ServerSpec(
        "basedpyright",
        "basedpyright-langserver",
        ("--stdio",),
        _table(_PY),
        root_markers=("pyproject.toml", "setup.py", "setup.cfg", "pyrightconfig.json"),
    ),
    ServerSpec(
        "pyright",
        "pyright-langserver",
        ("--stdio",),
        _table(_PY),
        root_markers=("pyproject.toml", "setup.py", "setup.cfg", "pyrightconfig.json"),
    ),
    ServerSpec("ty", "ty", ("server",), _table(_PY), root_markers=("pyproject.toml", "ty.toml", "setup.py")),
    ServerSpec("pylsp", "pylsp", (), _table(_PY), root_markers=("pyproject.toml", "setup.py", "setup.cfg")),
    ServerSpec(
        "typescript-language-server",
        "typescript-language-server",
        ("--stdio",),
        _table(_TS),
        root_markers=("tsconfig.json", "jsconfig.json", "package.json"),
    ),
    ServerSpec("gopls", "gopls", (), _table((".go",)), root_markers=("go.work", "go.mod")),
    ServerSpec("rust-analyzer", "rust-analyzer", (), _table((".rs",)), root_markers=("Cargo.toml",)),
    ServerSpec(
        "clangd",
        "clangd",
        (),
        _table(_C),
        root_markers=("compile_commands.json", "compile_flags.txt", "CMakeLists.txt"),
    ),
)


def spec_from_table(name: str, table: Mapping[str, Any], source: str) -> ServerSpec:
    """A spec from a checked `[lsp.servers.NAME]` table or a `.lsp.json` entry (Claude Code's keys accepted)."""
    exts = table.get("extensionToLanguage") or table.get("extensions") or {}
    if isinstance(exts, list):  # our settings may list extensions only; the language id comes from the table above
        exts = {
            e if e.startswith(".") else f".{e}": LANGUAGE_IDS.get(e if e.startswith(".") else f".{e}", "plaintext")
            for e in exts
        }
    return ServerSpec(
        name=name,
        command=str(table["command"]),
        args=tuple(str(a) for a in table.get("args") or ()),
        extensions={str(k).lower(): str(v) for k, v in dict(exts).items()},
        init_options=table.get("initializationOptions", table.get("init_options")),
        root_markers=tuple(table.get("root_markers") or table.get("rootMarkers") or ()),
        env={str(k): str(v) for k, v in dict(table.get("env") or {}).items()},
        source=source,
    )


def found_on_path(path_env: str | None = None) -> list[ServerSpec]:
    """The known servers whose command is on PATH, in KNOWN's order (one per language: the first wins)."""
    path_env = os.environ.get("PATH", "") if path_env is None else path_env
    chosen: list[ServerSpec] = []
    taken: set[str] = set()
    for spec in KNOWN:
        languages = set(spec.extensions.values())
        if languages & taken:
            continue
        if shutil.which(spec.command, path=path_env):
            chosen.append(spec)
            taken |= languages
    return chosen


def choose(configured: Sequence[ServerSpec], path_env: str | None = None) -> list[ServerSpec]:
    """The servers of this session: every configured one, then PATH's for extensions none of them serves."""
    covered = {ext for spec in configured for ext in spec.extensions}
    return [*configured, *(s for s in found_on_path(path_env) if not covered & set(s.extensions))]


def project_root(path: str, spec: ServerSpec, project_dir: str) -> str:
    """The folder the server runs in for `path`: the nearest root marker at or under the project, else the project."""
    project = os.path.abspath(project_dir)
    folder = os.path.dirname(os.path.abspath(path))
    while folder.startswith(project) and len(folder) >= len(project):
        if any(os.path.exists(os.path.join(folder, marker)) for marker in spec.root_markers):
            return folder
        if folder == project:
            break
        folder = os.path.dirname(folder)
    return project


@lean_dataclass(frozen=True)
class LspOptions:
    """What a session needs to run language servers: the `[lsp]` switches and the configured servers."""

    specs: tuple[ServerSpec, ...] = ()
    switches: Mapping[str, Any] = field(default_factory=dict)
    #: also the known servers found on PATH (for the extensions no configured one serves)
    use_path: bool = True
