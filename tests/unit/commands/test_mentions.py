"""`@path`: ripgrep's file list (ignores respected), fuzzy matching, attachments."""

from __future__ import annotations

from tui.config.permissions import PermissionPolicy
from tui.hooks.mentions import fuzzy_matches, mention_at, mentioned_paths, project_files
from tui.tools.attachments import AttachmentRules
from tui.tools.attachments import attach_mentions as attach

from .helpers import write


def test_file_list_respects_gitignore_and_lists_folders(tmp_path):
    write(tmp_path / ".gitignore", "build/\n*.log\n")
    write(tmp_path / "src/app/main.py", "x")
    write(tmp_path / "build/out.js", "x")
    write(tmp_path / "debug.log", "x")
    write(tmp_path / "README.md", "x")
    (tmp_path / ".git").mkdir()
    files = project_files(tmp_path)
    assert "src/app/main.py" in files and "README.md" in files and "src/" in files and "src/app/" in files
    assert not any(f.startswith(("build", ".git/")) or f.endswith(".log") for f in files)


def test_fuzzy_matching_prefers_names_then_paths_then_letters():
    files = [
        "src/",
        "src/app/main.py",
        "src/app/maintenance.py",
        "docs/main_guide.md",
        "tests/test_main.py",
        "x/m_a_i_n.txt",
    ]
    assert fuzzy_matches("main.py", files)[0] == "src/app/main.py"
    assert fuzzy_matches("mn", files)  # in-order letters
    assert "x/m_a_i_n.txt" in fuzzy_matches("main", files)
    assert fuzzy_matches("zzz", files) == []


def test_mention_at_the_cursor():
    assert mention_at("look at @src/ma", 15) == (8, "src/ma")
    assert mention_at("mail me@example.com", 19) is None
    assert mention_at("no mention", 10) is None


def attach_mentions(text: str, project):
    return attach(text, AttachmentRules(project, PermissionPolicy(project_dir=project))).text


def test_attachments_and_what_is_left_alone(tmp_path):
    write(tmp_path / "a.py", "print('a')\n")
    write(tmp_path / "my dir/b.txt", "b\n")
    text = 'see @a.py, @"my dir/b.txt", @github:repos/x, @missing.py and me@host.com'
    assert mentioned_paths(text) == ["a.py", "my dir/b.txt", "missing.py"]
    out = attach_mentions(text, tmp_path)
    assert out.startswith(text)
    assert "<file path=\"a.py\">\nprint('a')\n</file>" in out and '<file path="my dir/b.txt">\nb\n</file>' in out
    assert "missing" not in out[len(text) :] and "github" not in out[len(text) :]
    assert attach_mentions("plain", tmp_path) == "plain"
    assert '<directory path="my dir">\nb.txt\n</directory>' in attach_mentions('@my\\ dir @"my dir"', tmp_path)
