"""The entry point: the command line's flags and checks, settings into AgentOptions, then the app, `-p`, or a subcommand."""
