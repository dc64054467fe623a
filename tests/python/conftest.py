"""pytest fixtures for the Python tests: fresh random data each run, with
the seed printed so a failure can be replayed with EPIGEMM_TEST_SEED."""

from __future__ import annotations

import os
import secrets

import numpy as np
import pytest


@pytest.fixture
def rng() -> np.random.Generator:
    seed = int(os.environ.get("EPIGEMM_TEST_SEED", secrets.randbits(32)))
    print(f"EPIGEMM_TEST_SEED={seed}")
    return np.random.default_rng(seed)

