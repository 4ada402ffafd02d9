"""Diagnostics after an edit: agent-tui's wait vs the server's own diagnostic time (a bare pygls client), per
real server, warm, in the same run; and agent-tui's memory with one server running.

The bare client does only what any client must: send the new text and wait for that version's diagnostics
(pull where the server offers it, else push). agent-tui's figure is from the edited file on disk to the text
appended to the tool result (read, sync, wait, format).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.bench.common import Settings, median, row
from tui.lsp.manager import LspManager, LspSettings
from tui.lsp.servers import KNOWN

BIN = Path(sys.executable).parent
SERVERS = {"pylsp": "pylsp", "ty": "ty", "basedpyright": "basedpyright-langserver"}
BROKEN = "import os\n\n\ndef total(values):\n    return sum(values) + undefined_name{n}\n"
FIXED = "import os\n\n\ndef total(values):\n    return sum(values) + len(os.sep) + {n}\n"


def _rss_mib(pid: int | str = "self") -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


async def _bare(command: str, args: tuple[str, ...], folder: Path, reps: int) -> list[float]:
    """Seconds from didChange to that version's diagnostics, with pygls's client alone."""
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("bench", "1")
    arrived: dict[str, Any] = {}
    event = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def _published(params: types.PublishDiagnosticsParams) -> None:
        arrived[params.uri] = params.version
        event.set()

    @client.feature(types.WORKSPACE_CONFIGURATION)
    def _configuration(params: types.ConfigurationParams) -> list[Any]:
        return [None for _ in params.items]

    await client.start_io(command, *args, cwd=str(folder))
    result = await client.initialize_async(
        types.InitializeParams(
            process_id=os.getpid(),
            root_uri=folder.as_uri(),
            capabilities=types.ClientCapabilities(
                text_document=types.TextDocumentClientCapabilities(
                    publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True)
                )
            ),
        )
    )
    client.initialized(types.InitializedParams())
    pull = bool(getattr(result.capabilities, "diagnostic_provider", None))
    path = folder / "bare.py"
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=FIXED.format(n=0))
        )
    )
    times = []
    for version in range(2, 2 + reps * 2):
        text = (BROKEN if version % 2 else FIXED).format(n=version)
        started = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        if pull:
            await client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
            )
        else:
            while (arrived.get(uri) or 0) < version:
                event.clear()
                await asyncio.wait_for(event.wait(), 30)
        times.append(time.perf_counter() - started)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return times[2:]  # the first rounds warm the server


def _ours(name: str, folder: Path, reps: int) -> tuple[list[float], float, float, float]:
    """Seconds per edit from the file on disk to its report; our RSS before and with the server; the server's RSS."""
    spec = next(s for s in KNOWN if s.name == name)
    before = _rss_mib()
    manager = LspManager([spec], str(folder), LspSettings(diagnostics_timeout=30.0))
    path = folder / "ours.py"
    path.write_text(FIXED.format(n=0))
    times = []
    try:
        for n in range(1, 1 + reps * 2):
            old = path.read_text()
            path.write_text((BROKEN if n % 2 else FIXED).format(n=n))
            started = time.perf_counter()
            found = manager.after_edit(str(path), old, path.name)
            times.append(time.perf_counter() - started)
            assert found is not None and (found.errors > 0) == bool(n % 2), (name, n, found)
        server = next(iter(manager.servers.values()))
        pids = [p for p in os.listdir("/proc") if p.isdigit() and _group(p) == server.pid]
        server_rss = sum(_rss_mib(p) for p in pids)
        return times[2:], before, _rss_mib(), server_rss
    finally:
        manager.close()


def _group(pid: str) -> int | None:
    try:
        return os.getpgid(int(pid))
    except (ProcessLookupError, PermissionError):
        return None


def measure(settings: Settings) -> list[dict[str, Any]]:
    rows = []
    reps = settings.reps(10, 3)
    os.environ["PATH"] = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    for name, command in SERVERS.items():
        if not (BIN / command).exists():
            rows.append(row(f"LSP: {name} diagnostics after an edit", None, None, "", note=f"{command} not installed"))
            continue
        spec = next(s for s in KNOWN if s.name == name)
        with tempfile.TemporaryDirectory(prefix="bench-lsp-") as folder:
            root = Path(folder)
            bare = asyncio.run(_bare(spec.command, spec.args, root, reps))
            ours, rss_before, rss_with, server_rss = _ours(name, root, reps)
        value, baseline = median(ours), median(bare)
        rows.append(
            row(
                f"LSP: {name} diagnostics after an edit (warm)",
                value * 1000,
                baseline * 1000,
                "within 1.5 s of the server's own time",
                unit="ms",
                met=value - baseline <= 1.5,
                baseline_label=f"{name} alone (bare pygls client, same run)",
                note=f"median of {len(ours)} edits each, alternating a broken and a fixed file",
            )
        )
        if name == "pylsp":
            rows.append(
                row(
                    "LSP: agent-tui RSS with one server (pylsp) running",
                    rss_with,
                    rss_before,
                    "≤ +25 MiB beyond the process without a server",
                    unit="MiB",
                    met=rss_with - rss_before <= 25,
                    baseline_label="the same process before the server started",
                    note=f"the server's own processes: {server_rss:.0f} MiB (not counted)",
                )
            )
    return rows
