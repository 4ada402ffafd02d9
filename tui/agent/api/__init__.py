"""One call to the model's API: the request body (system prompt, environment, thinking), the stream, retries."""
