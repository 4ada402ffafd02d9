"""Adding and removing rules from /permissions: the policy in memory and the file on disk."""

from __future__ import annotations

import re
from pathlib import Path

from tui.config import rule_files
from tui.config.paths import local_settings_file, user_settings_file
from tui.config.permissions import CLI_SOURCES, PermissionPolicy
from tui.config.rules import RuleKind, RuleSource

PROJECT_LABEL = re.compile(r'^(?P<file>.+) \[projects\."(?P<dir>.+)"\]$')


def add_rule(policy: PermissionPolicy, kind: RuleKind, rule: str) -> Path | None:
    """Add `rule` to the project's local settings and the policy; returns the file written.

    Allow rules go through `save_rule`, into the same local file. Raises ValueError for a malformed rule.
    """
    if kind == "allow":
        return policy.save_rule(rule)
    entry = RuleSource(rule, kind, "", True, policy.project_dir)
    local = local_settings_file(policy.project_dir)
    try:
        rule_files.add_rule_to_file(local, kind, rule)
        entry.source = str(local)
    except (OSError, rule_files.SettingsWriteError):
        entry.source = "session"
    if not any(r.rule == rule and r.kind == kind and r.source == entry.source for r in policy.rules):
        policy.rules.append(entry)
    return local if entry.source != "session" else None


def remove_rule(policy: PermissionPolicy, entry: RuleSource) -> str:
    """Remove one listed rule from where it came from; returns a sentence saying what happened.

    An allow rule saved by an older version lives in two places (the local file and the user
    settings' `[projects."<dir>"]`); removing either removes both, so it really stops counting.
    """
    removed: list[str] = []
    sources = {entry.source}
    if entry.kind == "allow":
        sources |= {
            "session",  # save_rule's copy for this session, when its file does not count yet
            str(local_settings_file(policy.project_dir)),
            f'{user_settings_file()} [projects."{policy.project_dir}"]',
        }
    for source in sources:
        try:
            if _remove_from_source(policy, entry.kind, entry.rule, source):
                removed.append(source)
        except (OSError, rule_files.SettingsWriteError) as exc:
            return f"Could not remove `{entry.rule}`: {exc}"
    policy.rules = [
        r for r in policy.rules if not (r.rule == entry.rule and r.kind == entry.kind and r.source in sources)
    ]
    if not removed:
        return f"`{entry.rule}` was not found in {entry.source}; it is removed for this session only."
    return f"Removed `{entry.rule}` ({entry.kind}) from {', '.join(removed)}."


def _remove_from_source(policy: PermissionPolicy, kind: RuleKind, rule: str, source: str) -> bool:
    if source == "session":
        if rule in policy.session_allow:
            policy.session_allow.remove(rule)
            return True
        return False
    if source in CLI_SOURCES.values():
        plain = {"allow": policy.allow, "deny": policy.deny, "ask": policy.ask}[kind]
        if rule in plain:
            plain.remove(rule)
            return True
        return False
    match = PROJECT_LABEL.match(source)
    if match:
        return rule_files.remove_project_rule(Path(match["file"]), Path(match["dir"]), kind, rule)
    path = Path(source)
    return path.is_file() and rule_files.remove_rule_from_file(path, kind, rule)
