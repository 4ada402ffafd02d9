"""The built-in offline model: deterministic Messages API traffic about the user's real project.

Used when no API key is set or with `--offline`. It plugs under the real SDK as an httpx
transport, so everything above the HTTP layer runs exactly as it does against the API.
Importing this package never imports `anthropic` (it is on the startup path).
"""

from tui.agent.cost.pricing import OFFLINE_MODEL_NAME
from tui.agent.offline.brain import plan_reply
from tui.agent.offline.sse import encode_sse
from tui.agent.offline.transport import OfflineTransport, PacedEventStream

OFFLINE_MODEL_LABEL = "offline demo model"

__all__ = [
    "OFFLINE_MODEL_LABEL",
    "OFFLINE_MODEL_NAME",
    "OfflineTransport",
    "PacedEventStream",
    "encode_sse",
    "plan_reply",
]
