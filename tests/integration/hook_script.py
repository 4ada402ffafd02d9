"""A hook for tests: its argument (JSON) says what to do with the input it gets on stdin.

Keys: `record` (a file to write the input to), `stdout`, `stderr`, `exit`, `json` (printed as
JSON), `when` (a map from a word found in the tool input, prompt or compaction instructions to such a behaviour),
`stop_once` (block a Stop with this text unless `stop_hook_active`).
"""

from __future__ import annotations

import json
import sys

data = json.loads(sys.stdin.read() or "{}")
behaviour = json.loads(sys.argv[1])
if "record" in behaviour:
    with open(behaviour["record"], "w") as f:
        json.dump(data, f)
subject = (
    json.dumps(data.get("tool_input", {})) + str(data.get("prompt", "")) + str(data.get("custom_instructions", ""))
)
for word, chosen in behaviour.get("when", {}).items():
    if word in subject:
        behaviour = chosen
        break
if "stop_once" in behaviour:
    if not data.get("stop_hook_active"):
        sys.stderr.write(behaviour["stop_once"] + "\n")
        sys.exit(2)
    sys.exit(0)
if "json" in behaviour:
    print(json.dumps(behaviour["json"]))
if "stdout" in behaviour:
    print(behaviour["stdout"])
if "stderr" in behaviour:
    sys.stderr.write(behaviour["stderr"] + "\n")
sys.exit(behaviour.get("exit", 0))
