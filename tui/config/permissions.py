"""Permission policy: decides allow / deny / ask for each gated tool call.

Claude Code's order: a matching deny rule wins, then ask, then allow; anything
unmatched falls to the mode. Writes outside the project or into `.git/`, `.agent-tui/`
or `.claude/` always ask (except in bypassPermissions), whatever the allow rules say.
Bash commands are split into their parts (bash_parse.py) and every part must pass; a command
whose meaning is known only when it runs (an expansion, `$'…'`, `eval` …) meets the deny rules
but is never allowed by a narrower rule or as read-only. In a folder the user has not trusted,
a git command counts as read-only only when no config or hook it reads names a program.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tui.config import rule_files
from tui.config.bash_cd import cd_compound_problem
from tui.config.bash_parse import ParsedBash, SimpleCommand, WriteTarget, parse_bash
from tui.config.bash_paths import file_arguments, outside_project
from tui.config.git_reads import git_runs_programs
from tui.config.modes import MODES
from tui.config.paths import (
    PROTECTED_DIRS,
    local_settings_file,
    project_settings_file,
    user_config_dir,
    user_settings_file,
)
from tui.config.readonly import is_read_only
from tui.config.rules import (
    FILE_READ_TOOLS,
    Rule,
    RuleKind,
    RuleSource,
    command_matches,
    path_matches,
    path_variants,
    target_matches,
    tool_matches,
)
from tui.config.suggest import suggest_bash_rule, suggest_path_rule

if TYPE_CHECKING:
    from tui.tools.base import Tool, ToolContext

Decision = Literal["allow", "deny", "ask"]
#: where "always allow" saves a rule: the project's local file, its shared file, or the user's file
RuleDestination = Literal["local", "project", "user"]


def rule_destinations(project_dir: Path) -> list[tuple[RuleDestination, Path, str]]:
    """The files "always allow" can save a rule to, as Claude Code offers them: (key, file, who it is for)."""
    return [
        ("local", local_settings_file(project_dir), "this project, only you, not checked in"),
        ("project", project_settings_file(project_dir), "this project, everyone, checked in"),
        ("user", user_settings_file(), "every project, only you"),
    ]


def rule_for_user_file(rule: str, project_dir: Path) -> str:
    """A rule with a project-relative `/path` rewritten `//abs/path`: in the user file `/` is that file's folder."""
    name, paren, rest = rule.partition("(")
    if paren and rest.startswith("/") and not rest.startswith("//"):
        return f"{name}(/{project_dir.as_posix().rstrip('/')}{rest}"
    return rule


PLAN_REASON = (
    "Plan mode is on: {name} cannot run because it could change something. Only read-only "
    "tools are available; finish exploring, then present your plan with ExitPlanMode instead of making changes."
)
CLI_SOURCES: dict[RuleKind, str] = {"allow": "--allowedTools", "deny": "--disallowedTools", "ask": "command line"}


def next_mode(current: str, allow_bypass: bool) -> str:
    """The mode Shift+Tab switches to: default → acceptEdits → plan (→ bypassPermissions)."""
    cycle = [m for m in MODES if m != "bypassPermissions" or allow_bypass]
    return cycle[(cycle.index(current) + 1) % len(cycle)] if current in cycle else cycle[0]


@dataclass(frozen=True)
class Verdict:
    decision: Decision
    reason: str
    rule: str | None = None
    source: str | None = None  # where the rule came from ("--allowedTools", a settings path, "mode")


@dataclass
class _Part:
    """The verdict for one part of a call (a simple command or a write)."""

    status: str  # "deny" | "ask" | "allow" | "unmatched" | "boundary"
    what: str
    rule: RuleSource | None = None


#: the fields whose assignment may allow a waiting question (the mode above all)
_WATCHED = frozenset({"mode", "rules", "session_allow", "allow"})


