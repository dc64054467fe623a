# The common start of the scripts that time `epigemm run` pins on the device
# (sourced): `root`; `cli`, the CLI ($EPIGEMM, or build/epigemm, built there
# if absent); the output copied to $OUT/$log_name when OUT is set; the
# card's clocks printed; `relu_f`, the relu+F epilogue they time.
#   usage: log_name=NAME.log; source "$(dirname "$0")/cli_setup.sh"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cli=${EPIGEMM:-$root/build/epigemm}
[[ -n ${OUT:-} ]] && exec > >(tee -a "$OUT/$log_name") 2>&1
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv 2> /dev/null
if [[ ! -x $cli ]]; then
  cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEPIGEMM_BUILD_PYTHON=OFF > /dev/null \
    && cmake --build "$root/build" --target epigemm_cli -j "$(nproc)" | tail -1 || exit 1
fi
relu_f="def epi(accum, C): F = accum + C; D = relu(F); return D, F"
