"""The engine: the agent loop, its events and its bus. Never imports Textual.

Its public face, the only modules a front end (the app, -p, ACP, the Agent SDK, replay, telemetry) imports
(tests/unit/test_front_face.py; docs/architecture.md, "The front door"):

- tui.agent.door: `Session`, the operations and views a front end uses, and the types they name;
- tui.agent.events: the events, and `PermissionReply`, the answer to `PermissionRequested`;
- tui.agent.options: `AgentOptions`;
- tui.agent.prompt.pipeline: the prompt sources, `Submitted`, `is_pin_prompt`;
- tui.agent.inbox: the `inbox` view's type, and `joined`;
- read-only helpers: tui.agent.cost.pricing, tui.agent.api.thinking, tui.agent.cost.report, tui.agent.history.resume,
  tui.agent.history.session_tree, tui.agent.history.replay_check and tui.agent.history.replay (the replay front end's player).

The builders also import tui.agent.session (to build one) and tui.agent.client (start-up). This package
imports nothing, so `import tui.agent` stays cheap: import the module you need.
"""
