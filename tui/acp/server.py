"""`agent-tui acp [FLAGS]`: serve the Agent Client Protocol on stdin/stdout until the client leaves.

The SDK (`acp.AgentSideConnection`) speaks JSON-RPC; this module gives it the streams and a check
in front of them: a line that is not JSON, not a JSON-RPC object, or too long is answered with one
JSON-RPC error (the SDK would drop it silently or stop reading), and said on stderr. Stdout carries
nothing but the protocol: file descriptor 1 is pointed at stderr for everything else. The flags
are the app's (`--model`, `--permission-mode`, `--allowedTools`, `--mcp-config`, `--settings`, …).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
import sys
import threading
from typing import Any, BinaryIO, TextIO

from tui import install_hint
from tui.config.bounded_read import MAX_DEPTH, MAX_LINE_BYTES, describe_size, nesting_depth
from tui.text.sanitize import visible

#: the longest line read from the client (the SDK's own default: pictures travel as base64)
LINE_LIMIT = MAX_LINE_BYTES
NOT_INSTALLED = (
    "agent-tui acp: the Agent Client Protocol SDK (agent-client-protocol) is not installed; it comes with agent-tui: "
    f"{install_hint()} installs it again."
)
NO_PROMPT = (
    "agent-tui acp: takes no prompt, -p, -c or -r: the client sends the prompts and picks the session "
    "(session/new, session/load)."
)


def main(argv: list[str]) -> int:
    """Parse the flags, check the SDK is there, serve; 2 with one sentence on bad flags."""
    from tui.cli.parser import build_parser

    parser = build_parser()
    parser.prog = "agent-tui acp"
    parser.description = "Serve the Agent Client Protocol over stdio (for Zed, Toad and other ACP clients)."
    args = parser.parse_args(argv)
    if args.prompt or args.print_mode or args.continue_ or args.resume is not None or args.fork_session:
        print(NO_PROMPT, file=sys.stderr)
        return 2
    try:
        import acp  # noqa: F401 - only to say clearly that it is missing
    except ImportError:
        print(NOT_INSTALLED, file=sys.stderr)
        return 2
    _log_sentences(sys.stderr)
    if sys.stdin.isatty():
        print(
            "agent-tui acp: waiting for an ACP client on stdin (an editor such as Zed or Toad starts this command); "
            "Ctrl+C quits.",
            file=sys.stderr,
        )
    copiers: list[threading.Thread] = []
    protocol_in = os.fdopen(_as_pipe(sys.stdin.fileno(), True, copiers), "rb", buffering=0)
    protocol_out = os.fdopen(_as_pipe(os.dup(sys.stdout.fileno()), False, copiers), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print or child output never corrupts the protocol
    from .agent import AcpAgent

    agent = AcpAgent(args, sys.stderr)
    stop = asyncio.Event()
    signalled: list[int] = []

    def on_signal(code: int) -> None:
        signalled.append(code)
        stop.set()

    try:
        from tui.tools import shutdown

        with shutdown.exit_app_on_signal(on_signal):  # SIGTERM / SIGHUP / Ctrl+C end it cleanly
            asyncio.run(serve(agent, protocol_in, protocol_out, stop))
    finally:
        agent.close()
        for copier in copiers:  # what was written to a file on stdout is all there
            copier.join(5)
    return signalled[0] if signalled else 0


def _as_pipe(fd: int, reading: bool, copiers: list[threading.Thread]) -> int:
    """`fd` itself when asyncio can read or write it (a pipe, a socket, a terminal); else a pipe that a thread
    copies to or from it (a regular file: `agent-tui acp < requests.jsonl > answers.jsonl`)."""
    mode = os.fstat(fd).st_mode
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode):
        return fd
    read_end, write_end = os.pipe()
    source, target, kept = (fd, write_end, read_end) if reading else (read_end, fd, write_end)

    def copy() -> None:
        try:
            while chunk := os.read(source, 1 << 16):
                os.write(target, chunk)
        except OSError:
            pass
        finally:
            os.close(write_end if reading else read_end)

    copier = threading.Thread(target=copy, name="acp-stdio-copy", daemon=True)
    copier.start()
    if not reading:
        copiers.append(copier)
    return kept


async def serve(agent: Any, stdin: BinaryIO, stdout: BinaryIO, stop: asyncio.Event) -> None:
    """Serve `agent` on the two pipes until the client closes its end or `stop` is set."""
    from acp import stdio_streams
    from acp.core import AgentSideConnection

    saved = sys.stdin, sys.stdout
    # the SDK opens its pipes from these
    sys.stdin, sys.stdout = stdin, stdout
    try:
        raw, writer = await stdio_streams(limit=LINE_LIMIT)
    finally:
        sys.stdin, sys.stdout = saved
    checked = asyncio.StreamReader(limit=LINE_LIMIT)
    conn = AgentSideConnection(agent, writer, checked, listening=False)
    checker = asyncio.create_task(check_input(raw, checked, writer, agent.err))
    listening = asyncio.create_task(conn.listen())
    stopping = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({listening, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (checker, stopping):
            task.cancel()
        await conn.close()  # cancels running prompts: their turns end as interrupted
        listening.cancel()


async def check_input(
    raw: asyncio.StreamReader,
    checked: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    err: TextIO,
    limit: int = LINE_LIMIT,
) -> None:
    """Pass well-formed JSON-RPC lines on to the SDK; answer every other line with one error.

    `limit` is the one `raw` was made with: a longer line is dropped whole and answered with an error.
    """
    from .agent import METHODS

    try:
        while True:
            line = await read_line(raw)
            if line is None:  # dropped whole, up to its newline: its tail is never read as a message
                _refuse(writer, err, None, -32600, f"A message longer than {describe_size(limit)} was ignored.")
                continue
            if not line:
                break
            if not line.strip():
                continue
            problem = problem_of(line)
            if problem is None:
                checked.feed_data(line if line.endswith(b"\n") else line + b"\n")
                method = _method(line)
                if method is not None and method not in METHODS and not method.startswith("_"):
                    _say(
                        err,
                        f"the client called {method!r}, which agent-tui does not offer; it was answered "
                        "'Method not found'.",
                    )
                continue
            _refuse(writer, err, *problem)
    finally:  # end of input (or anything else ending this loop) ends the connection, so the process ends
        checked.feed_eof()


async def read_line(reader: asyncio.StreamReader) -> bytes | None:
    """The next line (b"" at end of input), or None for one over the reader's limit, read to its end and dropped."""
    try:
        return await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as exc:  # the input ends without a newline
        return exc.partial
    except asyncio.LimitOverrunError as exc:
        await reader.readexactly(exc.consumed)
    while True:  # throw away the rest of the line, up to and with its newline
        try:
            await reader.readuntil(b"\n")
            return None
        except asyncio.IncompleteReadError:
            return None
        except asyncio.LimitOverrunError as exc:
            await reader.readexactly(exc.consumed)


