"""Command line: `agent-tui [PROMPT]` opens the app; `agent-tui -p PROMPT` runs headless.

Flags follow Claude Code's where they exist. Heavy imports (the SDK, Textual) happen
only in the branch that needs them.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.agent.options import AgentOptions
from tui.text.sanitize import visible
from tui.text.wording import plural

from .args import (
    NO_TTY,
    added_dirs,
    implies_print_mode,
    input_format_problem,
    no_prompt_message,
    prompt_words,
    read_stdin,
    sdk_flags_given,
    split_rules,
    unread_stdin_notice,
)
from .parser import SUBCOMMANDS, build_parser

if TYPE_CHECKING:
    from tui.agent.session import AgentSession


def options_from_args(args: argparse.Namespace, *, sandbox: bool = True) -> tuple[AgentOptions, list[str]]:
    """AgentOptions from settings files and flags (flags win); also the settings problems.

    `sandbox=False` leaves the process's sandbox as it is (`agent-tui acp` sets it up once, for its first session).
    """
    project_dir = (args.cwd or Path.cwd()).resolve()
    problems: list[str] = []
    settings = None
    trusted = mcp_seen = False
    hooks: list = []
    loaded = None
    try:
        from tui.config.settings import load_settings
        from tui.config.trust_notice import ignored_allow_notice

        loaded = load_settings(project_dir, extra=getattr(args, "settings", None))
        settings = loaded.settings
        trusted, mcp_seen = loaded.trusted, loaded.mcp_seen
        problems = list(loaded.problems)
        hooks = [] if loaded.hooks_disabled_by else loaded.hooks  # read once here, with --settings's
        if args.print_mode and (notice := ignored_allow_notice(loaded)):
            problems.append(notice)  # Claude Code's "Ignoring N permissions.allow entries …"
        if args.print_mode and not loaded.trusted:  # one line per other kind of thing skipped (hooks, agents …)
            from tui.trust.inventory import folder_inventory
            from tui.trust.notice import skipped_lines

            problems += skipped_lines(folder_inventory(project_dir, loaded))
        from tui.sandbox.runtime import configure as configure_sandbox

        if sandbox and (notice := configure_sandbox(settings.sandbox, str(project_dir)).quick_notice()):
            problems.append(notice)
    except ImportError:
        pass
    opts = AgentOptions(project_dir=project_dir)
    if loaded is not None and loaded.plugins_seen:  # else tui.plugins is never imported
        from tui.plugins.wiring import attach_plugins, plugin_hooks

        attach_plugins(opts, loaded)
        hooks = [*hooks, *plugin_hooks(opts.plugins, loaded)]
    if hooks:
        from tui.hooks.config import HookConfig

        opts.hooks = HookConfig(list(hooks), trusted=trusted)
    if settings is not None:
        opts.model = settings.model
        opts.max_tokens = settings.max_tokens
        opts.parallel_tools = settings.parallel_tools
        opts.max_parallel_subagents = settings.max_parallel_subagents
        opts.max_subagent_depth = settings.max_subagent_depth
        opts.permission_mode = settings.permission_mode
        opts.max_turns = settings.max_turns
        opts.max_budget_tokens = settings.max_budget_tokens
        opts.max_retries = settings.max_retries
        opts.stream_idle_timeout = settings.stream_idle_timeout
        opts.auto_compact_threshold = getattr(settings, "auto_compact_threshold", opts.auto_compact_threshold)
        opts.compaction = getattr(settings, "compaction", opts.compaction)
        for key in (
            "web_search_max_uses",
            "web_search_allowed_domains",
            "web_search_blocked_domains",
            "background_output_limit_mb",
            "image_max_edge",
        ):
            setattr(opts, key, getattr(settings, key, getattr(opts, key)))
        opts.cleanup_period_days = getattr(settings, "cleanup_period_days", opts.cleanup_period_days)
    if args.model:
        opts.model = args.model
    if args.max_turns is not None:
        opts.max_turns = args.max_turns
    if args.max_budget_tokens is not None:
        opts.max_budget_tokens = args.max_budget_tokens
    if args.max_tokens is not None:
        opts.max_tokens = args.max_tokens
    opts.max_budget_usd = args.max_budget_usd
    opts.effort = args.effort or getattr(settings, "effort", None)
    opts.add_dirs = added_dirs(args.add_dirs, project_dir)
    if args.permission_mode:
        opts.permission_mode = args.permission_mode
    if args.no_parallel:
        opts.parallel_tools = False
    opts.allowed_tools = split_rules(args.allowed)
    opts.disallowed_tools = split_rules(args.disallowed)
    opts.offline = bool(args.offline)
    if args.mcp_config or mcp_seen or (project_dir / ".mcp.json").exists():  # else tui.mcp is never imported
        from tui.mcp.approval import only_enabled
        from tui.mcp.options import fill_mcp_options

        approve = None if args.print_mode else only_enabled(project_dir, trusted)  # the app asks about new ones
        problems += fill_mcp_options(
            opts, args.mcp_config or [], strict=args.strict_mcp_config, trusted=trusted, approve=approve
        )
    if opts.plugins is not None and not args.strict_mcp_config:
        from tui.plugins.wiring import add_plugin_servers

        add_plugin_servers(opts, trusted)
    opts.lsp = lsp_options(settings, opts.plugins, trusted)
    from tui.providers.setup import configure

    configure(opts, settings, model_flag=args.model, fallback_model=args.fallback_model)
    if os.environ.get("AGENT_TUI_OFFLINE_DELAY"):
        opts.offline_delay = float(os.environ["AGENT_TUI_OFFLINE_DELAY"])
    from tui.agent.client import use_offline
    from tui.agent.cost.pricing import OFFLINE_MODEL_NAME

    if use_offline(opts) and not args.model:
        opts.model = OFFLINE_MODEL_NAME
    return opts, problems


def lsp_options(settings: Any, plugins: Any, trusted: bool) -> Any:
    """The language servers the settings and plugins configure, and the `[lsp]` switches (servers start later)."""
    from tui.lsp.servers import LspOptions, spec_from_table

    config = getattr(settings, "lsp", None)
    specs = [spec_from_table(n, t, config.sources.get(n, "")) for n, t in config.servers.items()] if config else []
    if plugins is not None:
        specs += [spec_from_table(name, table, where) for name, table, where in plugins.lsp_servers(trusted)]
    return LspOptions(tuple(specs), dict(config.switches) if config else {})


def main(argv: list[str] | None = None, *, own_process: bool = False) -> int:
    """Run the CLI. `own_process`: the process is ours alone (the console script), so -p may tune the GC."""
    words = sys.argv[1:] if argv is None else argv
    if words[:1] and words[0] in SUBCOMMANDS:  # `agent-tui mcp …`, `agent-tui replay [SESSION]`
        from importlib import import_module

        return int(import_module(SUBCOMMANDS[words[0]][0]).main(words[1:]))
    args = build_parser().parse_args(argv)
    args.print_mode = args.print_mode or implies_print_mode(args)  # the Agent SDK passes no -p
    if args.print_mode:
        if own_process:
            from tui.tools.shutdown import guard_stdout

            guard_stdout()  # `agent-tui -p … | head -1` ends quietly
        _start_print_mode(offline=bool(args.offline), tune_gc=own_process)
        try:
            return _run(args, own_process)
        finally:
            if not _exit_without_teardown:  # an early return: the teardown must not meet the TLS thread
                from tui.agent.client import finish_prewarm

                finish_prewarm()
    from tui.ui import gc_tuning

    gc_tuning.pause()  # no collections until the app's first frame (gc_tuning explains)
    try:
        return _run(args, own_process)
    finally:
        gc_tuning.restore()  # after an early error return too


def _run(args: argparse.Namespace, own_process: bool) -> int:
    prompt = prompt_words(args)
    if problem := input_format_problem(args, prompt):
        print(problem, file=sys.stderr)
        return 2
    from tui.ui.tty_check import terminal_missing  # no Textual in it

    if not args.print_mode and terminal_missing():
        print(NO_TTY, file=sys.stderr)
        if notice := unread_stdin_notice():
            print(notice, file=sys.stderr)
        return 2
    try:
        opts, problems = options_from_args(args)
    except (OSError, ValueError) as exc:
        return _startup_error(args, str(exc))  # a setting may quote a URL: its credentials show as ***
    if sdk_flags_given(args):
        from .sdk import apply_sdk_flags

        if refusals := apply_sdk_flags(args, opts):
            return _startup_error(args, " ".join(f"{r}." for r in refusals))
    if not opts.project_dir.is_dir():
        print(f"agent-tui: the project directory {opts.project_dir} does not exist.", file=sys.stderr)
        return 2
    telemetry = start_telemetry(opts, print_mode=args.print_mode)
    try:
        return _run_session(args, own_process, opts, problems, prompt)
    finally:
        if telemetry is not None:
            telemetry.close()  # the last export, bounded: an unreachable collector never holds the exit up


def start_telemetry(opts: AgentOptions, *, print_mode: bool) -> Any:
    """Claude Code's OpenTelemetry export if CLAUDE_CODE_ENABLE_TELEMETRY is on (only then is tui.telemetry imported)."""
    if os.environ.get("CLAUDE_CODE_ENABLE_TELEMETRY", "").strip().lower() not in ("1", "true", "yes", "on"):
        return None
    from tui.telemetry import start

    telemetry = start(interactive=not print_mode)
    if telemetry is not None:
        opts.on_session.append(telemetry.attach)  # the session the run builds subscribes it to its bus
    return telemetry


