"""WebFetch: fetch a URL, turn HTML into Markdown, and answer the model's prompt over it with a small model.

As Claude Code: http is upgraded to https (loopback hosts excepted: a local server rarely
speaks TLS), redirects within the host are followed and a redirect to another host is
returned to the model instead, bodies stop at MAX_BYTES, and a page is cached for
CACHE_SECONDS. The answer comes from `SessionState.side_query` (the session's small fast
model); without one (the offline model) a deterministic summary of the page is returned.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlparse, urlunparse

from tui.text.wording import plural
from tui.tools.base import Tool, ToolContext, ToolError, ToolResult
from tui.tools.inputs import get_str

MAX_BYTES = 10 * 1024 * 1024
#: most Markdown characters handed to the small model
MAX_MARKDOWN_CHARS = 100_000
CACHE_SECONDS = 15 * 60
MAX_REDIRECTS = 10
TIMEOUT_SECONDS = 30.0
USER_AGENT = "agent-tui/0.1 (WebFetch; +https://github.com/)"
LOOPBACK = ("localhost", "127.0.0.1", "::1")
TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml", "application/javascript")
META_CHARSET = re.compile(rb"""<meta[^>]+charset=["']?([A-Za-z0-9_\-:.]+)""", re.IGNORECASE)
PROMPT_TEMPLATE = (
    "Web page content ({url}):\n---\n{content}\n---\n\n{prompt}\n\n"
    "Answer from the content above only, concisely. Quote at most 125 characters of it verbatim."
)


@dataclass
class Page:
    """What a fetch got: the final URL, status, size and the page as Markdown (or plain text)."""

    url: str
    status: int
    reason: str
    content_type: str
    size: int
    markdown: str
    truncated: bool = False


@dataclass
class Redirect:
    """A redirect to another host, returned to the model instead of followed."""

    url: str
    target: str
    status: int
    reason: str


_cache: dict[str, tuple[float, Page]] = {}
_cache_lock = threading.Lock()


