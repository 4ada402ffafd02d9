"""`agent-tui mcp list | get | add | add-json | remove | reset-project-choices`, worded as `claude mcp`.

Successes go to stdout, one sentence per error to stderr with exit code 1 (as Claude Code).
Entries are checked with the same parser the app uses before anything is written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from tui.config.rule_files import SettingsWriteError
from tui.mcp.config import TRANSPORTS, McpConfigError, McpServerConfig, parse_server
from tui.mcp.scopes import SCOPE_LABELS, SCOPES, Place, Scope, add_server, places, remove_server, scoped_entries
from tui.mcp.status import HELD_BACK
from tui.text.sanitize import visible


def _say(text: str) -> None:
    """Print for the user, as `visible` shows it: names, commands and URLs come from the command line or a file."""
    print(visible(text))


class CliError(Exception):
    """One sentence for stderr; the command exits with 1."""


class _Parser(argparse.ArgumentParser):
    """argparse that says `error: …` and exits with 1, as Claude Code's commander does."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"error: {message}")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="agent-tui mcp", description="Configure and manage MCP servers.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    scope_help = "where to write: local (you, this folder; default), project (.mcp.json) or user (every folder)"
    add = sub.add_parser("add", help="add a server: NAME -- COMMAND ARGS… or --transport http|sse NAME URL")
    add.add_argument("-s", "--scope", default="local", help=scope_help)
    add.add_argument("-t", "--transport", default="stdio", help="stdio (default), http or sse")
    add.add_argument("-e", "--env", action="extend", nargs="+", default=[], metavar="KEY=VALUE")
    add.add_argument("-H", "--header", action="append", default=[], metavar="'NAME: VALUE'")
    add.add_argument("name")
    add.add_argument("target", nargs="*", metavar="COMMAND_OR_URL")
    add_json = sub.add_parser("add-json", help="add a server from its JSON entry")
    add_json.add_argument("-s", "--scope", default="local", help=scope_help)
    add_json.add_argument("name")
    add_json.add_argument("json")
    remove = sub.add_parser("remove", help="remove a server")
    remove.add_argument("-s", "--scope", help="only from this scope")
    remove.add_argument("name")
    get = sub.add_parser("get", help="show one server and its status")
    get.add_argument("name")
    sub.add_parser("list", help="list the servers and connect to each")
    sub.add_parser("reset-project-choices", help="ask again about this folder's .mcp.json servers")
    login = sub.add_parser("login", help="sign in to an HTTP or SSE server that uses OAuth")
    login.add_argument("name")
    logout = sub.add_parser("logout", help="forget the OAuth tokens of a server")
    logout.add_argument("name")
    return p


def main(argv: Sequence[str], project_dir: Path | None = None) -> int:
    """Run one `agent-tui mcp` command; returns the exit code."""
    argv = list(argv)
    tail: list[str] = []
    if argv[:1] == ["add"] and "--" in argv:  # everything after `--` is the server's command line
        cut = argv.index("--")
        argv, tail = argv[:cut], argv[cut + 1 :]
    parser = build_parser()
    here = (project_dir or Path.cwd()).resolve()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 1
        if args.command == "add":
            args.target = [*args.target, *tail]
        return COMMANDS[args.command](args, here)
    except CliError as exc:
        print(visible(str(exc)), file=sys.stderr)
        return 1
    except (SettingsWriteError, McpConfigError, OSError) as exc:
        print(visible(f"agent-tui: {exc}"), file=sys.stderr)
        return 1


def _scope(value: str) -> Scope:
    if value not in SCOPES:
        raise CliError(f"Invalid scope: {value}. Must be one of: {', '.join(SCOPES)}")
    return value


class _Placeholders(Mapping[str, str]):
    """The environment, with an http URL for every unset variable: entries are checked, not expanded."""

    def __getitem__(self, key: str) -> str:
        return os.environ.get(key) or "http://placeholder"

    def __iter__(self) -> Any:
        return iter(os.environ)

    def __len__(self) -> int:
        return len(os.environ)


