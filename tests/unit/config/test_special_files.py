"""FIFO-, socket- and device-safe reads: refused at once with one sentence, never a hang."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from tui.config.special_files import (
    SpecialFileError,
    check_regular,
    is_regular_file,
    read_regular_bytes,
    read_regular_text,
)


def test_regular_file_reads(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("héllo\n")
    assert read_regular_text(path) == "héllo\n"
    assert read_regular_bytes(path, limit=2) == b"h\xc3"
    assert is_regular_file(path)
    check_regular(path)


@pytest.mark.timeout(10)
def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(SpecialFileError, match="is a FIFO"):
        read_regular_bytes(fifo)
    with pytest.raises(SpecialFileError, match="FIFO"):
        check_regular(fifo)
    assert not is_regular_file(fifo)


@pytest.mark.timeout(10)
def test_devices_and_sockets_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SpecialFileError, match="character device"):
        read_regular_bytes("/dev/zero")
    sock_path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock_path))
    try:
        with pytest.raises(SpecialFileError, match="socket"):
            check_regular(sock_path)
        with pytest.raises(OSError):  # a socket cannot even be opened: still an OSError, never a hang
            read_regular_bytes(sock_path)
    finally:
        server.close()


def test_directory_and_missing(tmp_path: Path) -> None:
    with pytest.raises(SpecialFileError, match="directory"):
        read_regular_bytes(tmp_path)
    with pytest.raises(FileNotFoundError):
        read_regular_bytes(tmp_path / "nope")
