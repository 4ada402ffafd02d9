"""What the soak keeps: the soak day (soak.py) with snapshots after warm-up and at the end, diffed.

    python -m tests.bench.soak_profile                 # the quick day (200 turns), tracemalloc after warm-up
    python -m tests.bench.soak_profile --turns 100 --frames 12 --top 15
    python -m tests.bench.soak_profile --no-trace      # counts only (RSS as the benchmark sees it)

Printed: RSS at both points; the top allocations made after warm-up and still alive at the end, by traceback and
by line (tracemalloc runs from warm-up on: the turns before it run at full speed); live objects by
type (gc, the frozen start-up generation not counted); widgets by type on every screen; every functools
cache and Textual LRU/FIFO cache with entries; the app's own stores (turn records, inspector, session
messages, event controller); the largest lists, dicts and deques alive. Not a benchmark: tracemalloc slows
the day and adds its own memory, so the RSS here is not the benchmark's figure. The bounded stores (issue 38:
inspector calls, timeline bars, cost entries) show what they hold and how many they dropped or folded; their
caps are 500 calls, 1,000 bars and 200 entries: the quick day's 200 turns (about 440 calls, 2,500 bars)
reach only the bars'. Then, 12 s after the app closed (where the benchmark takes its end RSS, the session still
alive), the same counts again and the allocations since warm-up still alive (`--no-close` leaves it out).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import linecache
import os
import shutil
import sys
import tempfile
import tracemalloc
from collections import Counter, deque
from pathlib import Path
from typing import Any

from tests.fakeapi.demo_project import make_demo_project

from .soak import BIG_OUTPUT, Plan, Report, finish, process_counts, rss_mib, run
from .soak_server import serve


def plan_for(turns: int) -> Plan:
    """The benchmark's day scaled to `turns` (the full day is 2,000)."""
    scale = turns / Plan().turns
    full = Plan()
    return Plan(
        turns=turns,
        subagents=max(1, round(full.subagents * scale)),
        tool_calls=max(turns, round(full.tool_calls * scale)),
        output_bytes=max(BIG_OUTPUT, round(full.output_bytes * scale)),
        compactions=full.compactions,
        rewinds=full.rewinds,
    )


def _size(value: Any) -> int:
    """Characters of `value` as JSON (strings and containers; 0 for what JSON cannot write)."""
    try:
        return len(json.dumps(value, default=str))
    except (TypeError, ValueError):
        return 0


def app_stores(app: Any) -> dict[str, Any]:
    """The app's own stores that grow with the day: counts and characters."""
    out: dict[str, Any] = {}
    conv = app.conversation
    blocks = [b for t in conv.turns for b in t.blocks]
    tools = [b.tool for b in blocks if b.tool is not None]
    out["turn records"] = len(conv.turns)
    out["block records"] = len(blocks)
    out["block text chars"] = sum(len(b.text) for b in blocks)
    out["tool result chars"] = sum(len(t.result_text) for t in tools) + sum(
        len(c.result_text) for t in tools for c in t.children
    )
    out["tool records (children)"] = sum(len(t.children) for t in tools)
    out["mounted turn views"] = len(conv.mounted_views)
    controller = app.controller
    out["controller blocks/tools"] = (len(controller._blocks), len(controller._tools))
    subs = controller.subagents
    out["subagent agents/tools/top"] = (len(subs.agents), len(subs.tools), len(subs.top))
    inspector = getattr(app, "inspector", None)
    model = getattr(inspector, "model", None) if inspector is not None else None
    if model is not None:
        out["inspector calls"] = len(model.calls)
        out["inspector bodies chars"] = sum(_size(c.body) for c in model.calls)
        out["inspector messages chars"] = sum(_size(c.message) for c in model.calls)
        out["inspector raw events"] = sum(len(c.raw_events) for c in model.calls)
    if model is not None:
        out["inspector calls dropped (in the transcript)"] = model.dropped
    timeline = getattr(inspector, "timeline", None) if inspector is not None else None
    if timeline is not None:
        out["timeline bars (dropped)"] = (len(timeline.bars), timeline.dropped)
    backlog = getattr(app, "_inspector_backlog", None)
    if backlog is not None and backlog.model is not None:
        out["inspector backlog calls/bars"] = (len(backlog.model.calls), len(backlog.timeline.bars))
    session = app.session
    out["session messages"] = len(session.messages)
    out["session messages chars"] = _size(session.messages)
    for name in ("denials", "compactions", "subagent_links", "hook_context", "pins"):
        value = getattr(session, name, None)
        if value is not None:
            out[f"session.{name}"] = len(value)
    cost = getattr(session, "costs", None)
    entries = getattr(cost, "entries", None)
    if entries is not None:
        out["cost entries"] = len(entries)
        fold = getattr(cost, "fold", None)
        if fold is not None:
            out["cost entries folded (sums kept)"] = (fold.requests, len(fold.by_key))
    checkpoints = getattr(session, "checkpoints", None)
    if checkpoints is not None:
        for name in ("changes", "prompts", "branches", "convs", "known"):
            value = getattr(checkpoints, name, None)
            if value is not None:
                out[f"checkpoints.{name}"] = len(value)
    bus = session.bus
    out["bus subscribers inline/queued"] = (len(bus._inline), len(bus._queued))
    return out


