"""The ACP agent's methods: initialize, session/new, session/load, session/list, prompts, cancel, modes.

Each session is an AgentSession built as `-p` builds one (settings and flags for its folder, the
client's MCP servers added as `--mcp-config` servers are), with a SessionLink to the client. The
sandbox is per process: it is set up for the first session's folder, and a later session in a
folder with other sandbox settings is refused rather than run under the wrong one.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as _dt
import re
import threading
from pathlib import Path
from typing import Any, TextIO

from acp import PROTOCOL_VERSION
from acp.helpers import update_available_commands
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    AvailableCommand,
    AvailableCommandInput,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SetSessionModeResponse,
    UnstructuredCommandInput,
)

from tui import __version__
from tui.text.sanitize import visible

from . import updates
from .link import SessionLink, error

#: the methods agent-tui answers (others get the SDK's "Method not found")
METHODS = {
    "initialize",
    "authenticate",
    "session/new",
    "session/load",
    "session/list",
    "session/set_mode",
    "session/prompt",
    "session/cancel",
}


def mcp_configs(servers: list[Any]) -> tuple[list[Any], list[str]]:
    """The client's MCP servers as McpServerConfig (as `--mcp-config` ones), and a sentence per one left out."""
    from tui.mcp.config import McpServerConfig

    configs, problems = [], []
    for server in servers:
        name = re.sub(r"[^A-Za-z0-9_-]", "_", str(getattr(server, "name", "") or "server"))
        if hasattr(server, "command"):
            env = {e.name: e.value for e in server.env or ()}
            configs.append(
                McpServerConfig(
                    name,
                    "stdio",
                    command=server.command,
                    args=tuple(server.args or ()),
                    env=env,
                    source="cli",
                    source_path="the ACP client",
                )
            )
        elif (kind := getattr(server, "type", None)) in ("http", "sse") and getattr(server, "url", None):
            headers = {h.name: h.value for h in server.headers or ()}
            configs.append(
                McpServerConfig(name, kind, url=server.url, headers=headers, source="cli", source_path="the ACP client")
            )
        else:
            problems.append(
                f"MCP server {name} from the client was left out: agent-tui takes stdio, http and sse servers."
            )
    return configs, problems


