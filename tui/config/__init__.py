"""Settings layers, permission rules and memory files. Never imports Textual."""
