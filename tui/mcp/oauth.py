"""OAuth for remote MCP servers, on the SDK's `OAuthClientProvider` (discovery, registration, PKCE, refresh).

What agent-tui adds: where tokens live (one file per server and URL under the user's data
dir, 0600 in a 0700 folder, as Claude Code keeps them per endpoint), and the browser step:
a loopback listener for the redirect, the link opened in a browser when one can be run
(never a console browser, which would take the terminal) and always shown as a sentence.
Imported only when an HTTP or SSE server connects.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import socket
import sys
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, OAuthFlowError
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from pydantic import AnyUrl

from tui.config.bounded_read import load_json_file
from tui.config.paths import user_data_dir
from tui.config.rule_files import write_text_atomic
from tui.mcp.config import McpServerConfig

#: seconds the loopback listener waits for the browser to come back
LOGIN_WAIT = 300.0
#: browsers that draw in the terminal: never started under the app
CONSOLE_BROWSERS = {"www-browser", "links", "elinks", "lynx", "w3m", "links2"}
#: called with a sentence that follows the server's name ("<name> needs you to sign in: …")
Announce = Callable[[str], None]
SIGN_IN = "needs you to sign in"
PAGE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nConnection: close\r\n\r\n"
    b"<!doctype html><title>agent-tui</title><p>%s</p>"
)


class NeedsLogin(OAuthFlowError):
    """The server wants a sign-in and this connection may not start one (a health check)."""


def token_path(config: McpServerConfig) -> Path:
    """`<data dir>/mcp-oauth/<server>-<hash of the URL>.json`: tokens are per endpoint."""
    digest = hashlib.sha256(config.url.encode()).hexdigest()[:16]
    return user_data_dir() / "mcp-oauth" / f"{re.sub(r'[^A-Za-z0-9_-]', '_', config.name)}-{digest}.json"


class TokenFile:
    """The SDK's TokenStorage in one JSON file only the user can read."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> dict[str, Any]:
        try:
            data = load_json_file(self.path)
        except (OSError, ValueError):
            return {}  # missing or damaged: sign in again
        return data if isinstance(data, dict) else {}

    def _write(self, key: str, value: dict[str, Any]) -> None:
        data = {**self._read(), key: value}
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.path.parent, 0o700)
        write_text_atomic(self.path, json.dumps(data, indent=2) + "\n")  # a 0600 temporary file, renamed
        os.chmod(self.path, 0o600)

    async def get_tokens(self) -> OAuthToken | None:
        raw = self._read().get("tokens")
        return OAuthToken.model_validate(raw) if isinstance(raw, dict) else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self._write("tokens", tokens.model_dump(mode="json", exclude_none=True))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        raw = self._read().get("client")
        return OAuthClientInformationFull.model_validate(raw) if isinstance(raw, dict) else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._write("client", client_info.model_dump(mode="json", exclude_none=True))

    def redirect_port(self) -> int | None:
        """The loopback port the stored client registration was made for."""
        client = self._read().get("client")
        uris = client.get("redirect_uris") if isinstance(client, dict) else None
        port = urlparse(str(uris[0])).port if isinstance(uris, list) and uris else None
        return port


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def open_browser(url: str) -> bool:
    """Open `url` in `$BROWSER` or a graphical browser; False when there is none to run.

    `$BROWSER` is read now, not when `webbrowser` first looked (it keeps its first answer).
    """
    chosen = [b for b in os.environ.get("BROWSER", "").split(os.pathsep) if b.strip()]
    browser = None
    for using in [*chosen, None]:
        try:
            browser = webbrowser.get(using)
            break
        except webbrowser.Error:
            continue
    if browser is None or (not chosen and getattr(browser, "name", "") in CONSOLE_BROWSERS):
        return False
    try:
        return bool(browser.open(url))
    except OSError:
        return False


class BrowserLogin:
    """The SDK's redirect and callback handlers: a loopback listener, the browser, the code it brings back."""

    def __init__(self, server: str, port: int, announce: Announce, interactive: bool = True) -> None:
        self.server, self.port, self.announce, self.interactive = server, port, announce, interactive
        self._listener: asyncio.Server | None = None
        self._result: asyncio.Future[AuthorizationCodeResult] | None = None

    async def redirect(self, url: str) -> None:
        """Listen first (the browser may be quick), then open the link and say where it is."""
        if not self.interactive:
            raise NeedsLogin(f"the MCP server {self.server} {SIGN_IN}: run `agent-tui mcp login {self.server}`")
        self._result = asyncio.get_running_loop().create_future()
        self._listener = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        opened = await asyncio.to_thread(open_browser, url)
        self.announce(f"{SIGN_IN}: " + (f"a browser was opened at {url}" if opened else f"open {url} in a browser"))

    async def callback(self) -> AuthorizationCodeResult:
        """The code and state the browser brought back to the listener."""
        assert self._result is not None and self._listener is not None
        try:
            return await asyncio.wait_for(self._result, LOGIN_WAIT)
        except TimeoutError:
            raise OAuthFlowError(f"no sign-in came back within {int(LOGIN_WAIT)} s") from None
        finally:
            self._listener.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        target = urlparse(request.split(" ")[1] if " " in request else "/")
        query = {k: v[0] for k, v in parse_qs(target.query).items()}
        waiting = (
            self._result
            if self._result is not None and not self._result.done() and target.path == "/callback"
            else None
        )
        if waiting is not None and "error" in query:
            waiting.set_exception(
                OAuthFlowError(f"sign-in refused: {query.get('error_description') or query['error']}")
            )
            message = b"Sign-in refused. You can close this tab."
        elif waiting is not None and "code" in query:
            waiting.set_result(
                AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))
            )
            message = b"Signed in to the MCP server. You can close this tab and go back to agent-tui."
        else:
            message = b"Nothing to do here."
        writer.write(PAGE % message)
        await writer.drain()
        writer.close()


def auth_for(
    config: McpServerConfig, *, announce: Announce | None = None, interactive: bool = True
) -> OAuthClientProvider | None:
    """The SDK's OAuth provider for a remote server (None for stdio); unused until the server answers 401."""
    if config.transport == "stdio":
        return None
    storage = TokenFile(token_path(config))
    port = storage.redirect_port() or free_port()
    say = announce or (lambda sentence: print(f"{config.name} {sentence}", file=sys.stderr, flush=True))
    login = BrowserLogin(config.name, port, say, interactive)
    metadata = OAuthClientMetadata(
        client_name="agent-tui",
        redirect_uris=[AnyUrl(f"http://127.0.0.1:{port}/callback")],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    return OAuthClientProvider(
        server_url=config.url,
        client_metadata=metadata,
        storage=storage,
        redirect_handler=login.redirect,
        callback_handler=login.callback,
    )


def logout(config: McpServerConfig) -> bool:
    """Forget the stored tokens of a server; False when there were none."""
    path = token_path(config)
    if not path.exists():
        return False
    path.unlink()
    return True
