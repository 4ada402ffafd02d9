"""FIFOs, devices and hanging searches: every file tool answers with one sentence, never blocks.

Real FIFOs (`os.mkfifo`), `/dev/zero` and real rg subprocesses; each test has a short
timeout so a regression fails fast instead of hanging the suite.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from tui.config.memory import load_memory
from tui.tools.base import ToolContext, ToolError, ToolInterrupted
from tui.tools.edit import EditTool
from tui.tools.fileio import save_file
from tui.tools.freshness import FileWatcher, record_hash
from tui.tools.glob_tool import GlobTool
from tui.tools.grep import GrepTool
from tui.tools.read import ReadTool
from tui.tools.write import WriteTool

grep, glob, read = GrepTool(), GlobTool(), ReadTool()


def rg_pids(under: Path) -> list[int]:
    """Live rg processes whose working folder is inside `under` (a /proc scan, no psutil)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv0 = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")[0]
            cwd = os.readlink(f"/proc/{entry}/cwd")
            state = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if os.path.basename(argv0) == b"rg" and cwd.startswith(str(under)) and state != b"Z":
            found.append(int(entry))
    return found


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git" / "info").mkdir(parents=True)
    (project / "a.py").write_text("needle = 1\n")
    return project


@pytest.mark.timeout(20)
def test_fifo_at_git_info_exclude_blocks_neither_grep_nor_glob(repo: Path, ctx: ToolContext) -> None:
    os.mkfifo(repo / ".git" / "info" / "exclude")
    found = grep.run({"pattern": "needle"}, ctx)
    assert "a.py" in found.text() and not found.is_error
    assert "exclude is a FIFO (named pipe), not a regular file" in found.text()
    listed = glob.run({"pattern": "*.py"}, ctx)
    assert listed.text().startswith("a.py\n") and "exclude is a FIFO" in listed.text()


@pytest.mark.timeout(20)
def test_fifo_gitignore_at_the_root_is_skipped_and_said(repo: Path, ctx: ToolContext) -> None:
    os.mkfifo(repo / ".gitignore")
    text = grep.run({"pattern": "needle"}, ctx).text()
    assert "a.py" in text and ".gitignore is a FIFO (named pipe)" in text


@pytest.mark.timeout(10)
@pytest.mark.parametrize("target", ["fifo", "/dev/zero"])
def test_grep_of_a_fifo_or_dev_zero_by_name_is_refused(project: Path, ctx: ToolContext, target: str) -> None:
    if target == "fifo":
        os.mkfifo(project / "fifo")
    kind = "FIFO (named pipe)" if target == "fifo" else "character device"
    with pytest.raises(
        ToolError, match=rf"{target} is a {kind.replace('(', '.').replace(')', '.')}, not a regular file"
    ):
        grep.run({"pattern": "x", "path": target}, ctx)
    with pytest.raises(ToolError, match="not a regular file"):
        glob.run({"pattern": "*", "path": target}, ctx)


@pytest.mark.timeout(10)
@pytest.mark.parametrize("target", ["fifo", "/dev/zero"])
def test_read_of_a_fifo_or_dev_zero_is_refused(project: Path, ctx: ToolContext, target: str) -> None:
    if target == "fifo":
        os.mkfifo(project / "fifo")
    with pytest.raises(ToolError, match="not a regular file; agent-tui does not read it"):
        read.run({"file_path": target}, ctx)


@pytest.mark.timeout(10)
def test_edit_and_write_refuse_a_fifo(project: Path, ctx: ToolContext) -> None:
    os.mkfifo(project / "fifo")
    with pytest.raises(ToolError, match=r"FIFO .named pipe., not a regular file; it cannot be edited"):
        WriteTool().run({"file_path": "fifo", "content": "x"}, ctx)
    with pytest.raises(ToolError, match="cannot be edited"):
        EditTool().run({"file_path": "fifo", "old_string": "a", "new_string": "b"}, ctx)


@pytest.mark.timeout(10)
def test_saving_onto_a_fifo_swapped_in_is_refused_not_blocked(project: Path, ctx: ToolContext) -> None:
    """The file became a FIFO after it was read: the write neither blocks nor feeds the pipe."""
    fifo = project / "f.txt"
    os.mkfifo(fifo)
    with pytest.raises(
        ToolError, match=r"f.txt is a FIFO .named pipe., not a regular file; agent-tui does not write to it"
    ):
        save_file(ctx, fifo, b"old", b"new")
    assert str(fifo) not in ctx.state.read_hashes


@pytest.mark.timeout(10)
def test_file_watcher_does_not_block_on_a_fifo_in_place_of_a_read_file(project: Path, ctx: ToolContext) -> None:
    path = project / "f.txt"
    os.mkfifo(path)
    record_hash(ctx.state, path, "abc")
    changed: list[str] = []
    FileWatcher(ctx.state, changed.append).check({str(path)})
    assert changed == [str(path)]


@pytest.mark.timeout(10)
def test_memory_imports_of_fifos_and_devices_are_skipped(project: Path) -> None:
    os.mkfifo(project / "pipe.md")
    (project / "AGENTS.md").write_text("Use tabs.\n@pipe.md\n@/dev/zero\n")
    os.mkfifo(project / "CLAUDE.md")
    files = load_memory(project)
    assert [f.path.name for f in files if f.path.parent == project] == ["AGENTS.md"]


