"""The words of a compaction's summary requests, in a leaf the offline model can read without the API client.

The offline model (tui/agent/offline/summary.py) knows a summary request by INSTRUCTION and answers it
with a summary, as a real model does.
"""

from __future__ import annotations

SUMMARY_HEADER = "[Summary of the earlier conversation, written when the context was compacted]"
INSTRUCTION = (
    "The conversation so far is about to be compacted to save context. Do not call any tools. "
    "Write a concise but complete summary of it for yourself to continue the work from: the user's goals "
    "and instructions (quote exact requirements), decisions made, files read or changed (with paths) and "
    "what changed in them, commands run and their outcomes, errors met and how they were solved, and what "
    "remains to do. Use short headed sections and bullet points. Reply with the summary only."
)
#: added to the instruction of every piece after the first, when a long history is summarised in pieces
CARRIED = (
    "This is part {part} of {parts} of a conversation too long for one request: its first message holds "
    "your summary of everything before this part. Write one summary of the whole conversation so far, that "
    "summary and this part together, keeping what still matters from both."
)
#: opens the running summary carried into the next piece's request
CARRIED_HEADER = "[Your summary of the conversation before this part]"
#: opens the first piece's request when the part before it is left out
LEFT_OUT_FIRST_PIECE = "[The older part of this conversation is left out of this request]"
