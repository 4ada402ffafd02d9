"""Extension points from the project and the user: hooks, custom commands, skills and prompt shortcuts."""
