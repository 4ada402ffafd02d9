"""A user's prompt on its way in: the one pipeline (prepare, refuse, command turn, run), the commands and skills it expands, the calls a user asks for."""
