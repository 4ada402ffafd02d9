"""Providers and credentials: which API agent-tui talks to (Anthropic, Bedrock, Vertex AI) and with what key.

Stdlib-only at import; the cloud SDKs (boto3, google-auth) load only when their provider is chosen.
"""
