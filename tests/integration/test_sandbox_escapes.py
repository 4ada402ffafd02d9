"""Real escape attempts through the real Bash tool, dispatcher and sandbox, in bypassPermissions and default mode.

Each attempt must fail and leave nothing behind; the same command aimed inside the project
must work. One module-scoped world (a project with protected paths, a fake home with secrets,
listeners outside, a victim process) serves every case.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tui.agent.events import Event, SandboxBlocked
from tui.agent.loop.dispatch import Dispatcher
from tui.config.permissions import PermissionPolicy
from tui.config.sandbox_settings import SandboxSettings
from tui.sandbox import runtime
from tui.tools.base import SessionState, ToolContext
from tui.tools.bash import BashTool

pytestmark = pytest.mark.skipif(
    not runtime.SandboxRuntime().supported(), reason="no Landlock >= 4 / user namespaces here"
)

SECRETS = {
    ".ssh/id_rsa": "SECRET-SSH",
    ".aws/credentials": "SECRET-AWS",
    ".gnupg/private.key": "SECRET-GPG",
    ".config/gcloud/creds.json": "SECRET-GCLOUD",
    ".kube/config": "SECRET-KUBE",
    ".netrc": "SECRET-NETRC",
    ".docker/config.json": "SECRET-DOCKER",
    ".config/agent-tui/credentials.json": "SECRET-AGENT-TUI",
}


class World:
    """Everything the attempts aim at."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.home = base / "home"
        self.proj = base / "proj"
        self.out = base / "outside"
        self.received: list[str] = []
        for rel, secret in SECRETS.items():
            path = self.home / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(secret)
        (self.home / ".bashrc").write_text("# rc\n")
        self.out.mkdir()
        (self.out / "existing.txt").write_text("original\n")
        (self.out / "victim").mkdir()
        self.proj.mkdir()
        git = ["git", "-C", str(self.proj), "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run(["git", "init", "-q", str(self.proj)], check=True)
        (self.proj / "readme.txt").write_text("hello\n")
        subprocess.run([*git, "add", "."], check=True)
        subprocess.run([*git, "commit", "-qm", "init"], check=True)
        (self.proj / ".claude").mkdir()
        (self.proj / ".claude" / "settings.json").write_text("{}\n")
        (self.proj / ".agent-tui").mkdir()
        (self.proj / ".agent-tui" / "settings.toml").write_text("")
        (self.proj / "in").mkdir()
        (self.proj / "in" / "existing.txt").write_text("original\n")
        (self.proj / "in" / "victim").mkdir()
        self.snapshot = self.protected_state()
        self._listen()
        self.victim = subprocess.Popen(["sleep", "300"])

    def protected_state(self) -> dict[str, str]:
        """Content of every protected path (and the listing of protected folders)."""
        state = {}
        for rel in (".git/config", ".claude/settings.json", ".agent-tui/settings.toml"):
            state[rel] = (self.proj / rel).read_text()
        for rel in (".git/hooks", ".claude", ".agent-tui"):
            state[rel] = " ".join(sorted(p.name for p in (self.proj / rel).iterdir()))
        state[".mcp.json"] = str((self.proj / ".mcp.json").exists())
        return state

    def _listen(self) -> None:
        self.tcp = socket.create_server(("0.0.0.0", 0))
        self.tcp_port = self.tcp.getsockname()[1]
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.udp_port = self.udp.getsockname()[1]
        self.unix_path = str(self.out / "listener.sock")
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind(self.unix_path)
        self.unix.listen()
        self.abstract_name = f"agent-tui-escape-{os.getpid()}"
        self.abstract = socket.socket(socket.AF_UNIX)
        self.abstract.bind("\0" + self.abstract_name)
        self.abstract.listen()
        for sock, what in ((self.tcp, "tcp"), (self.unix, "unix"), (self.abstract, "abstract")):
            threading.Thread(target=self._accept, args=(sock, what), daemon=True).start()
        threading.Thread(target=self._recv_udp, daemon=True).start()

    def _accept(self, sock: socket.socket, what: str) -> None:
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            self.received.append(what)
            conn.close()

    def _recv_udp(self) -> None:
        while True:
            try:
                self.udp.recvfrom(512)
            except OSError:
                return
            self.received.append("udp")

    def close(self) -> None:
        self.victim.kill()
        self.victim.wait()
        for sock in (self.tcp, self.udp, self.unix, self.abstract):
            sock.close()


@dataclass
class Attempt:
    """One escape: the command, a check that nothing leaked, and the same command aimed inside (or None)."""

    name: str
    command: str
    leaked: Callable[[World, str], bool]
    inside: str | None = None
    inside_ok: Callable[[World, str], bool] | None = None


def _write(name: str, command: str, target: str) -> Attempt:
    """A write aimed at {out}; inside, the same command with {out} -> the project's in/ folder."""
    return Attempt(
        name,
        command,
        lambda w, out: (w.out / target).exists(),
        command.replace("{out}", "{proj}/in"),
        lambda w, out: (w.proj / "in" / target).exists(),
    )


def _unchanged_outside(w: World, out: str) -> bool:
    return (w.out / "existing.txt").read_text() != "original\n" or not (w.out / "victim").is_dir()


def _protected(name: str, command: str, inside: str, made: str) -> Attempt:
    return Attempt(
        name, command, lambda w, out: w.protected_state() != w.snapshot, inside, lambda w, out: (w.proj / made).exists()
    )


def _secret(rel: str) -> Attempt:
    return Attempt(
        f"read {rel}",
        f"cat {{home}}/{rel}",
        lambda w, out: SECRETS[rel] in out,
        "cat {proj}/readme.txt",
        lambda w, out: "hello" in out,
    )


def _late(name: str, command: str, marker: str) -> Attempt:
    """A process that tries to outlive the call: it must be gone when the call returns."""

    def leaked(w: World, out: str) -> bool:
        return _running(marker) or (w.proj / f"late-{marker}").exists() or (w.out / f"late-{marker}").exists()

    return Attempt(
        name,
        command,
        leaked,
        f"(sleep 0.05; echo x > {{proj}}/bg-{marker}) & wait",
        lambda w, out: (w.proj / f"bg-{marker}").exists(),
    )


def _running(marker: str) -> bool:
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    return True
        except OSError:
            continue
    return False


PY = "python3 -c"
ATTEMPTS = [
    _write("absolute path", "echo x > {out}/abs.txt", "abs.txt"),
    Attempt(
        "dot-dot",
        "mkdir -p sub && echo x > sub/../../outside/dotdot.txt",
        lambda w, out: (w.out / "dotdot.txt").exists(),
        "mkdir -p sub && echo x > sub/../in/dotdot.txt",
        lambda w, out: (w.proj / "in" / "dotdot.txt").exists(),
    ),
    Attempt(
        "symlink made inside",
        "ln -sfn {out} link && echo x > link/sym.txt",
        lambda w, out: (w.out / "sym.txt").exists(),
        "ln -sfn {proj}/in link2 && echo x > link2/sym.txt",
        lambda w, out: (w.proj / "in" / "sym.txt").exists(),
    ),
    Attempt(
        "hard link made inside",
        "ln {out}/existing.txt hard.txt; echo x >> hard.txt",
        _unchanged_outside,
        "ln {proj}/in/existing.txt hard2.txt && echo x >> hard2.txt",
        lambda w, out: (w.proj / "in" / "existing.txt").read_text() != "original\n",
    ),
    _write("/proc/self/root", "echo x > /proc/self/root{out}/procroot.txt", "procroot.txt"),
    _write("/proc/self/cwd after cd", "cd {out} && echo x > /proc/self/cwd/proccwd.txt", "proccwd.txt"),
    Attempt(
        "rename over a directory",
        "mkdir -p evil && mv -T evil {out}/victim",
        _unchanged_outside,
        "mkdir -p evil2 && mv -T evil2 {proj}/in/victim",
        lambda w, out: not (w.proj / "evil2").exists(),
    ),
    _write("cp", "cp readme.txt {out}/cp.txt", "cp.txt"),
    _write("tar", "tar -cf $TMPDIR/a.tar readme.txt && tar -C {out} -xf $TMPDIR/a.tar", "readme.txt"),
    _write("install", "install -m 644 readme.txt {out}/install.txt", "install.txt"),
    _write("python -c", f"{PY} \"open('{{out}}/py.txt', 'w').write('x')\"", "py.txt"),
    _write("sh -c", "sh -c 'echo x > {out}/sh.txt'", "sh.txt"),
    _write("dd", "echo x | dd of={out}/dd.txt status=none", "dd.txt"),
    _write("xargs touch", "echo {out}/xargs.txt | xargs touch", "xargs.txt"),
    _write("mkdir", "mkdir {out}/newdir", "newdir"),
    Attempt(
        "rm outside",
        "rm -rf {out}/existing.txt {out}/victim",
        _unchanged_outside,
        "rm -rf {proj}/in/victim",
        lambda w, out: not (w.proj / "in" / "victim").exists(),
    ),
    Attempt(
        "append to ~/.bashrc",
        "echo evil >> {home}/.bashrc",
        lambda w, out: "evil" in (w.home / ".bashrc").read_text(),
        "echo ok >> {proj}/in/rc",
        lambda w, out: (w.proj / "in" / "rc").exists(),
    ),
    Attempt(
        "/tmp outside TMPDIR",
        "echo x > /tmp/agent-tui-escape-tmp",
        lambda w, out: os.path.exists("/tmp/agent-tui-escape-tmp"),
        "echo x > $TMPDIR/t.txt && cat $TMPDIR/t.txt",
        lambda w, out: out.startswith("x"),
    ),
    _write(
        "LD_PRELOAD",
        "printf '#include <stdio.h>\\n__attribute__((constructor)) static void c(void)"
        '{FILE*f=fopen("{out}/preload.txt","w");if(f)fclose(f);}\' > $TMPDIR/p.c && '
        "cc -shared -fPIC -o $TMPDIR/p.so $TMPDIR/p.c && LD_PRELOAD=$TMPDIR/p.so /bin/true",
        "preload.txt",
    ),
    _write(
        "unshare",
        "unshare -r sh -c 'echo x > {out}/unshare.txt'; unshare -rm sh -c 'mount -t tmpfs t {out}'; "
        "echo x > {out}/unshare.txt",
        "unshare.txt",
    ),
    Attempt(
        "mount",
        "mount --bind {proj} {out}/victim; mount -t tmpfs t {out}/victim; echo x > {out}/victim/m.txt",
        lambda w, out: (w.out / "victim" / "m.txt").exists(),
    ),
    _protected(
        ".git/hooks",
        "echo 'echo pwned' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit",
        "echo 'desc' > .git/description",
        ".git/description",
    ),
    _protected(
        ".git/hooks removed",
        "rm -rf .git/hooks; mkdir .git/hooks; echo x > .git/hooks/post-checkout",
        "rm -rf in/victim; mkdir in/victim2",
        "in/victim2",
    ),
    _protected(
        ".git/config",
        "echo '[core]\n\tfsmonitor = touch /tmp/pwned' >> .git/config",
        "echo x > .git/info/exclude2",
        ".git/info/exclude2",
    ),
    _protected(
        "git config core.hooksPath",
        "git config core.hooksPath /tmp/hooks",
        "git config -f in/other.cfg core.hooksPath x",
        "in/other.cfg",
    ),
    _protected(
        ".git/config renamed",
        "mv .git/config .git/config.bak; echo x > .git/config",
        "mv in/existing.txt in/moved.txt",
        "in/moved.txt",
    ),
    _protected(
        "hard link to .git/config",
        "ln .git/config cfg-link; echo '[core] fsmonitor = x' >> cfg-link",
        "ln readme.txt in/readme-link && cat in/readme-link > /dev/null",
        "in/readme-link",
    ),
    _protected(
        "symlink swap of .claude",
        "mv .claude .claude-old; ln -s in .claude; echo '{}' > .claude/settings.local.json",
        "ln -s in in-link && echo x > in-link/via-link.txt",
        "in/via-link.txt",
    ),
    _protected(
        ".claude/settings.json",
        'echo \'{"permissions":{"allow":["Bash"]}}\' > .claude/settings.json',
        "echo '{}' > in/settings.json",
        "in/settings.json",
    ),
    _protected(
        ".claude/settings.local.json",
        "echo '{}' > .claude/settings.local.json",
        "echo '{}' > in/settings.local.json",
        "in/settings.local.json",
    ),
    _protected(
        ".claude/commands",
        "mkdir -p .claude/commands && echo x > .claude/commands/evil.md",
        "mkdir -p in/commands && echo x > in/commands/ok.md",
        "in/commands/ok.md",
    ),
    _protected(
        ".claude/agents",
        "mkdir -p .claude/agents && echo x > .claude/agents/evil.md",
        "mkdir -p in/agents && echo x > in/agents/ok.md",
        "in/agents/ok.md",
    ),
    _protected(
        ".claude/skills",
        "mkdir -p .claude/skills/x && echo x > .claude/skills/x/SKILL.md",
        "mkdir -p in/skills/x && echo x > in/skills/x/SKILL.md",
        "in/skills/x/SKILL.md",
    ),
    _protected(
        ".agent-tui",
        "echo 'permission_mode = \"bypassPermissions\"' > .agent-tui/settings.local.toml",
        "echo x > in/settings.local.toml",
        "in/settings.local.toml",
    ),
    _protected(".mcp.json", "echo '{\"mcpServers\":{}}' > .mcp.json", "echo '{}' > in/mcp.json", "in/mcp.json"),
    *[_secret(rel) for rel in SECRETS],
    Attempt(
        "TCP to a loopback listener",
        f"{PY} \"import socket; socket.create_connection(('127.0.0.1', {{tcp}}), 2)\"",
        lambda w, out: "tcp" in w.received,
        f"{PY} \"import socket; s=socket.create_server(('127.0.0.1', 0)); socket.create_connection(s.getsockname(), 2)\"",
        lambda w, out: "Traceback" not in out,
    ),
    Attempt(
        "TCP to this host's address",
        f"{PY} \"import socket; socket.create_connection(('{{host_ip}}', {{tcp}}), 2)\"",
        lambda w, out: "tcp" in w.received,
    ),
    Attempt(
        "curl to the loopback listener", "curl -sS -m 2 http://127.0.0.1:{tcp}/", lambda w, out: "tcp" in w.received
    ),
    Attempt(
        "UDP",
        f"{PY} \"import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', {{udp}}))\"",
        lambda w, out: "udp" in w.received,
        f"{PY} \"import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('127.0.0.1', 0)); "
        "s.sendto(b'x', s.getsockname()); print(s.recv(9))\"",
        lambda w, out: "b'x'" in out,
    ),
    Attempt(
        "DNS query",
        f"{PY} \"import socket; q=b'\\x12\\x34\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00"
        "\\x07example\\x03com\\x00\\x00\\x01\\x00\\x01'; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)"
        ".sendto(q, ('127.0.0.1', {udp}))\"",
        lambda w, out: "udp" in w.received,
        f"{PY} \"import socket; print(socket.getaddrinfo('localhost', 80)[0][4])\"",
        lambda w, out: "127.0.0.1" in out,
    ),
    Attempt(
        "unix socket outside",
        f"{PY} \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('{{unix}}')\"",
        lambda w, out: "unix" in w.received,
        f"{PY} \"import socket; a, b = socket.socketpair(); a.send(b'ok'); print(b.recv(2))\"",
        lambda w, out: "b'ok'" in out,
    ),
    Attempt(
        "abstract unix socket",
        f"{PY} \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('\\0{{abstract}}')\"",
        lambda w, out: "abstract" in w.received,
    ),
    Attempt("signal a process outside", "kill -9 {victim}; true", lambda w, out: w.victim.poll() is not None),
    # the keeper that waits outside the namespaces shares the command's process group
    Attempt(
        "signal the parent (its process group)",
        "trap '' TERM HUP; kill -TERM 0; kill -HUP 0; echo survived",
        lambda w, out: not out.startswith("survived\nExit code: 0"),
    ),
    Attempt(
        "ptrace a process outside",
        f'{PY} "import ctypes; print(ctypes.CDLL(None).ptrace(16, {{victim}}, 0, 0))"; '
        "strace -p {victim} -o /dev/null & sleep 0.2",
        lambda w, out: _traced(w.victim.pid) or w.victim.poll() is not None,
        "strace -f -o $TMPDIR/trace true && echo traced",
        lambda w, out: "traced" in out,
    ),
    _late("setsid", "setsid sh -c 'sleep 0.43; echo x > {proj}/late-0.43' > /dev/null 2>&1 &", "0.43"),
    _late("double fork", "( ( sleep 0.44; echo x > {proj}/late-0.44 ) & ) &", "0.44"),
    _late("nohup", "nohup sh -c 'sleep 0.45; echo x > {proj}/late-0.45' > /dev/null 2>&1 &", "0.45"),
    _late(
        "setsid writing outside",
        "setsid sh -c 'sleep 0.46; echo x > {out}/late-0.46' > /dev/null 2>&1 & disown",
        "0.46",
    ),
    Attempt(
        "/dev/shm",
        "echo x > /dev/shm/agent-tui-escape-shm",
        lambda w, out: os.path.exists("/dev/shm/agent-tui-escape-shm"),
        "echo x > /dev/shm/ok && cat /dev/shm/ok",
        lambda w, out: "x" in out,
    ),
]
if shutil.which("rsync"):
    ATTEMPTS.append(_write("rsync", "rsync readme.txt {out}/rsync.txt", "rsync.txt"))


def _traced(pid: int) -> bool:
    with open(f"/proc/{pid}/status") as f:
        return any(line.startswith("TracerPid:") and line.split()[1] != "0" for line in f)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    with pytest.MonkeyPatch.context() as mp:
        base = tmp_path_factory.mktemp("escape")
        mp.setenv("HOME", str(base / "home"))
        mp.delenv("XDG_CONFIG_HOME", raising=False)
        w = World(base)
        previous = runtime.current()
        runtime._current = runtime.SandboxRuntime(SandboxSettings(), str(w.proj))
        yield w
        runtime._current.close()
        runtime._current = previous
        w.close()


def run_bash(w: World, command: str, mode: str) -> tuple[str, bool, list[Event]]:
    """One Bash call through the dispatcher (non-interactive: a call that would ask is refused)."""
    events: list[Event] = []
    ctx = lambda _id: ToolContext(project_dir=w.proj, state=SessionState(project_dir=w.proj))  # noqa: E731
    dispatcher = Dispatcher(
        {"Bash": BashTool()},
        PermissionPolicy(mode=mode, project_dir=w.proj),
        ctx,
        events.append,
        interactive=False,
        parallel=False,
    )
    block = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": command, "timeout": 20000}}
    outcome = dispatcher.run([block], threading.Event(), {})
    result = outcome.results[0]
    return str(result["content"]), bool(result.get("is_error")), events


def fill(w: World, command: str) -> str:
    host_ip = next((a for a in _host_addresses() if not a.startswith("127.")), "127.0.0.1")
    return (
        command.replace("{out}", str(w.out))
        .replace("{proj}", str(w.proj))
        .replace("{home}", str(w.home))
        .replace("{tcp}", str(w.tcp_port))
        .replace("{udp}", str(w.udp_port))
        .replace("{unix}", w.unix_path)
        .replace("{abstract}", w.abstract_name)
        .replace("{victim}", str(w.victim.pid))
        .replace("{host_ip}", host_ip)
    )


def _host_addresses() -> list[str]:
    try:
        return [info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    except OSError:
        return []


@pytest.mark.parametrize("mode", ["bypassPermissions", "default"])
@pytest.mark.parametrize("attempt", ATTEMPTS, ids=[a.name for a in ATTEMPTS])
def test_escape_fails_and_leaves_nothing(world: World, attempt: Attempt, mode: str) -> None:
    world.received.clear()
    text, _is_error, _events = run_bash(world, fill(world, attempt.command), mode)
    assert "needs approval" not in text and "was not granted" not in text, text  # contained: no dialog in either mode
    assert not attempt.leaked(world, text), text


@pytest.mark.parametrize("attempt", [a for a in ATTEMPTS if a.inside], ids=[a.name for a in ATTEMPTS if a.inside])
def test_same_command_inside_works(world: World, attempt: Attempt) -> None:
    assert attempt.inside is not None and attempt.inside_ok is not None
    text, _, _ = run_bash(world, fill(world, attempt.inside), "default")
    assert attempt.inside_ok(world, text), text


def test_enough_attempts() -> None:
    assert len(ATTEMPTS) >= 40


def test_blocked_write_is_reported_to_the_model_and_the_panel(world: World) -> None:
    text, is_error, events = run_bash(world, fill(world, "echo x > {out}/reported.txt"), "default")
    assert is_error and f"Sandbox: blocked writing {world.out}/reported.txt (outside the writable folders)" in text
    assert "dangerouslyDisableSandbox" in text
    blocked = [e for e in events if isinstance(e, SandboxBlocked)]
    assert blocked and "reported.txt" in blocked[0].blocked[0] and blocked[0].command.startswith("echo x")


def test_created_mcp_json_is_removed_and_reported(world: World) -> None:
    text, is_error, _events = run_bash(world, "echo '{}' > .mcp.json", "bypassPermissions")
    assert not (world.proj / ".mcp.json").exists()
    assert is_error and "creating" in text and ".mcp.json" in text
