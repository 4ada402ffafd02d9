"""Proxy and header settings through `agent-tui -p`: a proxy's password never shown or stored, bad values named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import Reply, Text
from tests.integration.test_providers import new_project, run_p
from tests.ports import refusing_port

PASSWORD = "s3cret-pw-77"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return new_project(tmp_path, "max_retries = 0\n")


def _dead_port() -> int:
    return refusing_port()


@pytest.mark.parametrize(
    "spelling",
    ["http://agent:{pw}@127.0.0.1:{port}", "agent:{pw}@127.0.0.1:{port}", "http://agent:p@{pw}@127.0.0.1:{port}"],
    ids=["url", "no-scheme", "raw-at-in-password"],
)
def test_a_proxy_password_is_masked_in_messages_stream_json_and_the_transcript(project, tmp_path, spelling) -> None:
    proxy = spelling.format(pw=PASSWORD, port=_dead_port())
    data = tmp_path / "data"
    with FakeAPI([Reply([Text("never")])]) as api:
        proc = run_p(
            ["hi", "--output-format", "stream-json"],
            project,
            {
                "ANTHROPIC_BASE_URL": api.base_url,
                "ANTHROPIC_API_KEY": "sk-test",
                "HTTP_PROXY": proxy,
                "XDG_DATA_HOME": str(data),
            },
        )
    assert proc.returncode == 1
    shown = "http://***@127.0.0.1:" if "://" in spelling else "***@127.0.0.1:"
    assert f"The proxy {shown}" in proc.stderr and "HTTP_PROXY" in proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["detail"].startswith(f"The proxy {shown}")
    transcripts = list(data.rglob("*.jsonl"))
    assert transcripts and shown in transcripts[0].read_text()
    for text in (proc.stderr, proc.stdout, *(t.read_text() for t in transcripts)):
        assert PASSWORD not in text and "agent:" not in text


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("HTTPS_PROXY", "http://[proxy", "HTTPS_PROXY is not a proxy URL (http://[proxy: Invalid IPv6 URL)"),
        ("https_proxy", f"http://me:{PASSWORD}@proxy:port", "https_proxy is not a proxy URL (http://***@proxy:port: "),
        ("HTTP_PROXY", "ftp://proxy:21", "HTTP_PROXY uses the ftp:// scheme (ftp://proxy:21), which cannot carry"),
        (
            "ALL_PROXY",
            f"socks5://me:{PASSWORD}@proxy:1080",
            "ALL_PROXY is a SOCKS proxy (socks5://***@proxy:1080), which needs the socksio package: pip install",
        ),
    ],
)
def test_a_proxy_url_that_cannot_work_is_one_sentence_naming_the_variable(project, variable, value, says) -> None:
    pytest.importorskip("httpx")
    if "socks" in value and __import__("importlib.util").util.find_spec("socksio") is not None:
        pytest.skip("socksio is installed here: a socks5 proxy works")
    proc = run_p(
        ["hi"], project, {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "ANTHROPIC_API_KEY": "sk-test", variable: value}
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"agent-tui: {says}"), proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and PASSWORD not in proc.stderr
    assert "Internal error" not in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("headers", "says"),
    [
        ("X-Team\x01: a", "ANTHROPIC_CUSTOM_HEADERS line 1: the header name `X-Team␁` holds `␁`, which a header name"),
        ("X-Ok: 1\nX-\x1b[31m: 2", "ANTHROPIC_CUSTOM_HEADERS line 2: the header name `X-␛[31m` holds `␛`"),
        ("X-Key: sk-\x7fsecret", "ANTHROPIC_CUSTOM_HEADERS line 1: the value of X-Key holds a control character"),
    ],
)
def test_a_custom_header_with_a_control_byte_is_one_sentence_at_start(project, headers, says) -> None:
    with FakeAPI([Reply([Text("never")])]) as api:
        proc = run_p(
            ["hi"],
            project,
            {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_CUSTOM_HEADERS": headers},
        )
        assert api.requests == []
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"agent-tui: {says}"), proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "secret" not in proc.stderr
    assert "connection" not in proc.stderr and "Traceback" not in proc.stderr