class AcpAgent:
    """What `agent-tui acp` answers; the SDK's router calls these with the parameters already typed."""

    def __init__(self, args: argparse.Namespace, err: TextIO) -> None:
        self.args = args
        self.err = err
        self.client: Any = None
        self.links: dict[str, SessionLink] = {}
        self.files_through_client = False
        self.sandbox_project: Path | None = None
        self._lock = threading.Lock()

    def on_connect(self, conn: Any) -> None:
        self.client = conn

    def say(self, sentence: str) -> None:
        try:
            self.err.write(visible(f"agent-tui acp: {sentence}") + "\n")
            self.err.flush()
        except (OSError, ValueError):
            pass

    # --- the connection ------------------------------------------------------------------

    async def initialize(
        self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None, **kwargs: Any
    ) -> InitializeResponse:
        fs = getattr(client_capabilities, "fs", None)
        # both or neither: reading the editor's buffer but writing the disk would leave the two apart
        self.files_through_client = bool(fs and fs.read_text_file and fs.write_text_file)
        capabilities = AgentCapabilities(
            load_session=True,
            prompt_capabilities=PromptCapabilities(image=False, audio=False, embedded_context=True),
            mcp_capabilities=McpCapabilities(http=True, sse=True),
            session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
        )
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=capabilities,
            auth_methods=[],
            agent_info=Implementation(name="agent-tui", title="agent-tui", version=__version__),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse:
        return AuthenticateResponse()  # no methods are offered: credentials come from the environment and settings

    # --- sessions ---------------------------------------------------------------------------

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any) -> NewSessionResponse:
        link = await asyncio.to_thread(self._open, cwd, mcp_servers or [], None)
        self._start(link)
        return NewSessionResponse(session_id=link.id, modes=link.modes())

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse:
        link = self.links.get(session_id)
        if link is not None and link.turn is not None:
            raise error(
                f"Session {session_id} is answering a prompt in this process; load it when the turn ends.", -32600
            )
        if link is None:
            link = await asyncio.to_thread(self._open, cwd, mcp_servers or [], session_id)
            self._start(link)
        session = link.session
        resolve = session.tool_context("").resolve
        for update in updates.history(list(session.messages), session.dispatcher.tools, resolve):
            await link._send(update)  # the whole conversation before the answer, as the protocol asks
        return LoadSessionResponse(modes=link.modes())

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        from tui.agent.history.resume import list_sessions, sessions_base
        from tui.agent.options import AgentOptions

        project = Path(cwd or Path.cwd()).resolve()
        found = await asyncio.to_thread(list_sessions, project, sessions_base(AgentOptions(project_dir=project)))
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=s.id,
                    cwd=str(project),
                    title=s.first_prompt[:80] or None,
                    updated_at=_dt.datetime.fromtimestamp(s.modified, _dt.UTC).isoformat(),
                )
                for s in found
            ]
        )

    async def set_session_mode(self, mode_id: str, session_id: str, **kwargs: Any) -> SetSessionModeResponse:
        self._link(session_id).set_mode(mode_id)
        return SetSessionModeResponse()

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        return await self._link(session_id).prompt(prompt)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        link = self.links.get(session_id)
        if link is None:  # a notification: nothing can be answered, so it is said on stderr
            self.say(f"session/cancel names no session of this process ({session_id!r}); nothing was cancelled.")
            return
        link.cancel()

    def close(self) -> None:
        """End every session (after the client left, or on a signal)."""
        for link in list(self.links.values()):
            link.close()
        self.links.clear()

    # --- helpers ------------------------------------------------------------------------------

    def _link(self, session_id: str) -> SessionLink:
        link = self.links.get(session_id)
        if link is None:
            raise error(
                f"No session {session_id!r} in this agent-tui process: create one with session/new, or load "
                "a saved one with session/load.",
                -32602,
                sessionId=session_id,
            )
        return link

    def _start(self, link: SessionLink) -> None:
        self.links[link.id] = link
        link.start(asyncio.get_running_loop())
        commands = [
            AvailableCommand(
                name=c.name,
                description=c.description or f"/{c.name} ({c.kind})",
                input=AvailableCommandInput(root=UnstructuredCommandInput(hint=c.argument_hint))
                if c.argument_hint
                else None,
            )
            for c in link.session.catalog.commands.values()
        ]
        if commands:
            link.post(update_available_commands(commands))

    def _open(self, cwd: str, servers: list[Any], resume: str | None) -> SessionLink:
        """Build the session for `cwd` (on a worker thread: settings are read from disk)."""
        from tui.agent.session import AgentSession
        from tui.cli.main import options_from_args

        folder = Path(cwd)
        if not folder.is_absolute():
            raise error(f"The session's cwd must be an absolute path; got {cwd!r}.", -32602)
        if not folder.is_dir():
            raise error(f"The folder {cwd} does not exist (or is not a folder).", -32602)
        args = argparse.Namespace(**vars(self.args))
        args.cwd, args.print_mode = folder, True  # no dialog: project MCP servers of a trusted folder run, as in -p
        try:
            with self._lock:
                first = self.sandbox_project is None
                options, problems = options_from_args(args, sandbox=first)
                if first:
                    self.sandbox_project = options.project_dir
                else:
                    self._same_sandbox(options.project_dir, args)
        except (OSError, ValueError) as exc:
            raise error(str(exc), -32602) from None
        configs, left_out = mcp_configs(servers)
        if configs:
            names = {c.name for c in configs}
            options.mcp_servers = [s for s in options.mcp_servers if s.name not in names] + configs
        for problem in [*problems, *left_out]:
            self.say(problem)
        options.interactive = True  # gated calls ask the client
        options.front_end = "acp"
        session = AgentSession(options)
        if session.offline and not options.offline:
            self.say("no ANTHROPIC_API_KEY set; using the offline demo model (--offline to silence).")
        if resume is not None:
            try:
                loaded = session.resume(resume)
            except (LookupError, RuntimeError) as exc:
                session.close()
                raise error(str(exc), -32602, sessionId=resume) from None
            for sentence in [*loaded.warnings, *loaded.notes]:
                self.say(sentence)
        return SessionLink(
            resume or session.session_id,
            session,
            self.client,
            files_through_client=self.files_through_client,
            err=self.err,
        )

    def _same_sandbox(self, project: Path, args: argparse.Namespace) -> None:
        """Refuse a folder whose sandbox settings differ from the ones this process's sandbox was set up with."""
        from tui.config.settings import load_settings
        from tui.sandbox.runtime import current

        if project == self.sandbox_project:
            return
        wanted = load_settings(project, extra=getattr(args, "settings", None)).settings.sandbox
        if wanted != current().config:
            raise error(
                f"This agent-tui acp process runs Bash in the sandbox set up for {self.sandbox_project}, and "
                f"{project} has other sandbox settings; start another `agent-tui acp` for it.",
                -32602,
            )
