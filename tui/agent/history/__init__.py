"""A session's history on disk and back: transcripts, checkpoints, rewind and undo, resume, replay, export."""
