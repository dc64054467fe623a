"""Small conveniences around the API (device queries)."""

from . import device

__all__ = ["device"]
