# Sourced by the scripts that build a kernel patch beside the tree
# (pin_ab.sh, cli_ab.sh, ncu_tiles.sh, patch_tests.sh).
# patched_tree ROOT PATCH DEST: copies the repository at ROOT to the empty
# folder DEST (no .git, no build folders) and applies PATCH (-p1) there.
patched_tree() {
  tar -C "$1" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$3" -xf - \
    && (cd "$3" && patch -p1 -s < "$2")
}
# build_cli SOURCE BUILD: a Release build of the command-line tool alone
# (BUILD/epigemm) from the tree at SOURCE.
build_cli() {
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEPIGEMM_BUILD_TESTS=OFF -DEPIGEMM_BUILD_PYTHON=OFF \
    > /dev/null || return 1
  cmake --build "$2" --target epigemm_cli -j "$(nproc)" | tail -1
}
