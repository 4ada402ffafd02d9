"""Toad (PyPI `batrachian-toad`), a real ACP client nobody on the team wrote, installed once per test session.

Toad 0.6.20 declares Python >= 3.14. On 3.13 it runs after three patches to the installed package, each
checked to apply (a Toad whose code differs is skipped, never half-patched):

1. `from __future__ import annotations` after every module's docstring: Toad relies on 3.14's deferred
   annotations (PEP 649), e.g. a NamedTuple field annotated with a class defined below it;
2. `jsonrpc.py` reads its exposed methods' signatures with `eval_str=True`, so those now-string annotations
   resolve in the method's own module (Toad `eval`s them in its own, where `protocol` is not imported);
3. `widgets/path_search.py` falls back to a ThreadPoolExecutor where 3.14's InterpreterPoolExecutor is missing.

It does not run on 3.11 (PEP 695 `type X = ...`), so a Python >= 3.13 is looked for on PATH and in pyenv.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path

import pytest

TOAD = "batrachian-toad==0.6.20"
PATCHES = {
    "jsonrpc.py": (
        "for name, parameter in signature(callable).parameters.items()",
        "for name, parameter in signature(callable, eval_str=True).parameters.items()",
    ),
    "widgets/path_search.py": (
        "concurrent.futures.InterpreterPoolExecutor(",
        'getattr(concurrent.futures, "InterpreterPoolExecutor", concurrent.futures.ThreadPoolExecutor)(',
    ),
}
#: the toad executable installed this session, or why there is none
_installed: dict[str, Path | str] = {}


def python_313() -> str | None:
    """A Python >= 3.13 (PATH first, then pyenv's versions), or None."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates = [shutil.which(f"python3.{minor}") for minor in (13, 14, 15)]
    candidates += sorted(glob.glob(str(pyenv / "versions" / "3.1[3-9]*" / "bin" / "python3")))
    for candidate in filter(None, candidates):
        probe = subprocess.run(
            [candidate, "-c", "import sys; print(sys.version_info >= (3, 13))"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if probe.returncode == 0 and probe.stdout.strip() == "True":
            return candidate
    return None


#: run by the Python >= 3.13 (Toad's modules use syntax 3.11 cannot parse): the future import after each
#: module's docstring, in every module of the package named by argv[1]
FUTURE_IMPORTS = """
import ast, sys
from pathlib import Path
for path in Path(sys.argv[1]).rglob("*.py"):
    source = path.read_text(encoding="utf-8")
    if "from __future__ import annotations" in source:
        continue
    body = ast.parse(source).body
    first = body[0] if body else None
    docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    lines = source.splitlines(keepends=True)
    lines.insert(first.end_lineno if docstring else 0, "from __future__ import annotations\\n")
    path.write_text("".join(lines), encoding="utf-8")
"""


def _install(folder: Path) -> Path | str:
    python = python_313()
    if python is None:
        return "Toad needs Python >= 3.13, and none was found on PATH or in pyenv"
    venv = folder / "venv"
    made = subprocess.run([python, "-m", "venv", str(venv)], capture_output=True, text=True, timeout=120)
    if made.returncode != 0:
        return f"a Python 3.13 venv could not be made: {made.stderr.strip()[-300:]}"
    pip = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", "--ignore-requires-python", TOAD],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if pip.returncode != 0:
        return f"{TOAD} could not be installed from PyPI: {pip.stderr.strip()[-300:]}"
    found = glob.glob(str(venv / "lib" / "python3.*" / "site-packages" / "toad"))
    if not found:
        return f"{TOAD} installed no `toad` package"
    package = Path(found[0])
    for name, (old, new) in PATCHES.items():
        target = package / name
        text = target.read_text(encoding="utf-8") if target.exists() else ""
        if old not in text:
            return f"{TOAD} is not the code the 3.13 patches were written for ({name} changed)"
        target.write_text(text.replace(old, new), encoding="utf-8")
    patched = subprocess.run([python, "-c", FUTURE_IMPORTS, str(package)], capture_output=True, text=True, timeout=120)
    if patched.returncode != 0:
        return f"Toad's modules could not be patched for 3.13: {patched.stderr.strip()[-300:]}"
    toad = venv / "bin" / "toad"
    check = subprocess.run([str(toad), "--version"], capture_output=True, text=True, timeout=120)
    if check.returncode != 0:
        return f"the patched Toad does not start on {python}: {check.stderr.strip()[-300:]}"
    return toad


def toad_executable(factory: pytest.TempPathFactory) -> Path:
    """The patched `toad`, installed once per session; skips (saying why) when it cannot be had."""
    if "toad" not in _installed:
        _installed["toad"] = _install(factory.mktemp("toad"))
    found = _installed["toad"]
    if isinstance(found, str):
        pytest.skip(found)
    return found
