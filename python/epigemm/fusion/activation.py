"""The functions an epilogue may call, under the module path CUTLASS's
Python examples import them from (`...fusion.activation import relu`)."""

from ..functions import *  # noqa: F401,F403
from ..functions import __all__  # noqa: F401
