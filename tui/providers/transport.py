"""The HTTP client under the SDK: the prewarmed TLS context, and a key helper's key on every request."""

from __future__ import annotations

from typing import Any

from .credentials import KeyHelper


def _set_key(request: Any, key: str) -> None:
    if "x-api-key" in request.headers:
        request.headers["x-api-key"] = key
    elif request.headers.get("authorization", "").lower().startswith("bearer "):
        request.headers["authorization"] = f"Bearer {key}"


def http_client(verify: Any, timeout: Any, helper: KeyHelper | None) -> Any:
    """An httpx client with the SDK's defaults; None when the SDK's own default will do."""
    import anthropic

    options: dict[str, Any] = {"timeout": timeout}
    if verify is not None:
        options["verify"] = verify
    if helper is None:
        return anthropic.DefaultHttpxClient(**options) if verify is not None else None
    keys: KeyHelper = helper

    class HelperKeyClient(anthropic.DefaultHttpxClient):
        """Sends the helper's current key; after a 401, runs the helper once more and resends."""

        def send(self, request: Any, **kwargs: Any) -> Any:
            _set_key(request, keys.key())
            response = super().send(request, **kwargs)
            if response.status_code != 401:
                return response
            response.close()
            _set_key(request, keys.key(refresh=True))
            return super().send(request, **kwargs)

    return HelperKeyClient(**options)