def _run_session(
    args: argparse.Namespace, own_process: bool, opts: AgentOptions, problems: list[str], prompt: str
) -> int:
    """-p's one turn, or the app (resumed with -c/-r); returns the exit code."""
    if args.print_mode:
        for problem in problems:
            print(visible(f"agent-tui: settings: {problem}"), file=sys.stderr)  # may quote the file
        for notice in opts.plugins.notices() if opts.plugins is not None else ():
            print(visible(f"agent-tui: {notice}"), file=sys.stderr)
        from tui.agent.api.thinking import effort_refusal, model_thinking  # with --effort only (~1.6 ms)

        if args.effort and (note := effort_refusal(opts.model, model_thinking(opts.model), args.effort)):
            print(visible(f"agent-tui: --effort: {note}"), file=sys.stderr)
        stream_input = args.input_format == "stream-json"  # prompts come from stdin, one JSON line each
        if not stream_input:
            prompt, skipped = read_stdin(prompt)  # `cat file | agent-tui -p "explain"`: stdin, then the prompt
            if skipped:
                print(skipped, file=sys.stderr)
        if not prompt and not stream_input:
            print(no_prompt_message(args), file=sys.stderr)
            return 2
        from tui.headless.run import run_headless

        if own_process:
            _freeze_startup_objects()
        try:
            session = open_session(opts, args, print_mode=True)
        except LookupError as exc:
            return _startup_error(args, str(exc))
        code = run_headless(
            opts,
            prompt,
            args.output_format,
            partial=args.include_partial_messages,
            session=session,
            verbose=args.verbose,
            hook_events=args.include_hook_events,
            input_stream=sys.stdin if stream_input else None,
            permission_prompt=args.permission_prompt_tool == "stdio",
        )
        global _exit_without_teardown
        _exit_without_teardown = own_process
        return code
    if args.continue_ or args.resume is not None:
        try:
            session = open_session(opts, args, print_mode=False)
        except LookupError as exc:
            print(visible(f"agent-tui: {exc}"), file=sys.stderr)
            return 2
        from tui.ui.screens.resume_screen import run_resumed_app

        return run_resumed_app(opts, prompt or None, session, picker=args.resume == "")
    from tui.ui.app import run_app

    return run_app(opts, prompt or None)