def cache_sizes() -> dict[str, str]:
    """Every functools cache in rich/textual/tui modules with entries, and Textual's cache objects."""
    out: dict[str, str] = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith(("rich", "textual", "tui")) or module is None:
            continue
        for attr, value in list(vars(module).items()):
            info = getattr(value, "cache_info", None)
            if callable(info):
                try:
                    got = info()
                except TypeError:
                    continue
                if got.currsize:
                    out[f"{name}.{attr}"] = f"{got.currsize}/{got.maxsize}"
    from textual.cache import FIFOCache, LRUCache

    kinds: Counter[str] = Counter()
    entries: Counter[str] = Counter()
    for obj in gc.get_objects():
        if isinstance(obj, (LRUCache, FIFOCache)):
            kinds[type(obj).__name__] += 1
            entries[type(obj).__name__] += len(obj)
    for kind, count in kinds.items():
        out[f"textual {kind} objects"] = f"{count} holding {entries[kind]} entries"
    return out


def largest_containers(top: int) -> list[tuple[int, str]]:
    """The longest lists, dicts and deques alive, with a hint of what holds them."""
    found: list[tuple[int, Any]] = []
    for obj in gc.get_objects():
        if isinstance(obj, (list, dict, deque)):
            size = len(obj)
            if size >= 200:
                found.append((size, obj))
    found.sort(key=lambda pair: -pair[0])
    out = []
    for size, obj in found[:top]:
        holders = []
        for ref in gc.get_referrers(obj):
            if ref is found or isinstance(ref, type(sys._getframe())):
                continue
            if isinstance(ref, dict):
                owner = next((o for o in gc.get_referrers(ref) if getattr(o, "__dict__", None) is ref), None)
                key = next((k for k, v in ref.items() if v is obj), "?")
                holders.append(f"{type(owner).__name__ if owner is not None else 'dict'}.{key}")
            else:
                holders.append(type(ref).__name__)
        sample = type(next(iter(obj.values() if isinstance(obj, dict) else obj), None)).__name__
        out.append((size, f"{type(obj).__name__} of {sample} held by {', '.join(holders[:3]) or '?'}"))
        del holders
    return out


def holders(type_name: str, sample: int = 300) -> Counter[str]:
    """What holds live objects of type `type_name`: the referrer's type and, through a dict or list, its owner's."""
    found = [o for o in gc.get_objects() if type(o).__qualname__ == type_name][:sample]
    out: Counter[str] = Counter()
    frame_type = type(sys._getframe())
    for obj in found:
        for ref in gc.get_referrers(obj):
            if ref is found or isinstance(ref, frame_type):
                continue
            name = type(ref).__qualname__
            if isinstance(ref, (dict, list, tuple, deque)):
                owners = [o for o in gc.get_referrers(ref) if o is not found and not isinstance(o, frame_type)]
                name += " in " + ",".join(sorted({type(o).__qualname__ for o in owners[:3]})) if owners else ""
            out[name] += 1
    del found
    return out


