"""MkDocs hook: the docs show the screenshots where they live, in screenshots/ at the top of the repository.

The README shows them as `screenshots/NAME.svg`, and the pages in docs/ as `../screenshots/NAME.svg`, which is
right wherever the Markdown is read (GitHub, an editor). MkDocs only knows files inside docs/, so this hands it
each screenshot under that `../screenshots/` name and writes it to `site/screenshots/`: the links resolve, and
`mkdocs build --strict` still fails on a screenshot that does not exist.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files, InclusionLevel

SCREENSHOTS = Path(__file__).resolve().parents[1] / "screenshots"


def on_files(files: Files, config: Any) -> Files:
    for path in sorted(SCREENSHOTS.glob("*.svg")):
        shot = File.generated(
            config, f"../screenshots/{path.name}", abs_src_path=str(path), inclusion=InclusionLevel.INCLUDED
        )
        shot.dest_uri = f"screenshots/{path.name}"
        files.append(shot)
    return files