def _startup_error(args: argparse.Namespace, sentence: str) -> int:
    from .sdk import startup_error

    return startup_error(args, sentence)


#: set when a -p run has finished and flushed everything: `entry` may then skip the interpreter teardown
_exit_without_teardown = False


def _start_print_mode(*, offline: bool, tune_gc: bool) -> None:
    """-p start-up: fewer GC passes over the import-time objects, TLS context loading on a thread."""
    if tune_gc:  # CPython's default young threshold (700) ran ~130 collections during start-up
        import gc

        from tui.ui.gc_tuning import THRESHOLDS  # no Textual in it: the app's own GC settings

        gc.set_threshold(*THRESHOLDS)
    if not offline:
        from tui.agent.client import credentials_present, prewarm_tls

        if credentials_present():
            prewarm_tls()


def _freeze_startup_objects() -> None:
    """Import the SDK, then move everything loaded so far out of the collector's sight.

    A full collection walks the SDK's pydantic validators in ~100 ms; the objects of start-up
    live for the whole run, so scanning them again buys nothing (Instagram's gc.freeze trick).
    """
    import gc
    from importlib import import_module

    import_module("anthropic")  # the session imports it on the first request anyway
    gc.freeze()


def entry() -> None:
    """The `agent-tui` console script: `main()`, then exit.

    After a -p run everything is written, flushed and closed, so the process leaves with
    `os._exit` instead of tearing down the interpreter (a final GC pass and module cleanup
    that cost 0.1-0.2 s for nothing).
    """
    from tui.tools import shutdown

    shutdown.install()  # SIGTERM/SIGHUP/Ctrl+C: no traceback, Bash's children killed, temp files gone
    code = shutdown.run_entry(lambda: main(own_process=True))
    if _exit_without_teardown:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)
    raise SystemExit(code)


