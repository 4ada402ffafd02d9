"""What `-p` and the screens say about a folder that is not trusted: one line per kind of thing skipped."""

from __future__ import annotations

import os

from tui.text.wording import plural, shorten

from .inventory import FolderInventory, TrustItem

#: how a user trusts a folder, said wherever something was skipped
HOW_TO_TRUST = "/trust in agent-tui (or trusted_folders in the user settings) loads them"
#: kinds whose skipped items `-p` already names elsewhere (the allow-rules notice, the settings problems)
NAMED_ELSEWHERE = ("allow", "settings_commands")
#: a -p line names its items up to about this many characters
NAMES_WIDTH = 160


def skipped_lines(inventory: FolderInventory) -> list[str]:
    """One sentence per kind of thing an untrusted folder's files hold and `-p` skips ([] when trusted)."""
    if inventory.trusted:
        return []
    lines = []
    for kind, items in inventory.by_kind():
        if kind.key in NAMED_ELSEWHERE:
            continue
        files = _where(inventory, items)
        names = shorten(", ".join(dict.fromkeys(i.short for i in items)), NAMES_WIDTH)
        lines.append(
            f"Skipping {kind.counted(kind.size(items))} from {files} ({names}): this folder is not trusted; "
            f"{HOW_TO_TRUST}."
        )
    return lines


def _where(inventory: FolderInventory, items: list[TrustItem]) -> str:
    """The files the items come from: one or two by name, more by the folder they share."""
    files = list(dict.fromkeys(inventory.shown(i.path) for i in items))
    if len(files) <= 2:
        return " and ".join(files)
    common = os.path.commonpath(files)
    return f"{plural(len(files), 'file')} in {common}" if common else plural(len(files), "file")


def untrusted_note(inventory: FolderInventory, key: str) -> str | None:
    """ "This folder is not trusted: its 7 hooks (Stop, …) are off. /trust loads them." for one kind (None: nothing)."""
    if inventory.trusted:
        return None
    kind = next((k for k, items in inventory.by_kind() if k.key == key), None)
    if kind is None:
        return None
    items = inventory.of(key)
    names = shorten(", ".join(dict.fromkeys(i.short for i in items)), NAMES_WIDTH // 2)
    size = kind.size(items)
    return (
        f"This folder is not trusted: its {kind.counted(size)} ({names}) "
        f"{'is' if size == 1 else 'are'} off. /trust loads {_them(size)}."
    )


def untrusted_summary(inventory: FolderInventory) -> str | None:
    """ "folder not trusted: 7 hooks, 3 agents … off; /trust loads them" for the `/` menu (None when nothing)."""
    if inventory.trusted or not inventory:
        return None
    one = inventory.count() == 1
    return f"folder not trusted: its {inventory.summary()} {'is' if one else 'are'} off; /trust loads {_them(inventory.count())}"


def _them(count: int) -> str:
    return "it" if count == 1 else "them"