def hanging_tree(project: Path) -> None:
    """A tree rg cannot finish: a FIFO .gitignore in a sub-folder (rg opens it and waits for ever)."""
    (project / "a.py").write_text("needle\n")
    (project / "sub").mkdir()
    (project / "sub" / "b.py").write_text("needle\n")
    os.mkfifo(project / "sub" / ".gitignore")


@pytest.mark.timeout(15)
@pytest.mark.parametrize("tool", ["Grep", "Glob"])
def test_an_interrupt_stops_a_hanging_search_and_kills_rg(project: Path, ctx: ToolContext, tool: str) -> None:
    hanging_tree(project)
    outcome: list[object] = []

    def search() -> None:
        try:
            outcome.append(
                grep.run({"pattern": "needle"}, ctx) if tool == "Grep" else glob.run({"pattern": "*.py"}, ctx)
            )
        except ToolInterrupted as exc:
            outcome.append(exc)

    worker = threading.Thread(target=search)
    worker.start()
    while not rg_pids(project) and worker.is_alive():  # wait until rg runs (and hangs on the FIFO)
        worker.join(0.01)
    assert rg_pids(project), "rg should be running and blocked on the FIFO"
    ctx.cancel.set()  # what Esc does: the loop sets the turn's cancel event
    worker.join(5)
    assert not worker.is_alive()
    assert isinstance(outcome[0], ToolInterrupted)
    assert rg_pids(project) == []


@pytest.mark.timeout(15)
def test_a_search_that_runs_out_of_time_is_an_error_that_says_what_was_cut(project: Path, ctx: ToolContext) -> None:
    hanging_tree(project)
    ctx.time_limit = 0.5
    result = grep.run({"pattern": "needle"}, ctx)
    assert result.is_error
    assert "The search stopped after 0.5 s without finishing: at least" in result.text()
    assert rg_pids(project) == []
    listed = glob.run({"pattern": "*.py"}, ctx)
    assert listed.is_error and "stopped after 0.5 s without finishing" in listed.text()


@pytest.mark.timeout(30)
@pytest.mark.parametrize("pattern", ["/*", "/**"])
def test_glob_of_the_whole_file_system_is_cut_with_honest_counts(ctx: ToolContext, pattern: str) -> None:
    ctx.walk_limit, ctx.time_limit = 2000, 10  # a FIFO .gitignore another test left in /tmp may stall rg
    result = glob.run({"pattern": pattern}, ctx)
    text = result.text()
    assert "The search stopped after rg listed" in text or (result.is_error and "stopped after 10 s" in text)
    assert "at least" in text
    assert "/proc, /sys and /dev were left out" in text
    assert not any(line.startswith(("/proc/", "/sys/", "/dev/")) for line in text.splitlines())


@pytest.mark.timeout(30)
@pytest.mark.parametrize("mode", ["files_with_matches", "count"])
def test_grep_of_the_root_folder_is_cut_with_honest_counts(ctx: ToolContext, mode: str) -> None:
    ctx.walk_limit, ctx.time_limit = 50, 10
    result = grep.run({"pattern": "e", "path": "/", "output_mode": mode}, ctx)
    text = result.text()
    assert "The search stopped after rg listed" in text or (result.is_error and "stopped after 10 s" in text)
    assert "/proc, /sys and /dev were left out" in text
    assert text.startswith("Found at least ") if mode == "files_with_matches" else "Found at least " in text
    assert not any(line.startswith(("/proc/", "/sys/", "/dev/")) for line in text.splitlines())


@pytest.mark.timeout(10)
def test_read_stops_on_an_interrupt_and_after_its_time_limit(project: Path, ctx: ToolContext) -> None:
    (project / "big.txt").write_bytes(b"line\n" * 400_000)
    ctx.time_limit = 0
    with pytest.raises(ToolError, match=r"Read stopped after 0 s: big.txt could not be read in that time"):
        read.run({"file_path": "big.txt"}, ctx)
    ctx.time_limit = 60
    ctx.cancel.set()
    with pytest.raises(ToolInterrupted):
        read.run({"file_path": "big.txt"}, ctx)


@pytest.mark.timeout(10)
def test_a_fifo_at_git_head_does_not_block_the_environment_block(repo: Path) -> None:
    from tui.agent.api.environment import environment_text

    os.mkfifo(repo / ".git" / "HEAD")
    assert f"root {repo}, branch unknown" in environment_text(repo, "m")


@pytest.mark.timeout(10)
def test_undo_onto_a_fifo_says_so_instead_of_blocking(project: Path, ctx: ToolContext) -> None:
    from tui.agent.history.rewind import apply_code, code_steps

    cps = ctx.state.checkpoint
    path = project / "f.txt"
    path.write_text("new\n")
    cps.before_write(path, b"old\n", b"new\n")
    path.unlink()
    os.mkfifo(path)
    result = apply_code(cps, code_steps(cps, 0), state=ctx.state)
    assert result.lines == ["could not restore f.txt: it is a FIFO (named pipe), not a regular file"]
