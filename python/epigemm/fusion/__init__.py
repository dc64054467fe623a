"""Epilogue fusion helpers; `epigemm.fusion.activation` holds the functions
an epilogue may call (the same objects as `epigemm.relu`, ...)."""

from . import activation

__all__ = ["activation"]
