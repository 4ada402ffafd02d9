"""Text shared by every room: made safe for the terminal (sanitize), secrets hidden (redact), counted wording. A leaf: imports no room."""
