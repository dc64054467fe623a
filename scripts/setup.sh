#!/usr/bin/env bash
# Installs what a fresh machine lacks (build tools, GoogleTest, Python test
# packages), then configures and builds epigemm into ./build.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v ninja >/dev/null || need_apt+=(ninja-build)
command -v g++ >/dev/null || need_apt+=(g++)
[ -f /usr/include/gtest/gtest.h ] || need_apt+=(libgtest-dev libgmock-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq "${need_apt[@]}"
fi
if [ ! -d /usr/local/cuda ] && ! command -v nvcc >/dev/null; then
  echo "setup: the CUDA toolkit (/usr/local/cuda) is required" >&2
  exit 1
fi

python_ok() { python3 -c "import nanobind, numpy, pytest, scikit_build_core" 2>/dev/null; }
if ! python_ok; then
  echo "setup: installing Python packages (nanobind, numpy, pytest, scikit-build-core)"
  python3 -m pip install -q nanobind numpy pytest scikit-build-core
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEPIGEMM_BUILD_PYTHON=ON >/dev/null
cmake --build build -j"$(nproc)"
