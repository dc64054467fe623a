"""Epilogue source text from a Python function or a string.

The C++ parser reads the text (decorators, comments, docstrings and
annotations included); this module only fetches and dedents it, and maps
error positions back to the file the function came from.
"""

from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass
from typing import Any, Callable, Optional, Union


@dataclass(frozen=True)
class EpilogueSource:
    """The text handed to the parser and where its first line came from."""

    text: str
    filename: Optional[str] = None  # None for a string epilogue
    first_line: int = 1  # line of `filename` holding the text's line 1

    def annotate(self, error: SyntaxError) -> None:
        """Points a SyntaxError raised for this text at the user's code."""
        lineno = getattr(error, "lineno", None)
        if not isinstance(lineno, int) or lineno <= 0:
            return
        lines = self.text.splitlines()
        if lineno <= len(lines):
            error.text = lines[lineno - 1] + "\n"
        if self.filename is not None:
            error.filename = self.filename
            error.lineno = self.first_line + lineno - 1


def epilogue_source(epilogue: Union[str, Callable[..., Any]]) -> EpilogueSource:
    """The source of `epilogue`: a string as it is, or a function's source."""
    if isinstance(epilogue, str):
        return EpilogueSource(epilogue)
    if not callable(epilogue):
        raise TypeError(
            f"the epilogue must be a function or a string, not {type(epilogue).__name__}"
        )
    function = inspect.unwrap(epilogue)
    name = getattr(function, "__qualname__", getattr(function, "__name__", repr(function)))
    if getattr(function, "__name__", "") == "<lambda>":
        raise ValueError(
            "a lambda cannot be an epilogue: write it with def (its first parameter accum), "
            "or pass the source as a string"
        )
    try:
        lines, first_line = inspect.getsourcelines(function)
        filename = inspect.getsourcefile(function)
    except (OSError, TypeError) as exc:
        raise ValueError(
            f"cannot read the source of the epilogue function {name} ({exc}); "
            "functions typed at an interactive prompt have none: pass the source as a string"
        ) from None
    return EpilogueSource(textwrap.dedent("".join(lines)), filename, max(first_line, 1))
