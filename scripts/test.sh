#!/usr/bin/env bash
# The test command: builds (scripts/setup.sh), runs every CPU test (unit,
# NVRTC compile-only, CLI golden), the parser fuzz test under ASan+UBSan, and
# the Python tests. GPU tests run with `ctest --test-dir build -L gpu`.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
ctest --test-dir build -L cpu --output-on-failure -j"$(nproc)"

# The front end (parser fuzz test included) under AddressSanitizer and
# UndefinedBehaviorSanitizer.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DEPIGEMM_SANITIZE=ON -DEPIGEMM_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j"$(nproc)" --target test_frontend test_passes
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 build-asan/tests/test_frontend
UBSAN_OPTIONS=print_stacktrace=1 build-asan/tests/test_passes

PYTHONPATH=build/python python3 -m pytest -q tests/python