def malloc_held() -> dict[str, float]:
    """glibc's view (MiB): bytes in use, bytes free but still held, and RSS after `malloc_trim(0)` gave them back."""
    import ctypes

    class Mallinfo2(ctypes.Structure):
        _fields_ = [
            (name, ctypes.c_size_t)
            for name in "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()
        ]

    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = Mallinfo2
    except (OSError, AttributeError):
        return {}
    info = libc.mallinfo2()
    out = {"malloc in use": (info.uordblks + info.hblkhd) / 2**20, "malloc free, held": info.fordblks / 2**20}
    libc.malloc_trim(0)
    out["RSS after malloc_trim"] = rss_mib()
    return out


class Probe:
    """Takes the snapshots the soak asks for; prints the diff at the end."""

    def __init__(self, top: int, trace: bool, frames: int = 6, who: tuple[str, ...] = (), trim: bool = False) -> None:
        self.top = top
        self.trim = trim
        self.who = who
        self.trace = trace
        self.frames = frames
        self.snaps: dict[str, dict[str, Any]] = {}

    def __call__(self, stage: str, app: Any) -> None:
        gc.collect()
        snap: dict[str, Any] = {"rss": rss_mib()}
        snap["malloc"] = malloc_held() if self.trim else {}
        if self.trace and stage in ("end", "closed"):
            snap["trace"] = tracemalloc.take_snapshot().filter_traces(
                [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen *>")]
            )
            snap["traced"] = tracemalloc.get_traced_memory()[0] / 2**20
        snap["types"] = Counter(type(o).__qualname__ for o in gc.get_objects())
        snap["frozen"] = gc.get_freeze_count()
        widgets: Counter[str] = Counter()
        screens = [*app.screen_stack, *app._installed_screens.values()] if app is not None else []
        for screen in {id(s): s for s in screens}.values():
            if hasattr(screen, "walk_children"):
                widgets.update(type(w).__name__ for w in screen.walk_children(with_self=True))
        snap["widgets"] = widgets
        snap["stores"] = app_stores(app) if app is not None else {}
        snap["caches"] = cache_sizes()
        if stage == "end":
            snap["largest"] = largest_containers(self.top)
            snap["holders"] = {name: holders(name) for name in self.who}
        self.snaps[stage] = snap
        if self.trace and stage == "warm":  # traced from here on: what is alive at the end was kept since warm-up
            tracemalloc.start(self.frames)

    def print(self, out: Any = sys.stdout) -> None:
        warm, end = self.snaps.get("warm"), self.snaps.get("end")
        if warm is None or end is None:
            print("no snapshots taken", file=out)
            return
        p = lambda *a: print(*a, file=out)  # noqa: E731
        p(f"RSS after warm-up {warm['rss']:.0f} MiB, at the end {end['rss']:.0f} MiB ({end['rss'] / warm['rss']:.2f}x)")
        for name, value in end["malloc"].items():
            p(f"{name}: {warm['malloc'].get(name, 0):.0f} MiB -> {value:.0f} MiB")
        if self.trace:
            p(f"traced since warm-up and still alive at the end: {end['traced']:.1f} MiB")
            self._print_trace(end, "alive at the end", ("traceback", "lineno"), p)
        p(f"\n== live objects by type, grown most (frozen at start-up: {end['frozen']}) ==")
        grown = Counter(end["types"])
        grown.subtract(warm["types"])
        for name, diff in grown.most_common(self.top):
            p(f"{diff:+9d}  {name} (now {end['types'][name]})")
        p("\n== widgets on every screen (warm -> end) ==")
        names = sorted(set(warm["widgets"]) | set(end["widgets"]), key=lambda n: -end["widgets"][n])
        p(f"total {sum(warm['widgets'].values())} -> {sum(end['widgets'].values())}")
        for name in names[: self.top]:
            p(f"  {name}: {warm['widgets'][name]} -> {end['widgets'][name]}")
        p("\n== app stores (warm -> end) ==")
        for name, value in end["stores"].items():
            p(f"  {name}: {warm['stores'].get(name)} -> {value}")
        p("\n== caches with entries (warm -> end) ==")
        for name, value in sorted(end["caches"].items()):
            p(f"  {name}: {warm['caches'].get(name, '-')} -> {value}")
        p(f"\n== largest containers at the end (>= 200 items, top {self.top}) ==")
        for size, what in end["largest"]:
            p(f"  {size:8d}  {what}")
        for name, counts in end["holders"].items():
            p(f"\n== what holds {name} objects at the end (a sample) ==")
            for holder, count in counts.most_common(self.top):
                p(f"  {count:6d}  {holder}")
        closed = self.snaps.get("closed")
        if closed is not None:
            self._print_closed(warm, closed, p)

    def _print_trace(self, snap: dict[str, Any], when: str, keys: tuple[str, ...], p: Any) -> None:
        for key in keys:
            p(f"\n== top {self.top} allocations made since warm-up and {when}, by {key} ==")
            for stat in snap["trace"].statistics(key)[: self.top]:
                p(f"{stat.size / 2**20:8.2f} MiB {stat.count:8d} blocks")
                frames = stat.traceback if key == "traceback" else stat.traceback[:1]
                for frame in frames:
                    line = linecache.getline(frame.filename, frame.lineno).strip()
                    p(f"      {_short(frame.filename)}:{frame.lineno}  {line[:90]}")

    def _print_closed(self, warm: dict[str, Any], closed: dict[str, Any], p: Any) -> None:
        """After the app closed: where the benchmark takes its end RSS (the session object is still alive)."""
        p(
            f"\n== after the app closed (the benchmark's end point): RSS {closed['rss']:.0f} MiB "
            f"({closed['rss'] / warm['rss']:.2f}x of warm-up) =="
        )
        for name, value in closed["malloc"].items():
            p(f"{name}: {warm['malloc'].get(name, 0):.0f} MiB -> {value:.0f} MiB")
        if self.trace:
            p(f"traced since warm-up and still alive after the close: {closed['traced']:.1f} MiB")
            self._print_trace(closed, "alive after the close", ("lineno",), p)
        grown = Counter(closed["types"])
        grown.subtract(warm["types"])
        p("\n== live objects by type after the close, grown most since warm-up ==")
        for name, diff in grown.most_common(self.top):
            p(f"{diff:+9d}  {name} (now {closed['types'][name]})")
        p("\n== caches with entries after the close (warm -> closed) ==")
        for name, value in sorted(closed["caches"].items()):
            p(f"  {name}: {warm['caches'].get(name, '-')} -> {value}")


def _short(filename: str) -> str:
    for marker in ("site-packages/", "/tui/", "/tests/"):
        if marker in filename:
            return (marker.strip("/") + "/" if marker != "site-packages/" else "") + filename.split(marker, 1)[1]
    return filename


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.soak_profile", description=__doc__)
    parser.add_argument("--turns", type=int, default=200, help="turns in the day (the quick soak's 200)")
    parser.add_argument("--frames", type=int, default=6, help="tracemalloc frames per traceback")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--who", nargs="*", default=["Strip"], help="types whose holders to list at the end")
    parser.add_argument("--trim", action="store_true", help="glibc malloc figures, then malloc_trim (changes RSS)")
    parser.add_argument("--no-trace", action="store_true", help="no tracemalloc (counts and RSS only)")
    parser.add_argument("--no-close", action="store_true", help="no snapshot after the app closed (12 s later)")
    args = parser.parse_args(argv)
    from tui.agent.options import AgentOptions
    from tui.agent.session import AgentSession
    from tui.ui.app import AgentApp

    plan = plan_for(args.turns)
    probe = Probe(args.top, trace=not args.no_trace, frames=args.frames, who=tuple(args.who), trim=args.trim)
    root = Path(tempfile.mkdtemp(prefix="soak-profile-"))
    os.environ["HOME"] = str(root / "home")
    try:
        project = make_demo_project(root / "project")
        sessions = root / "sessions"
        with serve(plan, project) as base_url:  # apart, as the real API is: its memory is not the app's
            os.environ["ANTHROPIC_BASE_URL"], os.environ["ANTHROPIC_API_KEY"] = base_url, "sk-test"
            report = Report(start=process_counts())
            options = AgentOptions(
                project_dir=project,
                interactive=True,
                transcript=True,
                sessions_dir=sessions,
                permission_mode="bypassPermissions",
            )
            session = AgentSession(options)
            session.prepare()
            asyncio.run(run(plan, AgentApp(options, session=session), sessions, report, probe=probe))
            finish(report, wait_s=0 if args.no_close else 12)
            if not args.no_close:
                probe("closed", None)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{plan.turns} turns in {report.seconds / 60:.1f} min; warm-up at turn {max(2, plan.turns // 10)}")
    probe.print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