def problem_of(line: bytes) -> tuple[Any, int, str] | None:
    """(id, JSON-RPC error code, sentence) for a line that is no JSON-RPC message; None for one that is."""
    if nesting_depth(line.decode("utf-8", "replace")) > MAX_DEPTH:  # json.loads would raise RecursionError
        return None, -32600, f"A message nested more than {MAX_DEPTH} levels deep was ignored."
    try:
        message = json.loads(line)
    except ValueError:  # UnicodeDecodeError too
        return None, -32700, "A line from the client is not valid JSON, so it was ignored."
    if isinstance(message, list):
        return None, -32600, "A JSON array (a batch) is not an ACP message; send one message per line."
    if not isinstance(message, dict):
        return None, -32600, "A line from the client is not a JSON-RPC object, so it was ignored."
    msg_id = message.get("id")
    if isinstance(msg_id, bool) or not isinstance(msg_id, (str, int, type(None))):
        return None, -32600, "A message's id must be a string or a number, so it was ignored."
    method = message.get("method")
    if method is None:
        if "id" in message and ("result" in message or "error" in message):
            return None  # an answer to one of agent-tui's requests
        return msg_id, -32600, "A message from the client has neither a method nor a result, so it was ignored."
    if not isinstance(method, str):
        return msg_id, -32600, "A message's method must be a string, so it was ignored."
    if "params" in message and not isinstance(message["params"], (dict, list, type(None))):
        return msg_id, -32602, f"The params of {method} must be an object, so the message was ignored."
    return None


def _method(line: bytes) -> str | None:
    try:
        method = json.loads(line).get("method")
    except (ValueError, AttributeError):
        return None
    return method if isinstance(method, str) else None


def _refuse(writer: asyncio.StreamWriter, err: TextIO, msg_id: Any, code: int, sentence: str) -> None:
    """Answer a bad line with one JSON-RPC error (one whole line: the SDK's writes never interleave with it)."""
    from acp import RequestError

    _say(err, sentence)
    reply = {"jsonrpc": "2.0", "id": msg_id, "error": RequestError(code, sentence).to_error_obj()}
    try:
        writer.write(json.dumps(reply).encode() + b"\n")
    except (OSError, RuntimeError):
        pass


def _say(err: TextIO, sentence: str) -> None:
    try:
        err.write(visible(f"agent-tui acp: {sentence}") + "\n")
        err.flush()
    except (OSError, ValueError):
        pass


class _Sentence(logging.Handler):
    """The SDK's log records as one line each on stderr, without tracebacks."""

    def __init__(self, err: TextIO) -> None:
        super().__init__(logging.WARNING)
        self.err = err

    def emit(self, record: logging.LogRecord) -> None:
        why = f": {record.exc_info[1]}" if record.exc_info and record.exc_info[1] is not None else ""
        _say(self.err, f"{record.getMessage()}{why}")


def _log_sentences(err: TextIO) -> None:
    root = logging.getLogger()
    root.handlers[:] = [_Sentence(err)]
    root.setLevel(logging.WARNING)
