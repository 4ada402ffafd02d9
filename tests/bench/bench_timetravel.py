"""Checkpoints and rewind: cost per Edit, Bash change detection, rewind of 100 files, store size.

    python -m tests.bench --only timetravel

Each figure comes with a baseline measured in the same run: the plain file write an Edit does
anyway, a bare directory walk, writing the 100 files directly, the raw bytes of the 100 versions.
"""

from __future__ import annotations

import itertools
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.bench.bench_tools import median_seconds as _median
from tests.bench.common import Settings, row
from tui.agent.history.checkpoint_bash import bash_finished, scan, scan_tree, watch_command, watcher
from tui.agent.history.checkpoints import Checkpoints
from tui.agent.history.rewind import apply_code, code_steps


def _text(size: int, seed: int) -> bytes:
    rng = random.Random(seed)
    words = [b"return", b"value", b"self", b"def", b"import", b"for", b"in", b"range", b"if", b"else", b"x", b"y"]
    out = bytearray()
    while len(out) < size:
        out += b" ".join(rng.choice(words) for _ in range(rng.randint(3, 12))) + b"\n"
    return bytes(out[:size])


def edit_rows(folder: Path, runs: int) -> list[dict[str, Any]]:
    """An Edit of one line of a 1 MB file: its checkpoint vs the write itself, when the Edit is the file's first
    change in its turn (its record flushed before the write) and when the file was changed earlier in the turn."""
    cps = Checkpoints(folder / "store", "bench", folder)
    cps.prompt(1, "bench", 0)
    path = folder / "big.py"
    data = _text(1 << 20, 1)
    path.write_bytes(data)
    versions = [data]
    for n in range(2 * runs + 1):
        middle = len(versions[-1]) // 2
        versions.append(versions[-1][:middle] + b"# edit %d\n" % n + versions[-1][middle:])
    times: dict[bool, list[float]] = {True: [], False: []}
    for n, (previous, new) in enumerate(itertools.pairwise(versions)):  # as save_file does: checkpoint, write, note
        first = n % 2 == 1
        if first:
            cps.prompt(n + 1, "bench", 0)  # a new turn (its own flush is not part of the Edit)
        started = time.perf_counter()
        cps.before_write(path, previous, new)
        times[first].append(time.perf_counter() - started)
        path.write_bytes(new)
        cps.wrote(path)
    first_edit = times[False].pop(0)  # the very first Edit stores the whole file once
    base = _median(lambda: path.write_bytes(versions[-1]), runs)
    fd = os.open(folder / "fsync-probe", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        fsync = _median(lambda: (os.write(fd, b"x\n"), os.fdatasync(fd)), runs)
    finally:
        os.close(fd)
    rows = []
    for first, label, how in (
        (True, "first change of the file in its turn", "waits for the log's one fdatasync"),
        (False, "the file changed before in the same turn", "waits for no flush"),
    ):
        value = statistics.median(times[first])
        rows.append(
            row(
                f"checkpoint per Edit of a 1 MB file ({label})",
                value * 1000,
                base * 1000,
                "≤ 3 ms median",
                unit="ms",
                met=value <= 0.003,
                baseline_label="the Edit's own write",
                note=f"{how}; one fdatasync here takes {fsync * 1000:.2f} ms; the new content is a delta in "
                f"the log record; the session's first Edit of the file (whole file stored) "
                f"{first_edit * 1000:.0f} ms",
            )
        )
    return rows


def scan_row(folder: Path, runs: int) -> dict[str, Any]:
    """Finding what a Bash command changed in a 5,000-file project (a scan before and after) vs a bare walk."""
    project = folder / "proj"
    for n in range(5000):
        sub = project / f"d{n % 50}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"f{n}.py").write_bytes(b"x = %d\n" % n)
    cps = Checkpoints(None, "bench", project)
    cps.prompt(1, "bench", 0)

    def detect() -> None:  # as the session does around a Bash command
        finished = watch_command(cps)
        (project / "d1" / "f1.py").write_bytes(os.urandom(8).hex().encode())
        finished()

    started = time.perf_counter()
    detect()  # the first command scans the tree once and watches its folders
    first = time.perf_counter() - started
    value = _median(detect, runs)
    watched = watcher(cps) is not None

    def rescan() -> None:  # where inotify cannot be used: a full scan before and after
        before = scan(cps)
        (project / "d1" / "f1.py").write_bytes(os.urandom(8).hex().encode())
        bash_finished(cps, before)

    scans = _median(rescan, runs)
    base = _median(lambda: [None for _ in os.walk(project)], runs)
    assert scan_tree(project) is not None and len(cps.changes) == 2 * runs + 3  # every change seen
    return row(
        "Bash change detection, 5,000 files",
        value * 1000,
        base * 1000,
        "≤ 30 ms",
        unit="ms",
        met=value <= 0.030,
        baseline_label="os.walk of the tree",
        note=f"{'inotify' if watched else 'no inotify: scans'}; first command {first * 1000:.0f} ms "
        f"(one scan, folders watched); two full scans instead {scans * 1000:.0f} ms",
    )


def rewind_row(folder: Path, runs: int) -> dict[str, Any]:
    """Rewinding 100 edited files (10 KB each) vs writing those 100 files directly."""
    project = folder / "rw"
    project.mkdir()
    cps = Checkpoints(folder / "rwstore", "bench", project)
    originals = {project / f"m{n}.py": _text(10_000, n) for n in range(100)}
    for path, data in originals.items():
        path.write_bytes(data)
    times = []
    for _ in range(runs):
        cps.prompt(1, "bench", 0)
        start = cps.pos
        for path, data in originals.items():
            changed = data + b"# changed\n"
            cps.before_write(path, path.read_bytes(), changed)
            path.write_bytes(changed)
        steps = code_steps(cps, start)
        started = time.perf_counter()
        result = apply_code(cps, steps)
        times.append(time.perf_counter() - started)
        assert not result.unrestored and all(p.read_bytes() == d for p, d in originals.items())
    value = statistics.median(times)

    def write_all() -> None:
        for path, data in originals.items():
            path.write_bytes(data)

    base = _median(write_all, runs)
    return row(
        "rewind of 100 files",
        value * 1000,
        base * 1000,
        "≤ 200 ms",
        unit="ms",
        met=value <= 0.2,
        baseline_label="writing the 100 files",
    )


def size_row(folder: Path) -> dict[str, Any]:
    """Store size after 100 Edits of a 100 KB file vs the 100 versions' raw size."""
    store = folder / "sizestore"
    cps = Checkpoints(store, "bench", folder)
    cps.prompt(1, "bench", 0)
    path = folder / "mid.py"
    data = _text(100_000, 7)
    rng = random.Random(3)
    raw = 0
    for n in range(100):
        at = rng.randrange(len(data))
        new = data[:at] + b"# edit %d\n" % n + data[at:]
        cps.before_write(path, data, new)
        data = new
        raw += len(data)
    size = sum(f.stat().st_size for f in store.rglob("*") if f.is_file())
    return row(
        "store size, 100 Edits of a 100 KB file",
        size / 1e6,
        raw / 1e6,
        "≤ 2 MB",
        unit="MB",
        met=size <= 2e6,
        baseline_label="the 100 versions, raw",
    )


def measure(settings: Settings) -> list[dict[str, Any]]:
    runs = settings.reps(21, 5)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rows = [
            *edit_rows(folder, runs),
            scan_row(folder, runs),
            rewind_row(folder, settings.reps(7, 3)),
            size_row(folder),
        ]
    try:
        from tests.bench.bench_replay import replay_row
    except ImportError:
        return rows
    return [*rows, replay_row(settings)]


if __name__ == "__main__":
    for r in measure(Settings()):
        print(
            f"{r['benchmark']:<42} {r['value']:>9.3f} {r['unit']:<3} baseline {r['baseline']:>9.3f}  "
            f"ratio {r['ratio']:.2f}  goal {r['goal']}  {'met' if r['met'] else 'NOT met'}  {r['note']}"
        )
