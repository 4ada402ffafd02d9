"""`-p`: one turn rendered as text, json or stream-json; stream-json input; the Agent SDK's control protocol over it."""
