"""The agent loop and the parts it runs each iteration: limits, steering, the tools' dispatch and permission gate."""
