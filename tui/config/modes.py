"""The permission modes, on their own so that reading settings does not import the permission engine."""

from __future__ import annotations

MODES = ("default", "acceptEdits", "plan", "bypassPermissions")
