"""Reading and writing the rule lists of settings files (TOML with tomli-w, Claude's JSON).

Writes are atomic (a temporary file, then `os.replace`) and keep every other key.
A file that does not parse is never overwritten: `SettingsWriteError` says why.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from tui.config.bounded_read import BoundedReadError, parse_json_text, parse_toml_text, read_bounded_text
from tui.config.rules import RuleKind
from tui.config.settings_schema import toml_error_position


class SettingsWriteError(ValueError):
    """A settings file could not be updated; the message is one sentence for the user."""


def read_settings_text(path: Path) -> tuple[str | None, str | None]:
    """(text, problem) of a settings file: (None, None) when it does not exist; never blocks on a FIFO.

    Read through the bounded reader: a FIFO, device, non-UTF-8 or oversized file is one sentence.
    """
    try:
        return read_bounded_text(path), None
    except FileNotFoundError:
        return None, None
    except NotADirectoryError:  # a file where a folder of the path should be: nothing to read
        return None, None
    except BoundedReadError as exc:
        return None, f"{exc} The file was skipped."


def parse_settings_text(path: Path, text: str) -> tuple[dict[str, Any] | None, str | None]:
    """(data, problem) of a TOML or (by suffix) JSON settings text; the problem names `path:line:col`."""
    import tomllib  # with the first settings file (~1.4 ms): a start without one does not import it

    try:
        data = parse_json_text(path, text) if path.suffix == ".json" else parse_toml_text(path, text)
    except BoundedReadError as exc:
        return None, f"{str(exc).rstrip('.')}; the file was skipped."
    except json.JSONDecodeError as exc:
        return None, f"{path}:{exc.lineno}:{exc.colno}: {exc.msg}; the file was skipped."
    except tomllib.TOMLDecodeError as exc:
        line, col, message = toml_error_position(str(exc), text)
        return None, f"{path}:{line}:{col}: {message}; the file was skipped."
    if not isinstance(data, dict):
        return None, f"{path}:1: the top level must be an object; the file was skipped."
    return data, None


def read_settings_file(path: Path) -> dict[str, Any]:
    """The parsed content of a TOML or JSON settings file ({} when it does not exist)."""
    return read_for_update(path)[1]


def read_for_update(path: Path) -> tuple[str, dict[str, Any]]:
    """(text, parsed content) of a settings file about to be edited ("" and {} when it does not exist)."""
    text, problem = read_settings_text(path)
    if problem:
        raise SettingsWriteError(
            problem.replace("the file was skipped", "it cannot be updated").replace(
                "The file was skipped", "It cannot be updated"
            )
        )
    if text is None:
        return "", {}
    data, problem = parse_settings_text(path, text)
    if problem or data is None:
        raise SettingsWriteError(f"{path} cannot be updated because it does not parse ({problem}); fix it first.")
    return text, data


def write_settings_file(path: Path, data: dict[str, Any]) -> None:
    """Write `data` to `path` atomically, as TOML or (for .json) JSON."""
    import tomli_w  # writing is rare: not imported at start-up

    write_text_atomic(path, json.dumps(data, indent=2) + "\n" if path.suffix == ".json" else tomli_w.dumps(data))


def write_text_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` in one step (a temporary file, then `os.replace`)."""
    from tui.config.own_writes import note

    note(path)  # before it exists: a running sandbox's sweep must not take it for the command's
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _rule_list(table: dict[str, Any], kind: RuleKind) -> list[Any]:
    permissions = table.setdefault("permissions", {})
    if not isinstance(permissions, dict):
        raise SettingsWriteError("`permissions` is not a table.")
    rules = permissions.setdefault(kind, [])
    if not isinstance(rules, list):
        raise SettingsWriteError(f"`permissions.{kind}` is not a list.")
    return rules


def add_rule_to_file(path: Path, kind: RuleKind, rule: str) -> bool:
    """Append `rule` to `[permissions] <kind>` of `path`; False when it was already there."""
    data = read_settings_file(path)
    rules = _rule_list(data, kind)
    if rule in rules:
        return False
    rules.append(rule)
    write_settings_file(path, data)
    return True


def remove_rule_from_file(path: Path, kind: RuleKind, rule: str) -> bool:
    """Remove `rule` from `[permissions] <kind>` of `path`; False when it was not there."""
    data = read_settings_file(path)
    rules = _rule_list(data, kind)
    if rule not in rules:
        return False
    rules.remove(rule)
    write_settings_file(path, data)
    return True


def _project_table(data: dict[str, Any], project_dir: Path) -> dict[str, Any]:
    projects = data.setdefault("projects", {})
    if not isinstance(projects, dict):
        raise SettingsWriteError("`projects` in the user settings is not a table.")
    table = projects.setdefault(str(project_dir), {})
    if not isinstance(table, dict):
        raise SettingsWriteError(f'`projects."{project_dir}"` in the user settings is not a table.')
    return table


def set_project_value(user_file: Path, project_dir: Path, key: str, value: Any) -> Path:
    """Set `[projects."<dir>"] key = value` in the user settings (an answer remembered for one project)."""
    data = read_settings_file(user_file)
    _project_table(data, project_dir)[key] = value
    write_settings_file(user_file, data)
    return user_file


def add_project_rule(user_file: Path, project_dir: Path, kind: RuleKind, rule: str) -> bool:
    """Record a rule for `project_dir` in the user settings (`[projects."<dir>"] allow = […]`)."""
    data = read_settings_file(user_file)
    table = _project_table(data, project_dir)
    rules = table.setdefault(kind, [])
    if not isinstance(rules, list):
        raise SettingsWriteError(f'`projects."{project_dir}".{kind}` is not a list.')
    if rule in rules:
        return False
    rules.append(rule)
    write_settings_file(user_file, data)
    return True


def remove_project_rule(user_file: Path, project_dir: Path, kind: RuleKind, rule: str) -> bool:
    """Remove a rule recorded for `project_dir` in the user settings."""
    data = read_settings_file(user_file)
    table = _project_table(data, project_dir)
    rules = table.get(kind, [])
    if not isinstance(rules, list) or rule not in rules:
        return False
    rules.remove(rule)
    write_settings_file(user_file, data)
    return True
