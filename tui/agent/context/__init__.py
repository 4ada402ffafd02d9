"""The context window: how full it is, what fills it (memory files, path rules), compaction and its plan, pinned prompts."""
