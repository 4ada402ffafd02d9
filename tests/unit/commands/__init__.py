"""Custom commands, skills and prompt shortcuts (issue 15)."""
