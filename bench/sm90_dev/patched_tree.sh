# Sourced by the scripts that build a kernel patch beside the tree
# (pin_ab.sh, cli_ab.sh, patch_tests.sh).
# patched_tree ROOT PATCH DEST: copies the repository at ROOT to the empty
# folder DEST (no .git, no build folders) and applies PATCH (-p1) there.
patched_tree() {
  tar -C "$1" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$3" -xf - \
    && (cd "$3" && patch -p1 -s < "$2")
}