def upgrade_url(url: str) -> str:
    """`url` checked (http/https with a host) and upgraded to https; a ToolError naming the problem."""
    parts = urlparse(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ToolError(f"Invalid URL {url!r}: give a full http:// or https:// URL.")
    if parts.scheme == "http" and parts.hostname not in LOOPBACK and not parts.hostname.startswith("127."):
        parts = parts._replace(scheme="https")
    return urlunparse(parts)


def _same_host(a: str, b: str) -> bool:
    def strip(host: str | None) -> str:
        return (host or "").lower().removeprefix("www.")

    return strip(urlparse(a).hostname) == strip(urlparse(b).hostname)


def decode_body(data: bytes, content_type: str) -> str:
    """The body as text: the header's charset, else a `<meta charset>`, else UTF-8 (bad bytes replaced)."""
    match = re.search(r"charset=([\w\-:.]+)", content_type, re.IGNORECASE)
    charset = match.group(1) if match else None
    if charset is None and (meta := META_CHARSET.search(data[:4096])):
        charset = meta.group(1).decode("ascii")
    try:
        return data.decode(charset or "utf-8", errors="replace")
    except LookupError:  # an unknown charset name
        return data.decode("utf-8", errors="replace")


def html_to_markdown(html: str) -> str:
    """HTML as Markdown (html2text, imported on first use)."""
    import html2text

    converter = html2text.HTML2Text(bodywidth=0)
    converter.ignore_images = True
    return converter.handle(html).strip()


def fetch(url: str, cancel: threading.Event | None = None) -> Page | Redirect:
    """GET `url` (already upgraded), following same-host redirects; a ToolError for what cannot be fetched."""
    import httpx  # a declared dependency; imported on the first fetch only

    headers = {"User-Agent": USER_AGENT, "Accept": "text/markdown, text/html;q=0.9, */*;q=0.8"}
    with httpx.Client(timeout=TIMEOUT_SECONDS, headers=headers, follow_redirects=False) as client:
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            with client.stream("GET", current) as response:
                if response.is_redirect and "location" in response.headers:
                    target = urljoin(current, response.headers["location"])
                    if not _same_host(current, target):
                        return Redirect(current, target, response.status_code, response.reason_phrase)
                    current = target
                    continue
                return _read(current, response, cancel)
    raise ToolError(f"Too many redirects (more than {MAX_REDIRECTS}) fetching {url}.")


def _read(url: str, response: Any, cancel: threading.Event | None) -> Page:
    content_type = response.headers.get("content-type", "")
    mime = content_type.split(";")[0].strip().lower()
    if mime and not mime.startswith(TEXT_TYPES):
        raise ToolError(f"{url} is {mime}, not a text page; WebFetch reads HTML, text and JSON only.")
    chunks: list[bytes] = []
    size, truncated = 0, False
    for chunk in response.iter_bytes():
        if cancel is not None and cancel.is_set():
            from tui.tools.base import ToolInterrupted

            raise ToolInterrupted()
        chunks.append(chunk)
        size += len(chunk)
        if size >= MAX_BYTES:
            truncated = True
            break
    data = b"".join(chunks)[:MAX_BYTES]
    text = decode_body(data, content_type)
    is_html = "html" in mime or (not mime and text.lstrip()[:15].lower().startswith(("<!doctype html", "<html")))
    markdown = html_to_markdown(text) if is_html else text
    return Page(
        str(url), response.status_code, response.reason_phrase, mime or "unknown", len(data), markdown, truncated
    )


def cached_fetch(
    url: str, cancel: threading.Event | None = None, now: float | None = None
) -> tuple[Page | Redirect, bool]:
    """`fetch` through the 15-minute cache; the flag says whether the page came from it."""
    now = time.monotonic() if now is None else now
    with _cache_lock:
        hit = _cache.get(url)
        if hit is not None and now - hit[0] < CACHE_SECONDS:
            return hit[1], True
    result = fetch(url, cancel)
    if isinstance(result, Page) and result.status < 400:
        with _cache_lock:
            _cache[url] = (now, result)
    return result, False


def offline_summary(page: Page, prompt: str) -> str:
    """With no model to ask: the page's title, headings and opening, always the same for the same page."""
    lines = [ln.strip() for ln in page.markdown.splitlines() if ln.strip()]
    headings = [ln.lstrip("#").strip() for ln in lines if ln.startswith("#")][:10]
    body = " ".join(ln for ln in lines if not ln.startswith("#"))[:1500]
    parts = [f"(offline: no model to answer {prompt!r}; a summary of the page instead)"]
    if headings:
        parts.append("Headings: " + " · ".join(headings))
    parts.append(f"Opening: {body}" if body else "The page has no text.")
    return "\n".join(parts)


class WebFetchTool(Tool):
    name = "WebFetch"
    description = (
        "Fetches a URL (http becomes https), converts it to Markdown and returns a small model's answer to "
        "`prompt` about it. Cached 15 min. A redirect to another host is returned: fetch that URL yourself."
    )
    input_schema = {
        "type": "object",
        "properties": {"url": {"type": "string", "format": "uri"}, "prompt": {"type": "string"}},
        "required": ["url", "prompt"],
        "additionalProperties": False,
    }
    kind = "read"
    read_only = False  # it reaches the network: asks unless a WebFetch(domain:…) rule allows it

    def is_concurrency_safe(self, tool_input: dict[str, Any]) -> bool:
        return True

    def permission_target(self, tool_input: dict[str, Any], ctx: ToolContext) -> str | None:
        url = tool_input.get("url")
        return url if isinstance(url, str) else None

    def label(self, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        url = tool_input.get("url")
        return f"WebFetch {url}" if isinstance(url, str) else "WebFetch"

    def preview(self, tool_input: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        return {"kind": "text", "text": f"Fetch {tool_input.get('url')}\nand ask: {tool_input.get('prompt')}"}

    def check_input(self, tool_input: dict[str, Any], ctx: ToolContext) -> None:
        upgrade_url(get_str(tool_input, "url", allow_empty=False) or "")

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        url = upgrade_url(get_str(tool_input, "url", allow_empty=False) or "")
        prompt = get_str(tool_input, "prompt", allow_empty=False) or ""
        started = time.monotonic()
        try:
            result, from_cache = cached_fetch(url, ctx.cancel)
        except ToolError:
            raise
        except Exception as exc:  # httpx errors: DNS, TLS, refused, timeouts
            raise ToolError(f"Could not fetch {url}: {type(exc).__name__}: {exc}".rstrip(": ")) from None
        if isinstance(result, Redirect):
            return ToolResult(
                f"REDIRECT DETECTED: the URL redirects to a different host.\n\nOriginal URL: {result.url}\n"
                f"Redirect URL: {result.target}\nStatus: {result.status} {result.reason}\n\n"
                f"To read it, call WebFetch again with url: {result.target!r} and the same prompt.",
                meta={"redirect": result.target, "code": result.status},
            )
        page = result
        content = page.markdown[:MAX_MARKDOWN_CHARS]
        notes = []
        if page.truncated:
            notes.append(f"[The page is larger than {MAX_BYTES // (1024 * 1024)} MB; only its start was read.]")
        if len(page.markdown) > MAX_MARKDOWN_CHARS:
            notes.append(f"[The page's text was cut to {MAX_MARKDOWN_CHARS:,} characters.]")
        ask = ctx.state.side_query
        if ask is None:
            answer = offline_summary(page, prompt)
        else:
            try:
                answer = ask(PROMPT_TEMPLATE.format(url=page.url, content=content, prompt=prompt))
            except Exception as exc:
                raise ToolError(f"Fetched {page.url}, but the model could not answer over it: {exc}") from None
        status = f"{page.status} {page.reason}".strip()
        head = f"{page.url} · {status} · {plural(page.size, 'byte')}" + (" · cached" if from_cache else "")
        return ToolResult(
            "\n".join([head, *notes, "", answer]),
            is_error=page.status >= 400,
            meta={
                "bytes": page.size,
                "code": page.status,
                "url": page.url,
                "duration_ms": int((time.monotonic() - started) * 1000),
            },
        )
