"""A soft-wrapped document that remembers its height: Textual's sums every line's wrap offsets each time it is asked.

TextArea asks for the wrapped height ~60 times per keystroke, so in a 256 KiB prompt (thousands of
lines) each key cost ~130 ms; with the height kept until the wrapping changes it costs a few ms.
"""

from __future__ import annotations

from typing import Any

from textual.document._wrapped_document import WrappedDocument


class HeightCachingWrappedDocument(WrappedDocument):
    """WrappedDocument whose `height` is computed once per change of the wrapping (wrap, wrap_range)."""

    _height: int | None = None

    @property
    def height(self) -> int:
        if self._height is None:
            self._height = super().height
        return self._height

    def wrap(self, width: int, tab_width: int | None = None) -> None:
        self._height = None
        super().wrap(width, tab_width)

    def wrap_range(self, *args: Any, **kwargs: Any) -> None:
        self._height = None
        super().wrap_range(*args, **kwargs)


def caching_height(document: WrappedDocument) -> WrappedDocument:
    """The same document, answering `height` from a cache (only plain WrappedDocuments are converted)."""
    if type(document) is WrappedDocument:
        document.__class__ = HeightCachingWrappedDocument
    return document
