"""Write the generated tables of docs/system-prompt.md (every rule the model is given, and its cost in tokens).

.venv/bin/python scripts/prompt_doc.py            # rewrite the part between the two markers
.venv/bin/python scripts/prompt_doc.py --check    # exit 1 when the page is not current (the test does the same)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tui.agent.prompt_rules import rules_markdown  # noqa: E402

PAGE = ROOT / "docs" / "system-prompt.md"
START = "<!-- rules:start (written by scripts/prompt_doc.py) -->"
END = "<!-- rules:end -->"


def current(page: str) -> str:
    """`page` with its generated part replaced by what the code holds now."""
    head, _, rest = page.partition(START)
    _, _, tail = rest.partition(END)
    return f"{head}{START}\n{rules_markdown()}\n{END}{tail}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether the page is current")
    args = parser.parse_args()
    text = PAGE.read_text(encoding="utf-8")
    if START not in text or END not in text:
        print(f"{PAGE}: the markers {START!r} and {END!r} are missing.", file=sys.stderr)
        return 1
    wanted = current(text)
    if args.check:
        if wanted != text:
            print(f"{PAGE} is not current: run scripts/prompt_doc.py.", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