def checked(name: str, entry: Any, place: Place) -> McpServerConfig:
    """The entry parsed as the app will parse it; CliError with the parser's sentence when it cannot be used."""
    try:
        return parse_server(name, entry, source=place.scope, source_path=str(place.path), env=_Placeholders())
    except McpConfigError as exc:
        raise CliError(str(exc).replace("the server was skipped", "nothing was written")) from None


def _write(scope: Scope, here: Path, name: str, entry: dict[str, Any]) -> Place:
    place = places(scope, here)[0]
    checked(name, entry, place)
    try:
        add_server(place, name, entry)
    except ValueError as exc:
        if isinstance(exc, SettingsWriteError):
            raise
        raise CliError(str(exc)) from None
    return place


def cmd_add(args: argparse.Namespace, here: Path) -> int:
    scope = _scope(args.scope)
    if args.transport not in TRANSPORTS:
        raise CliError(
            f"Invalid transport type: {args.transport}. Must be one of: stdio, sse, http (or streamable-http)"
        )
    transport = TRANSPORTS[args.transport]
    if not args.target:
        raise CliError("error: missing required argument 'commandOrUrl'")
    env = {}
    for item in args.env:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise CliError(
                f"Invalid environment variable format: {item}, environment variables should be added "
                "as: -e KEY1=value1 -e KEY2=value2"
            )
        env[key] = value
    headers = {}
    for item in args.header:
        key, colon, value = item.partition(":")
        if not colon or not key.strip():
            raise CliError(f'Invalid header format: "{item}". Expected format: "Header-Name: value"')
        headers[key.strip()] = value.strip()
    entry: dict[str, Any] = {"type": transport}
    if transport == "stdio":
        entry.update(command=args.target[0], args=args.target[1:], env=env)
    else:
        entry["url"] = args.target[0]
        if headers:
            entry["headers"] = headers
    place = _write(scope, here, args.name, entry)
    if transport == "stdio":
        _say(f"Added stdio MCP server {args.name} with command: {' '.join(args.target)} to {scope} config")
    else:
        _say(f"Added {transport.upper()} MCP server {args.name} with URL: {entry['url']} to {scope} config")
        if headers:
            _say("Headers: " + json.dumps(dict.fromkeys(headers, "[REDACTED]"), indent=2))
    _say(f"File modified: {place.label()}")
    return 0


def cmd_add_json(args: argparse.Namespace, here: Path) -> int:
    scope = _scope(args.scope)
    try:
        entry = json.loads(args.json)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise CliError(
            f"Invalid configuration: the JSON for {args.name} does not parse ({exc}); nothing was written."
        ) from None
    place = _write(scope, here, args.name, entry)
    transport = checked(args.name, entry, place).transport
    _say(f"Added {transport} MCP server {args.name} to {scope} config")
    _say(f"File modified: {place.label()}")
    return 0


def cmd_remove(args: argparse.Namespace, here: Path) -> int:
    wanted = [_scope(args.scope)] if args.scope else list(SCOPES)
    found = [place for place, name, _ in scoped_entries(here) if name == args.name and place.scope in wanted]
    scopes = list(dict.fromkeys(place.scope for place in found))
    if not found:
        if args.scope:
            raise CliError(f'No MCP server named "{args.name}" in {args.scope} scope')
        raise CliError(_not_found(args.name, here))
    if len(scopes) > 1:
        listed = "\n".join(f"  - {SCOPE_LABELS[p.scope]} ({p.label()})" for p in found)
        commands = "\n".join(f"  agent-tui mcp remove {args.name} -s {s}" for s in scopes)
        raise CliError(
            f'MCP server "{args.name}" exists in multiple scopes:\n{listed}\n\n'
            f"To remove from a specific scope, use:\n{commands}"
        )
    for place in found:
        remove_server(place, args.name)
    shown = args.name if args.scope else f'"{args.name}"'  # as Claude Code words it, both ways
    _say(f"Removed MCP server {shown} from {scopes[0]} config")
    for place in found:
        _say(f"File modified: {place.label()}")
    return 0


def _not_found(name: str, here: Path) -> str:
    names = sorted({n for _, n, _ in scoped_entries(here)})
    return f'No MCP server named "{name}". Configured servers: {", ".join(names) or "none"}'


