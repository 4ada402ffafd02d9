"""The sandbox's parts on their own: the seccomp filter in a real child, the Seatbelt text, host matching, reports."""

from __future__ import annotations

import os
import platform
from pathlib import Path

import pytest

from tui.sandbox import landlock, plan, report, seatbelt, seccomp
from tui.sandbox.proxy import host_allowed


@pytest.mark.skipif(not seccomp.supported(), reason="no seccomp filter for this machine")
def test_seccomp_filter_in_a_real_child() -> None:
    """After the filter: unix sockets and new namespaces are refused, socketpair and TCP sockets are not."""
    import ctypes
    import socket

    program = seccomp.program()
    libc = landlock.libc()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            libc.prctl(landlock.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
            seccomp.install(libc, program)
            try:
                socket.socket(socket.AF_UNIX)
                code |= 1
            except PermissionError:
                pass
            socket.socketpair()[0].close()
            socket.socket(socket.AF_INET).close()
            if libc.unshare(0x10000000) == 0:  # CLONE_NEWUSER
                code |= 2
            if ctypes.get_errno() != 1:
                code |= 4
        except BaseException:
            code |= 8
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_seccomp_program_shape() -> None:
    for machine in seccomp.ARCHES:
        code = seccomp.program(machine)
        assert len(code) % 8 == 0 and 10 < len(code) // 8 < 64
        assert code[:8] == bytes.fromhex("2000000004000000")  # load the arch first


def test_seatbelt_profile_text() -> None:
    text = seatbelt.profile(
        ["/Users/me/proj", "/tmp/run"], ["/Users/me/proj/.git/hooks", '/Users/me/odd "name"'], ["/Users/me/.ssh"], None
    )
    lines = text.splitlines()
    assert lines[:2] == ["(version 1)", "(deny default)"]
    assert '(deny file-read* (subpath "/Users/me/.ssh"))' in lines
    write = next(i for i, line in enumerate(lines) if line.startswith("(allow file-write*"))
    deny = next(i for i, line in enumerate(lines) if line.startswith("(deny file-write*"))
    assert '(subpath "/Users/me/proj")' in lines[write] and '(literal "/dev/null")' in lines[write]
    assert deny > write and '(subpath "/Users/me/odd \\"name\\"")' in lines[deny]  # later rules win; quotes escaped
    assert "network-outbound" not in text
    assert '(allow network-outbound (remote ip "localhost:3128"))' in seatbelt.profile([], [], [], 3128)
    assert seatbelt.command("P", ["/bin/bash", "-c", "x"]) == [
        "/usr/bin/sandbox-exec",
        "-p",
        "P",
        "/bin/bash",
        "-c",
        "x",
    ]


@pytest.mark.parametrize(
    ("host", "port", "ok"),
    [
        ("pypi.org", 443, True),
        ("PyPI.org.", 443, True),
        ("evil-pypi.org", 443, False),
        ("files.pythonhosted.org", 443, True),
        ("pythonhosted.org", 443, False),
        ("api.github.com", 8443, True),
        ("api.github.com", 443, False),
    ],
)
def test_proxy_host_matching(host: str, port: int, ok: bool) -> None:
    assert host_allowed(host, port, ["pypi.org", "*.pythonhosted.org", "api.github.com:8443"]) is ok


def test_report_names_what_the_sandbox_refused(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / ".git" / "hooks").mkdir(parents=True)
    ssh = tmp_path / "home" / ".ssh"
    ssh.mkdir(parents=True)
    the_plan = plan.build(str(proj), str(tmp_path / "run"), [], [str(ssh)], abi=7, empty_file="")
    output = "\n".join(
        [
            "/bin/bash: line 1: /etc/motd: Permission denied",
            "touch: cannot touch '.git/hooks/pre-commit': Read-only file system",
            f"cat: {ssh}/id_rsa: Permission denied",
            "PermissionError: [Errno 13] Permission denied: 'inside.txt'",  # inside the project: not the sandbox
            "mkdir: cannot create directory ‘/opt/x’: Permission denied",
        ]
    )
    found = report.denied_paths(output, str(proj), the_plan)
    assert found == [
        "writing /etc/motd (outside the writable folders)",
        f"writing {proj}/.git/hooks/pre-commit (a protected path)",
        f"reading {ssh}/id_rsa (sandbox.deny_read)",
        "writing /opt/x (outside the writable folders)",
    ]
    assert "dangerouslyDisableSandbox: true" in report.result_note(found)


def test_report_keeps_going_past_paths_this_process_cannot_resolve(tmp_path: Path) -> None:
    """A quoted /proc link of another process (EACCES on readlink) or a NUL byte is no reason to fail."""
    proj = tmp_path / "proj"
    proj.mkdir()
    the_plan = plan.build(str(proj), str(tmp_path / "run"), [], [], abi=7, empty_file="")
    output = "\n".join(
        [
            "ls: cannot access '/proc/1/root/etc/x': Permission denied",
            "cat: '/proc/1/cwd/y': Permission denied",
            "touch: cannot touch 'a\x00b': Permission denied",
            "/bin/bash: line 1: /etc/motd: Permission denied",
        ]
    )
    found = report.denied_paths(output, str(proj), the_plan)
    assert "writing /etc/motd (outside the writable folders)" in found


def test_plan_protects_a_worktree_git_file_and_sweeps_missing_paths(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / ".git").write_text("gitdir: /elsewhere\n")
    (proj / ".claude").mkdir()
    the_plan = plan.build(str(proj), str(tmp_path), [], [], abi=7, empty_file="")
    assert str(proj / ".git") in the_plan.missing or str(proj / ".git") in the_plan.read_only
    assert str(proj / ".claude") in the_plan.read_only and str(proj / ".mcp.json") in the_plan.missing
    before = plan.snapshot_missing(the_plan)
    (proj / ".mcp.json").write_text("{}")
    (proj / ".agent-tui").mkdir()
    assert sorted(plan.sweep(before)) == [str(proj / ".agent-tui"), str(proj / ".mcp.json")]
    assert not (proj / ".mcp.json").exists() and not (proj / ".agent-tui").exists()


def test_landlock_abi_probe() -> None:
    abi = landlock.abi_version()
    assert abi >= 0 and (abi == 0 or platform.system() == "Linux")