def open_session(opts: AgentOptions, args: argparse.Namespace, *, print_mode: bool) -> AgentSession | None:
    """The session -c / -r ID asks for (None without them); LookupError with a sentence when there is none."""
    if not args.continue_ and args.resume is None:
        if getattr(args, "fork_session", False):
            print("agent-tui: --fork-session applies only with -c or -r; ignored.", file=sys.stderr)
        return None
    from tui.agent.history.resume import list_sessions, sessions_base
    from tui.agent.session import AgentSession

    skipped: list[str] = []
    sessions = list_sessions(opts.project_dir, sessions_base(opts), skipped)
    for sentence in skipped:
        print(f"agent-tui: {sentence}", file=sys.stderr)
    target: str | Path | None = args.resume or None  # a str is only ever a session id (session_ids.py)
    if target is None and args.resume == "":  # -r without an id: the app shows a picker
        if print_mode:
            lines = [f"  {s.id}  {s.started}  {plural(s.turns, 'turn')}  {s.first_prompt[:60]}" for s in sessions[:20]]
            listing = "\n".join(lines) if lines else "  (none)"
            raise LookupError(f"-r needs a session id with -p. Sessions of this project, newest first:\n{listing}")
        if not sessions:
            print("agent-tui: no saved session in this project yet; starting a new one.", file=sys.stderr)
        return None
    if target is None:  # -c
        if not sessions:
            print("agent-tui: no saved session in this project to continue; starting a new one.", file=sys.stderr)
            return None
        target = sessions[0].path
    opts.interactive = not print_mode  # the dispatcher reads it at construction
    session = AgentSession(opts)
    loaded = session.resume(target, fork=bool(getattr(args, "fork_session", False)))
    for sentence in [*loaded.warnings, *loaded.notes]:
        print(visible(f"agent-tui: {sentence}"), file=sys.stderr)
    return session


if __name__ == "__main__":
    entry()