def cmd_reset(args: argparse.Namespace, here: Path) -> int:
    from tui.mcp.approval import reset_choices

    reset_choices(here)
    _say("Project-scoped (.mcp.json) server approvals and rejections stored for this project have been reset.")
    _say("You will be prompted for approval next time you start agent-tui.")
    return 0


def cmd_list(args: argparse.Namespace, here: Path) -> int:
    from tui.mcp.status import configured, list_line, probe_all, status_line

    found = configured(here)
    for problem in found.problems:
        print(visible(f"agent-tui: MCP: {problem}"), file=sys.stderr)
    if not found.servers and not found.held:
        _say("No MCP servers configured. Use `agent-tui mcp add` to add a server.")
        return 0
    _say("Checking MCP server health…\n")
    statuses = probe_all(found.servers, here)
    for server in found.all():
        held = found.held.get(server.name)
        status = HELD_BACK[held] if held else status_line(*statuses[server.name])
        _say(list_line(server, status))
    return 0


def cmd_get(args: argparse.Namespace, here: Path) -> int:
    from tui.mcp.status import configured, probe_all

    found = configured(here)
    server = next((s for s in found.all() if s.name == args.name), None)
    if server is None:
        for place, name, entry in scoped_entries(here):
            if name == args.name:  # configured, but the entry cannot be used: say why
                parse_server(name, entry, source=place.scope, source_path=str(place.path))
        names = ", ".join(sorted(s.name for s in found.servers)) or "none"
        pending = " (.mcp.json servers are awaiting approval — run `agent-tui` in this directory to review them.)"
        raise CliError(
            f'No MCP server named "{args.name}". Configured servers: {names}'
            + (pending if "not approved" in found.held.values() else "")
        )
    held = found.held.get(server.name)
    status, issue = (HELD_BACK[held], "") if held else probe_all([server], here)[server.name]
    scope: Scope = server.source if server.source in SCOPES else "local"
    lines = [f"{server.name}:", f"  Scope: {SCOPE_LABELS[scope]}", f"  Status: {status}"]
    lines += [f"  Issue: {issue}"] if issue else []
    lines += [f"  Type: {server.transport}"]
    if server.transport == "stdio":
        lines += [f"  Command: {server.command}", f"  Args: {' '.join(server.args)}", "  Environment:"]
        lines += [f"    {k}={v}" for k, v in server.env.items()]
    else:
        lines += [f"  URL: {server.url}", "  Headers:"] if server.headers else [f"  URL: {server.url}"]
        lines += [f"    {k}: {v}" for k, v in server.headers.items()]
    lines += ["", f"To remove this server, run: agent-tui mcp remove {server.name} -s {scope}"]
    _say("\n".join(lines))
    return 0


def _remote(name: str, here: Path) -> McpServerConfig:
    from tui.mcp.status import configured

    server = next((s for s in configured(here).all() if s.name == name), None)
    if server is None:
        raise CliError(_not_found(name, here))
    if server.transport == "stdio":
        raise CliError(f"{name} is a stdio server; only HTTP and SSE servers sign in with OAuth.")
    return server


def cmd_login(args: argparse.Namespace, here: Path) -> int:
    import asyncio

    from tui.mcp.oauth import LOGIN_WAIT
    from tui.mcp.status import probe

    server = _remote(args.name, here)
    state = asyncio.run(probe(server, here, LOGIN_WAIT + 30, interactive=True))
    if state != "connected":
        raise CliError(f"Could not sign in to {args.name}: the server did not accept the sign-in or did not answer.")
    _say(f"Signed in to {args.name}; the tokens are kept for next time.")
    return 0


def cmd_logout(args: argparse.Namespace, here: Path) -> int:
    from tui.mcp.oauth import logout

    if not logout(_remote(args.name, here)):
        raise CliError(f"{args.name} has no stored sign-in.")
    _say(f"Signed out of {args.name}.")
    return 0


COMMANDS = {
    "add": cmd_add,
    "add-json": cmd_add_json,
    "remove": cmd_remove,
    "get": cmd_get,
    "list": cmd_list,
    "reset-project-choices": cmd_reset,
    "login": cmd_login,
    "logout": cmd_logout,
}
