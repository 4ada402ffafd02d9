"""The small demo project of the Claude Code comparison (docs/benchmarks.md)."""

from __future__ import annotations

from pathlib import Path

DEMO_FILES = {
    "README.md": "# demo\n\nA tiny project for agent demos: `a.py` adds numbers, `b.py` prints a sum.\n",
    "a.py": "def add(a, b):\n    # TODO: validate inputs\n    return a + b\n",
    "b.py": (
        "import a\n\n"
        "def main():\n"
        "    # TODO: parse arguments\n"
        "    print(a.add(1, 2))  # TODO remove debug print\n\n"
        'if __name__ == "__main__":\n'
        "    main()\n"
    ),
}


def make_demo_project(directory: str | Path) -> Path:
    """Write README.md, a.py and b.py into `directory` (created if needed) and return it."""
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    for name, content in DEMO_FILES.items():
        (root / name).write_text(content)
    return root
