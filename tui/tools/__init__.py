"""The tools the model may call. Never imports Textual."""
