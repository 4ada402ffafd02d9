"""WebFetch against a real loopback HTTP server: HTML to Markdown, redirects, a 20 MB body, other charsets."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tui.tools import web_fetch
from tui.tools.base import ToolContext, ToolError
from tui.tools.web_fetch import MAX_BYTES, WebFetchTool, upgrade_url

PAGE = (
    b"<!doctype html><html><head><title>Demo</title><style>p{color:red}</style>"
    b"<script>var secret = 1;</script></head><body><h1>Release notes</h1>"
    b"<p>Version <b>2.0</b> adds <a href='/docs'>the docs</a>.</p><ul><li>fast</li><li>small</li></ul></body></html>"
)


class Handler(BaseHTTPRequestHandler):
    hits: dict[str, int] = {}

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def _send(self, status: int, body: bytes, content_type: str = "text/html; charset=utf-8", **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in headers.items():
            self.send_header(key.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        Handler.hits[self.path] = Handler.hits.get(self.path, 0) + 1
        port = self.server.server_address[1]
        if self.path in ("/page.html", "/cached.html"):
            self._send(200, PAGE)
        elif self.path == "/moved":
            self._send(301, b"", Location="/page.html")
        elif self.path == "/away":
            self._send(302, b"", Location=f"http://localhost:{port}/page.html")
        elif self.path == "/latin1":
            self._send(200, "<p>Caf\u00e9 cr\u00e8me</p>".encode("iso-8859-1"), "text/html; charset=iso-8859-1")
        elif self.path == "/meta":
            self._send(
                200,
                b"<html><head><meta charset='windows-1252'></head><body><p>\x93quoted\x94</p></body></html>",
                "text/html",
            )
        elif self.path == "/image.png":
            self._send(200, b"\x89PNG\r\n", "image/png")
        elif self.path == "/huge":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(20 * 1024 * 1024))
            self.end_headers()
            chunk = b"x" * 65536
            try:
                for _ in range(20 * 16):
                    self.wfile.write(chunk)
            except OSError:  # the client stopped reading at the cap
                pass
        else:
            self._send(404, b"<h1>Not found</h1>")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


fetch = WebFetchTool()


def test_html_becomes_markdown_and_the_offline_summary_is_deterministic(server: str, ctx: ToolContext) -> None:
    result = fetch.run({"url": f"{server}/page.html", "prompt": "What is new?"}, ctx)
    text = result.text()
    assert "200 OK" in text and not result.is_error
    assert "Headings: Release notes" in text and "Version **2.0** adds [the docs](/docs)" in text
    assert "secret" not in text and "color:red" not in text  # scripts and styles are not content
    assert (
        text.split("\n", 1)[1]
        == fetch.run({"url": f"{server}/page.html", "prompt": "What is new?"}, ctx).text().split("\n", 1)[1]
    )


def test_the_small_model_answers_the_prompt_over_the_page(server: str, ctx: ToolContext) -> None:
    asked: list[str] = []
    ctx.state.side_query = lambda prompt: asked.append(prompt) or "Version 2.0 adds docs."
    text = fetch.run({"url": f"{server}/page.html", "prompt": "What is new?"}, ctx).text()
    assert text.endswith("\n\nVersion 2.0 adds docs.")
    assert "# Release notes" in asked[0] and "What is new?" in asked[0]


def test_a_page_is_cached_for_fifteen_minutes(server: str, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"{server}/cached.html"
    first = fetch.run({"url": url, "prompt": "x"}, ctx).text()
    second = fetch.run({"url": url, "prompt": "y"}, ctx).text()
    assert Handler.hits["/cached.html"] == 1 and "· cached" not in first and "· cached" in second
    clock = web_fetch.time.monotonic() + web_fetch.CACHE_SECONDS + 1
    monkeypatch.setattr(web_fetch.time, "monotonic", lambda: clock)
    fetch.run({"url": url, "prompt": "z"}, ctx)
    assert Handler.hits["/cached.html"] == 2


def test_same_host_redirects_are_followed_and_other_hosts_returned(server: str, ctx: ToolContext) -> None:
    assert "Release notes" in fetch.run({"url": f"{server}/moved", "prompt": "x"}, ctx).text()
    away = fetch.run({"url": f"{server}/away", "prompt": "x"}, ctx)
    target = f"http://localhost:{server.rsplit(':', 1)[1]}/page.html"
    assert "REDIRECT DETECTED" in away.text() and f"Redirect URL: {target}" in away.text()
    assert away.meta["redirect"] == target and "Status: 302" in away.text()


def test_a_twenty_megabyte_body_stops_at_ten(server: str, ctx: ToolContext) -> None:
    result = fetch.run({"url": f"{server}/huge", "prompt": "x"}, ctx)
    assert result.meta["bytes"] == MAX_BYTES
    assert "larger than 10 MB; only its start was read" in result.text()


def test_other_charsets_are_decoded(server: str, ctx: ToolContext) -> None:
    assert "Café crème" in fetch.run({"url": f"{server}/latin1", "prompt": "x"}, ctx).text()
    assert "\u201cquoted\u201d" in fetch.run({"url": f"{server}/meta", "prompt": "x"}, ctx).text()


def test_what_cannot_be_read_is_an_error_the_model_can_act_on(server: str, ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="image/png, not a text page"):
        fetch.run({"url": f"{server}/image.png", "prompt": "x"}, ctx)
    assert fetch.run({"url": f"{server}/missing", "prompt": "x"}, ctx).is_error
    with pytest.raises(ToolError, match="Invalid URL"):
        fetch.run({"url": "file:///etc/passwd", "prompt": "x"}, ctx)
    with pytest.raises(ToolError, match="Could not fetch"):
        fetch.run({"url": "http://127.0.0.1:9/", "prompt": "x"}, ctx)


def test_http_is_upgraded_except_on_loopback() -> None:
    assert upgrade_url("http://example.com/a?b=1") == "https://example.com/a?b=1"
    assert upgrade_url("http://127.0.0.1:8000/x") == "http://127.0.0.1:8000/x"
    assert upgrade_url("https://example.com") == "https://example.com"
