"""The engine: the agent loop, its events and its bus. Never imports Textual."""
