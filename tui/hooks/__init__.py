"""Extension points from the project and the user: hooks, custom commands, skills, prompt shortcuts.

Hooks: Claude Code's `hooks` settings read from every source, matched and run around the loop.

Nothing here is imported unless a settings file holds a `hooks` block (no cost otherwise).
`tui.config.hooks_config` reads the blocks and `tui.config.hook_matcher` picks the handlers (settings parse
them; `config` and `matcher` here name the same things), `runner` runs them as tracked processes and
`outcome` reads what they printed. `EVENTS` (every event agent-tui fires) lives in `tui.config.hooks_config`.
"""
