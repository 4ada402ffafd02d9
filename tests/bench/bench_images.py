"""Attaching a 12-megapixel PNG to the prompt, against Pillow's own decode and resize of it.

    python -m tests.bench --only images

The figure is the whole attachment as a pasted path or an `@` mention makes it (the Read rules,
reading the file, decoding, scaling to 1568 px, re-encoding, base64 for the block); the baseline
is `Image.open(path).thumbnail((1568, 1568))` in the same run, the least any scaling costs.
Goals: at most 1.3× the baseline, and at most 150 ms.
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.bench.common import Settings, median, row

SIZE = (4000, 3000)
RATIO_GOAL = 1.3
SECONDS_GOAL = 0.15


def make_png(path: Path) -> Path:
    """A 12-megapixel screenshot-like PNG: a gradient, panels and bars (deterministic)."""
    from PIL import Image, ImageDraw

    image = Image.linear_gradient("L").resize(SIZE).convert("RGB")
    draw = ImageDraw.Draw(image)
    rng = random.Random(12)
    for _ in range(600):
        x, y = rng.randrange(SIZE[0]), rng.randrange(SIZE[1])
        colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
        draw.rectangle((x, y, x + rng.randrange(8, 500), y + rng.randrange(4, 160)), fill=colour)
    image.save(path)
    return path


def measure(settings: Settings) -> list[dict[str, Any]]:
    from PIL import Image

    from tui.config.permissions import PermissionPolicy
    from tui.tools.attachments import AttachmentRules, attach_one

    runs = settings.reps(7, 3)
    with tempfile.TemporaryDirectory(prefix="agent-tui-bench-images-") as tmp:
        project = Path(tmp)
        path = make_png(project / "shot.png")
        rules = AttachmentRules(project, PermissionPolicy(project_dir=project))

        def ours() -> None:
            attached = attach_one(str(path), rules)
            assert attached is not None and attached.kind == "image", attached
            attached.image_entry()  # the block's base64, as the prompt's chip hands it to the turn

        def pillow() -> None:
            Image.open(path).thumbnail((1568, 1568))

        ours()  # imports (Pillow, the Read tool) and the page cache: not part of either figure
        pillow()
        mine: list[float] = []
        base: list[float] = []
        for _ in range(runs):  # interleaved, so both see the same load on a shared machine
            for fn, out in ((pillow, base), (ours, mine)):
                started = time.perf_counter()
                fn()
                out.append(time.perf_counter() - started)
        megabytes = path.stat().st_size / 1e6
    value, baseline = median(mine), median(base)
    note = f"{SIZE[0]}×{SIZE[1]} PNG, median of {runs}"
    return [
        row(
            "attach a 12 MP PNG (vs Pillow decode+resize)",
            value,
            baseline,
            f"ratio <= {RATIO_GOAL}",
            unit="s",
            met=value / baseline <= RATIO_GOAL,
            note=note,
            baseline_label="Pillow",
        ),
        row(
            "attach a 12 MP PNG",
            value,
            None,
            f"value < {SECONDS_GOAL} s",
            unit="s",
            met=value < SECONDS_GOAL,
            note=f"{note}, {megabytes:.1f} MB",
        ),
    ]
