#!/usr/bin/env bash
# The GPU tests on a kernel patch before its times are trusted: copies the
# tree, applies PATCH, builds test_gpu into build-tests-patched/ (kept: the
# copy keeps the tree's file times, so a second call on the same machine
# rebuilds what the patch touches) and runs, for
# each TILE, the suites that cover every 16-bit tile configuration with
# EPIGEMM_TEST_TILES=TILE (sm90_problem.hpp's bits16_tile_configs), the
# tiles side by side; then the patched tree's whole `ctest -L gpu -j8` if
# PATCH_TESTS_ALL=1 and time is left. Logs go to $OUT (or the build folder).
#
# usage: bench/sm90_dev/patch_tests.sh PATCH TILE...   e.g.
#   bench/sm90_dev/patch_tests.sh bench/sm90_dev/tall_tile_pairs.patch 192x96x64_c2x1
#   PATCH_TESTS_LIMIT=S  stop the tests S seconds after the start (default 540)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/bench/sm90_dev/patched_tree.sh"
patch_file=$(realpath "${1:?usage: bench/sm90_dev/patch_tests.sh PATCH TILE...}")
shift
(( $# > 0 )) || { echo "name at least one tile, e.g. 192x96"; exit 2; }
limit=${PATCH_TESTS_LIMIT:-540}
start=$(date +%s)
build=$root/build-tests-patched
out=${OUT:-$build}
mkdir -p "$build" "$out"
copy=$build/src
rm -rf "$copy" && mkdir -p "$copy"
patched_tree "$root" "$patch_file" "$copy" || exit 1
cmake -S "$copy" -B "$build/out" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEPIGEMM_BUILD_PYTHON=OFF \
  > "$out/patch_configure.log" 2>&1 && cmake --build "$build/out" --target test_gpu -j "$(nproc)" \
  > "$out/patch_build.log" 2>&1 || { tail -30 "$out/patch_build.log"; exit 1; }
echo "patched tests built in $(( $(date +%s) - start )) s"
every_tile='Sm90Epilogue.*EveryTile*:Sm90Shapes.Odd*:Sm90ChunkInputs.*:Sm90Reduce.*EveryTile*:Sm90Repack.EveryTile*'
status=0
left=$(( limit - ($(date +%s) - start) ))
for tile in "$@"; do
  EPIGEMM_TEST_TILES=$tile timeout "$left" "$build/out/tests/test_gpu" --gtest_filter="$every_tile" \
    > "$out/patch_tiles_$tile.log" 2>&1 &
done
for tile in "$@"; do wait -n || status=1; done
for tile in "$@"; do
  echo "$tile: $(grep -E '^\[  (PASSED  |FAILED  |SKIPPED )\] [0-9]+ tests?' "$out/patch_tiles_$tile.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]' "$out/patch_tiles_$tile.log" | head -5
done
echo "tile tests done at $(( $(date +%s) - start )) s"
if [[ ${PATCH_TESTS_ALL:-0} == 1 ]]; then
  left=$(( limit - ($(date +%s) - start) ))
  timeout "$left" ctest --test-dir "$build/out" -L gpu -j8 --timeout 300 --output-on-failure \
    > "$out/patch_ctest.log" 2>&1 || status=1
  grep -E "tests passed|Failed|\*\*\*|Total Test time" "$out/patch_ctest.log" | head -20
fi
exit "$status"
