#!/usr/bin/env bash
# The test command: builds (scripts/setup.sh), runs every CPU test (unit,
# NVRTC compile-only, CLI golden), the host-side unit tests and the CLI
# golden runs again under ASan+UBSan, and the Python tests. GPU tests run
# with `ctest --test-dir build -L gpu -j8`.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
ctest --test-dir build -L cpu --output-on-failure -j"$(nproc)"

# The host-side unit tests (the parser fuzz test included) under
# AddressSanitizer and UndefinedBehaviorSanitizer.
asan_tests=(test_frontend test_passes test_ir test_api test_codegen test_providers test_runtime test_support)
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DEPIGEMM_SANITIZE=ON -DEPIGEMM_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j"$(nproc)" --target "${asan_tests[@]}" epigemm_cli
for t in "${asan_tests[@]}"; do
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 build-asan/tests/"$t" --gtest_brief=1
done
# The CLI's golden runs too (a sanitizer report on stderr fails the comparison).
ASAN_OPTIONS=detect_leaks=1 tests/cli/run_golden.sh build-asan/epigemm tests/golden

PYTHONPATH=build/python python3 -m pytest -q tests/python
