# Sourced by the GPU tests of the tool (with the binary as $1): names it
# `binary`, gives the run a fresh kernel cache removed on exit, and skips
# (exit 77) without a CUDA device.
binary=$1
export EPIGEMM_CACHE_DIR=$(mktemp -d)
trap 'rm -rf "$EPIGEMM_CACHE_DIR"' EXIT
if "$binary" list --mnkl 64,64,64,1 | grep -q '^no CUDA device found'; then
  echo "no CUDA device: skipped"
  exit 77
fi
