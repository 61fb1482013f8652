#!/usr/bin/env bash
# The one-sweep pass's variant bits (`CUARRAY_SORT_VARIANT`, see pass_variant_default in
# src/kernels/family/sort.rs) side by side, alternating, on the GPU machine:
#   bash bench/sort_variants.sh [ROUNDS] [VARIANT ...]      (default: 2 rounds of 21 19 83)
# Prints one line per (round, variant, case) with the compare binary's microseconds.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${CUARRAY_BENCH_BIN:-.gpu/benches/compare}
rounds=${1:-2}; shift || true
variants=("$@"); [ ${#variants[@]} -eq 0 ] && variants=(21 19 83)
for r in $(seq 1 "$rounds"); do
  for v in "${variants[@]}"; do
    CUARRAY_SORT_VARIANT=$v "$bin" sort_f32_2^26 argsort_f32_2^26 2>/dev/null | grep '^{' |
      R=$r V=$v python3 -c 'import sys, json, os
for line in sys.stdin:
    d = json.loads(line)
    print("round %s variant %s %-28s %9.1f us" % (os.environ["R"], os.environ["V"], d["case"], d["us"]))'
  done
done
