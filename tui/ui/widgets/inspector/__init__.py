"""The request/response inspector side panel (F2): `Inspector` and its data model."""

from .model import VIEWS, ApiCall, InspectorModel
from .panel import Inspector

__all__ = ["VIEWS", "ApiCall", "Inspector", "InspectorModel"]