@dataclass
class PermissionPolicy:
    """The rules in force (settings files, command line, session) plus the permission mode."""

    mode: str = "default"
    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    ask: list[str] = field(default_factory=list)
    project_dir: Path = field(default_factory=Path.cwd)
    session_allow: list[str] = field(default_factory=list)
    #: rules loaded from settings files (see settings.build_policy)
    rules: list[RuleSource] = field(default_factory=list)
    #: rules given as plain lists that do not parse, one sentence each
    problems: list[str] = field(default_factory=list)
    #: False in a folder the user has not trusted: its git config may name programs
    trusted: bool = True
    #: working directories added with --add-dir or /add-dir: inside the project for every check
    extra_dirs: list[Path] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"Unknown permission mode `{self.mode}`; use one of {', '.join(MODES)}.")
        self.project_dir = Path(os.path.abspath(self.project_dir))
        self._cache: dict[tuple[str, str, str], RuleSource | None] = {}
        self._watchers: list[Callable[[], None]] = []

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name in _WATCHED and "_watchers" in self.__dict__:
            self.changed()

    def watch(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback` when the mode changes or an allow rule is added; returns what stops watching."""
        self._watchers.append(callback)
        return lambda: self._watchers.remove(callback) if callback in self._watchers else None

    def changed(self) -> None:
        """Tell the watchers (a permission question waiting on the rules: dispatch_permission.py)."""
        for watcher in list(self._watchers):
            watcher()

    # -- the rules in force ----------------------------------------------------------------
    def _plain(self, text: str, kind: RuleKind, source: str) -> RuleSource | None:
        key = (text, kind, source)
        if key not in self._cache:
            try:
                self._cache[key] = RuleSource(text, kind, source, True, self.project_dir)
            except ValueError as exc:
                self._cache[key] = None
                self.problems.append(f"{source}: {exc}")
        return self._cache[key]

    def effective_rules(self) -> list[RuleSource]:
        """Every rule known to the policy, counting or not, with where it came from."""
        plain: list[RuleSource | None] = [
            *(self._plain(r, "deny", CLI_SOURCES["deny"]) for r in self.deny),
            *(self._plain(r, "ask", CLI_SOURCES["ask"]) for r in self.ask),
            *(self._plain(r, "allow", CLI_SOURCES["allow"]) for r in self.allow),
            *(self._plain(r, "allow", "session") for r in self.session_allow),
        ]
        return [*self.rules, *(r for r in plain if r is not None)]

    def _counting(self, kind: RuleKind, tool_name: str, tool_kind: str) -> list[RuleSource]:
        return [
            r
            for r in self.effective_rules()
            if r.counts
            and r.kind == kind
            and r.parsed is not None
            and tool_matches(r.parsed, tool_name, tool_kind, kind)
        ]

    # -- the decision ----------------------------------------------------------------------
    def check(self, tool: Tool, tool_input: dict[str, Any], ctx: ToolContext) -> Verdict:
        """Allow, deny or ask for this call."""
        try:
            target = tool.permission_target(tool_input, ctx)
        except Exception:  # a tool that cannot name its target is checked without one
            target = None
        if tool.kind == "exec" and (target or tool_input.get("command")):
            return self._check_bash(tool, str(target or tool_input.get("command")), ctx)
        if tool.kind == "edit" or tool.name in FILE_READ_TOOLS:
            path = self._target_path(tool, tool_input, target, ctx)
            if path is not None:
                return self._check_path(tool, path)
        return self._check_generic(tool, target)

    def _target_path(self, tool: Tool, tool_input: dict[str, Any], target: str | None, ctx: ToolContext) -> Path | None:
        raw = target or tool_input.get("path") or tool_input.get("file_path") or tool_input.get("notebook_path")
        if raw is None and tool.name in FILE_READ_TOOLS:
            raw = str(ctx.project_dir)
        return ctx.resolve(str(raw)) if raw else None

    def _check_generic(self, tool: Tool, target: str | None) -> Verdict:
        name = tool.name

        def match(kind: RuleKind) -> RuleSource | None:
            return self._first(kind, name, tool.kind, lambda r: target_matches(r.specifier, target))

        if rule := match("deny"):
            return self._verdict("deny", f"{name} is denied by the rule `{rule.rule}`.", rule)
        if self.mode == "bypassPermissions":
            return Verdict("allow", "bypassPermissions mode", None, "mode")
        if self.mode == "plan" and not tool.read_only:
            return Verdict("deny", PLAN_REASON.format(name=name), None, "mode")
        if rule := match("ask"):
            return self._verdict("ask", f"{name} needs approval (rule `{rule.rule}`).", rule)
        if tool.read_only:
            return Verdict("allow", "read-only", None, "builtin")
        if rule := match("allow"):
            return self._verdict("allow", f"{name} is allowed by the rule `{rule.rule}`.", rule)
        if self.mode == "acceptEdits" and tool.kind == "edit":
            return Verdict("allow", "acceptEdits mode", None, "mode")
        return Verdict("ask", f"{name} needs approval.", None, "mode")

    def _first(self, kind: RuleKind, name: str, tool_kind: str, test: Any) -> RuleSource | None:
        for rule in self._counting(kind, name, tool_kind):
            if test(rule.parsed):
                return rule
        return None

    def _path_rule(self, kind: RuleKind, name: str, tool_kind: str, path: Path, every: bool) -> RuleSource | None:
        """The first rule matching `path`: any of its variants for deny/ask, all of them for allow."""
        variants = path_variants(path)
        for rule in self._counting(kind, name, tool_kind):
            base = rule.base_dir or self.project_dir
            hits = [path_matches(rule.parsed.specifier, v, base, self.project_dir) for v in variants]  # type: ignore[union-attr]
            if all(hits) if every else any(hits):
                return rule
        return None

    def read_allowed_by_rule(self, path: Path) -> str | None:
        """The allow rule that names reading `path` (every form of it), else None: what lets an outside `@path` in."""
        rule = self._path_rule("allow", "Read", "read", path, every=True)
        return rule.rule if rule is not None else None

    def _inside_working_dirs(self, path: Path) -> bool:
        roots = [r for folder in (self.project_dir, *self.extra_dirs) for r in path_variants(Path(folder))]
        return all(any(v == r or r in v.parents for r in roots) for v in path_variants(path))

    def boundary_problem(self, path: Path) -> str | None:
        """Why writing `path` must ask even with an allow rule: outside the project, or protected."""
        roots = [r for folder in (self.project_dir, *self.extra_dirs) for r in path_variants(Path(folder))]
        for variant in path_variants(path):
            for root in roots:
                try:
                    parts = variant.relative_to(root).parts
                    break
                except ValueError:
                    continue
            else:
                return f"{path} is outside the project folder"
            if any(p in PROTECTED_DIRS for p in parts):
                return f"{path} is inside a protected folder ({', '.join(PROTECTED_DIRS)})"
        return None

    def _check_path(self, tool: Tool, path: Path) -> Verdict:
        name, kind = tool.name, tool.kind
        if rule := self._path_rule("deny", name, kind, path, every=False):
            return self._verdict("deny", f"{name} on {path} is denied by the rule `{rule.rule}`.", rule)
        if self.mode == "bypassPermissions":
            return Verdict("allow", "bypassPermissions mode", None, "mode")
        if kind != "edit":
            if rule := self._path_rule("ask", name, kind, path, every=False):
                return self._verdict("ask", f"{name} on {path} needs approval (rule `{rule.rule}`).", rule)
            if tool.read_only:
                return Verdict("allow", "read-only", None, "builtin")
            if self.mode == "plan":
                return Verdict("deny", PLAN_REASON.format(name=name), None, "mode")
            if rule := self._path_rule("allow", name, kind, path, every=True):
                return self._verdict("allow", f"{name} is allowed by the rule `{rule.rule}`.", rule)
            return Verdict("ask", f"{name} needs approval.", None, "mode")
        part = self._write_part(path, name, kind)
        if self.mode == "plan":
            return Verdict("deny", PLAN_REASON.format(name=name), None, "mode")
        return self._combine([part], name)

    def _write_part(self, path: Path, name: str = "Edit", kind: str = "edit") -> _Part:
        """The verdict for writing one path, deny rules excepted (checked first by the caller)."""
        if rule := self._path_rule("ask", name, kind, path, every=False):
            return _Part("ask", f"writing {path}", rule)
        if problem := self.boundary_problem(path):
            return _Part("boundary", problem)
        if rule := self._path_rule("allow", name, kind, path, every=True):
            return _Part("allow", f"writing {path}", rule)
        if self.mode == "acceptEdits":
            return _Part("allow", f"writing {path} (acceptEdits mode)")
        return _Part("unmatched", f"writing {path}")

    # -- Bash --------------------------------------------------------------------------------
    def _check_bash(self, tool: Tool, command: str, ctx: ToolContext) -> Verdict:
        name = tool.name
        bash_cwd = getattr(ctx.state, "bash_cwd", None)
        cwd = Path(bash_cwd) if bash_cwd else ctx.project_dir
        parsed = parse_bash(command, cwd)
        if parsed.error is not None:
            return self._unparseable(tool, command, parsed.error)
        for cmd in parsed.commands:
            if rule := self._command_rule("deny", name, cmd, every_form=True):
                return self._verdict("deny", f"`{cmd.text}` is denied by the rule `{rule.rule}`.", rule)
            for path in file_arguments(cmd, self.project_dir):  # `cat .env` meets `Read(./.env)`
                if rule := self._path_rule("deny", "Read", "read", path, every=False):
                    return self._verdict("deny", f"`{cmd.text}` reads {path}, denied by the rule `{rule.rule}`.", rule)
        for write in parsed.writes:
            if not write.harmless and write.paths:
                for path in write.paths:
                    if rule := self._path_rule("deny", "Edit", "edit", path, every=False):
                        return self._verdict("deny", f"Writing {path} is denied by the rule `{rule.rule}`.", rule)
        if self.mode == "bypassPermissions":
            return Verdict("allow", "bypassPermissions mode", None, "mode")
        if parsed.unsure:
            return self._unparseable(tool, command, f"it holds {parsed.unsure[0]}, known only when it runs")
        read_deny = any(r.parsed.tool == "Read" for r in self._counting("deny", "Read", "read") if r.parsed)
        if why := cd_compound_problem(parsed, cwd, self._inside_working_dirs, read_deny):
            return Verdict("ask", why, None, "boundary")
        parts = [self._command_part(name, cmd) for cmd in parsed.commands]
        parts += [self._redirect_part(w) for w in parsed.writes if not w.harmless]
        if self.mode == "plan":
            if all(p.status == "allow" and p.rule is None for p in parts) and not any(
                not w.harmless for w in parsed.writes
            ):
                return Verdict("allow", "read-only command", None, "builtin")
            return Verdict("deny", PLAN_REASON.format(name=f"`{command.strip()}`"), None, "mode")
        return self._combine(parts, name)

    def _unparseable(self, tool: Tool, command: str, error: str) -> Verdict:
        text = " ".join(command.split())
        deny = self._first("deny", tool.name, tool.kind, lambda r: command_matches(r.specifier, text))
        if deny:
            return self._verdict("deny", f"This command is denied by the rule `{deny.rule}`.", deny)
        if self.mode == "plan":
            return Verdict("deny", PLAN_REASON.format(name="this command"), None, "mode")
        scoped_deny = any(r.parsed and r.parsed.specifier for r in self._counting("deny", tool.name, tool.kind))
        if self.mode == "bypassPermissions" and not scoped_deny:
            return Verdict("allow", "bypassPermissions mode", None, "mode")
        if not self._counting("ask", tool.name, tool.kind) and not scoped_deny:
            allow = self._first("allow", tool.name, tool.kind, lambda r: r.specifier is None)
            if allow:
                return self._verdict("allow", f"Every command is allowed by the rule `{allow.rule}`.", allow)
        return Verdict("ask", f"This command could not be checked ({error}); it needs approval.", None, "parser")

    def _command_rule(self, kind: RuleKind, name: str, cmd: SimpleCommand, every_form: bool) -> RuleSource | None:
        forms = cmd.forms if every_form and cmd.forms else [cmd.text]
        return self._first(kind, name, "exec", lambda r: any(command_matches(r.specifier, f) for f in forms))

    def _command_part(self, name: str, cmd: SimpleCommand) -> _Part:
        if rule := self._command_rule("ask", name, cmd, every_form=True):
            return _Part("ask", f"`{cmd.text}`", rule)
        if problem := outside_project(cmd, self.project_dir, self.extra_dirs):
            return _Part("boundary", f"`{cmd.text}` reaches outside the project ({problem})")
        if why := self._git_runs_programs(cmd):
            return _Part("boundary", f"`{cmd.text}` could run a program from a repository you have not trusted ({why})")
        if is_read_only(cmd):
            return _Part("allow", f"`{cmd.text}` (read-only)")
        if rule := self._command_rule("allow", name, cmd, every_form=False):
            return _Part("allow", f"`{cmd.text}`", rule)
        return _Part("unmatched", f"`{cmd.text}`")

    def _git_runs_programs(self, cmd: SimpleCommand) -> str | None:
        """In an untrusted folder, why `git status` may run a program: a config or hook it reads names one (git_reads.py)."""
        if self.trusted or cmd.argv[:1] != ["git"]:
            return None
        if cmd.cwds is None:
            return "where it runs is known only when it runs"
        return next((why for cwd in cmd.cwds if cwd.is_dir() and (why := git_runs_programs(cwd))), None)

    def _redirect_part(self, write: WriteTarget) -> _Part:
        if write.paths is None:
            return _Part("boundary", f"the output file `{write.raw}` cannot be known before the command runs")
        parts = [self._write_part(p) for p in write.paths]
        return next((p for p in parts if p.status != "allow"), parts[0])

    def _combine(self, parts: list[_Part], name: str) -> Verdict:
        """Deny if a part is denied, ask if any part asks or is unmatched, else allow."""
        for status in ("deny", "ask", "boundary", "unmatched"):
            hit = next((p for p in parts if p.status == status), None)
            if hit is None:
                continue
            if status == "ask" and hit.rule:
                return self._verdict("ask", f"{hit.what} needs approval (rule `{hit.rule.rule}`).", hit.rule)
            if status == "boundary":
                return Verdict("ask", f"{hit.what[0].upper()}{hit.what[1:]}; it needs approval.", None, "boundary")
            return Verdict("ask", f"{name}: {hit.what} needs approval.", None, "mode")
        used = next((p.rule for p in parts if p.rule is not None), None)
        if used is not None:
            return self._verdict("allow", f"{name} is allowed by the rule `{used.rule}`.", used)
        if parts and all(p.what.endswith("(read-only)") for p in parts):
            return Verdict("allow", "read-only command", None, "builtin")
        return Verdict("allow", "acceptEdits mode" if self.mode == "acceptEdits" else "allowed", None, "mode")

    @staticmethod
    def _verdict(decision: Decision, reason: str, rule: RuleSource) -> Verdict:
        return Verdict(decision, reason, rule.rule, rule.source)

    # -- remembering answers -----------------------------------------------------------------
    def suggest_rule(self, tool: Tool, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        """The rule "always allow" would save for this call (a prefix for Bash, a folder for edits)."""
        try:
            target = tool.permission_target(tool_input, ctx)
        except Exception:
            target = None
        if tool.kind == "exec" and (target or tool_input.get("command")):
            command = str(target or tool_input.get("command"))
            parsed: ParsedBash = parse_bash(command, ctx.project_dir)
            pending = [c for c in parsed.commands if self._command_part(tool.name, c).status != "allow"]
            writes = [w.paths[0] for w in parsed.writes if not w.harmless and w.paths]
            if not pending and writes:
                return suggest_path_rule("Edit", writes[0], self.project_dir)
            first = (pending or parsed.commands or [None])[0]  # type: ignore[list-item]
            return suggest_bash_rule(tool.name, first, command)
        if tool.kind == "edit":
            path = self._target_path(tool, tool_input, target, ctx)
            return suggest_path_rule("Edit", path, self.project_dir) if path else "Edit"
        if tool.name == "WebFetch" and target:
            return suggest_path_rule("WebFetch", None, self.project_dir, url=target)
        return tool.name

    def add_session_rule(self, rule: str) -> None:
        """Allow calls matching `rule` for the rest of this session; raises ValueError if malformed."""
        Rule.parse(rule)
        if rule not in self.session_allow:
            self.session_allow.append(rule)
            self.changed()

    def save_rule(self, rule: str, destination: RuleDestination = "local") -> Path | None:
        """Allow `rule` now and after a restart, in exactly one settings file; returns that file.

        `destination` picks it (`rule_destinations`). A rule in a project file of a folder the user has not
        trusted does not count after a restart (as every project setting there); it holds for this session.
        When the file cannot be written, the rule holds for this session only and None is returned.
        """
        Rule.parse(rule)
        if destination == "user":
            rule = rule_for_user_file(rule, self.project_dir)
        path = next(file for key, file, _ in rule_destinations(self.project_dir) if key == destination)
        try:
            rule_files.add_rule_to_file(path, "allow", rule)
        except (OSError, rule_files.SettingsWriteError):
            self.add_session_rule(rule)  # could not be saved: it still holds for this session
            return None
        counts = destination == "user" or self.trusted
        if not counts:
            self.add_session_rule(rule)
        if not any(r.rule == rule and r.kind == "allow" and r.source == str(path) for r in self.rules):
            base = user_config_dir() if destination == "user" else self.project_dir
            self.rules.append(RuleSource(rule, "allow", str(path), counts, base))
            self.changed()
        return path
