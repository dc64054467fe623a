"""Which GPU architecture to build for: the current device's, or the one
named by EPIGEMM_TARGET_SM where no device exists (to list or compile
kernels for a GPU this machine does not have)."""

from __future__ import annotations

import os
import re
from typing import Union

from .. import _epigemm as _ext

TARGET_SM_ENV = "EPIGEMM_TARGET_SM"


def _parse_sm(value: Union[int, str], what: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    match = re.fullmatch(r"(?:sm_?)?(\d+)[a-z]?", str(value).strip().lower())
    if match is None:
        raise ValueError(f"{what} {value!r} is not an SM version such as 90, '90a' or 'sm_80'")
    return int(match.group(1))


def device_target_sm() -> int:
    """The SM version of the current CUDA device (e.g. 90), or 0 without one."""
    return _ext.device_target_sm()


def device_or_env_target_sm() -> int:
    """The current device's SM version; without a device, EPIGEMM_TARGET_SM
    (e.g. '90a'); else 0, which selects host operators only."""
    sm = _ext.device_target_sm()
    if sm:
        return sm
    env = os.environ.get(TARGET_SM_ENV, "").strip()
    return _parse_sm(env, TARGET_SM_ENV) if env else 0


def device_or_env_supports(required: Union[int, str]) -> _ext.Status:
    """Whether the target from device_or_env_target_sm() is at least the SM
    version `required` (e.g. 90 or '90a'); a falsy Status says why not."""
    needed = _parse_sm(required, "required SM version")
    sm = device_or_env_target_sm()
    if sm == 0:
        return _ext.Status(False, f"no CUDA device found and {TARGET_SM_ENV} is not set; sm_{required} is needed")
    if sm < needed:
        return _ext.Status(False, f"the target is sm_{sm}, older than the sm_{required} needed")
    return _ext.Status(True)
