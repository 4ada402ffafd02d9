"""Trusting a folder, and taking the trust back (the user settings' `trusted_folders`)."""

from __future__ import annotations

import os
from pathlib import Path

from tui.config.paths import user_settings_file
from tui.config.rule_files import SettingsWriteError, read_settings_file, write_settings_file
from tui.config.settings import decline_folder, trust_folder

__all__ = ["decline_folder", "trust_folder", "untrust_folder"]


def _real(folder: str) -> str:
    return os.path.realpath(os.path.expanduser(folder))


def untrust_folder(project_dir: Path) -> Path:
    """Take `project_dir` out of `trusted_folders` (and remember the answer, so start-up does not ask again).

    SettingsWriteError names the entry when the trust comes from a folder above it: removing that
    one is the user's call, as it covers other folders too.
    """
    path = user_settings_file()
    data = read_settings_file(path)
    folders = data.get("trusted_folders", [])
    if not isinstance(folders, list):
        raise SettingsWriteError(f"{path}: `trusted_folders` is not a list.")
    here = os.path.realpath(project_dir)
    kept = [f for f in folders if not (isinstance(f, str) and _real(f) == here)]
    if len(kept) == len(folders):
        above = next((f for f in folders if isinstance(f, str) and Path(_real(f)) in Path(here).parents), None)
        if above is not None:
            raise SettingsWriteError(
                f"{project_dir} is trusted because {above} is, in `trusted_folders` of {path}; "
                "remove that entry to stop trusting it."
            )
        return path
    data["trusted_folders"] = kept
    write_settings_file(path, data)
    decline_folder(project_dir)
    return path
