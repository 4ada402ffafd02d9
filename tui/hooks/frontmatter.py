"""Moved to `tui.config.frontmatter` (rules files under `.claude/rules/` are read by config too)."""

from tui.config.frontmatter import (
    MAX_LIST_DEPTH,
    FrontmatterError,
    as_bool,
    as_list,
    as_text,
    parse_fields,
    split_frontmatter,
)

__all__ = ["MAX_LIST_DEPTH", "FrontmatterError", "as_bool", "as_list", "as_text", "parse_fields", "split_frontmatter"]
