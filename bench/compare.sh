#!/usr/bin/env bash
# cuarray against CuPy and PyTorch on this machine's GPU, one run, one table.
#
#   ../shared/gpu/pack benches examples   (here; builds .gpu/benches/compare and .gpu/examples/)
#   bash bench/compare.sh [FILTER ...]   (on the GPU machine)
#
# Writes results.jsonl and table.md under $OUT (or /tmp/cuarray-bench), and sweep.png
# (bench/plot.py) where matplotlib is installed; elsewhere run bench/plot.py on the results.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/cuarray-bench}; mkdir -p "$out"
bin=${CUARRAY_BENCH_BIN:-.gpu/benches/compare}
[ -x "$bin" ] || bin=$(ls target/release/deps/compare-* 2>/dev/null | grep -v '\.d$' | head -1)
: > "$out/results.jsonl"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
python3 -c 'import cupy, torch; print("CuPy", cupy.__version__, "PyTorch", torch.__version__)' | tee -a "$out/gpu.txt"
echo "== cuarray"
"$bin" "$@" | tee -a "$out/results.jsonl" | grep -v '^{'
echo "== peers"
PYTHONUNBUFFERED=1 python3 bench/peers.py "$@" | tee -a "$out/results.jsonl" | grep -c '^{' | sed 's/$/ peer results/'
# CuPy reads CUPY_TF32 at import: its TF32 matmul runs in a second process.
CUPY_TF32=1 python3 bench/peers.py --cupy-tf32 matmul_tf32_8192 "$@" | tee -a "$out/results.jsonl" | grep -c '^{' | sed 's/$/ CuPy TF32 result/'
echo "== cold and warm process (end to end, quickstart)"
cache=$(mktemp -d)
peer_cache=$(mktemp -d)
emit() { # lib run t0 t1 (seconds since the epoch)
  python3 -c "print('{\"lib\": \"$1\", \"case\": \"quickstart_process_$2\", \"kind\": \"wall\", \"us\": %.1f, \"gbps\": 0}' % (($4 - $3) * 1e6))" | tee -a "$out/results.jsonl"
}
for run in cold warm; do
  t0=$(date +%s.%N); CUARRAY_CACHE_DIR=$cache .gpu/examples/quickstart > /dev/null; t1=$(date +%s.%N)
  emit cuarray $run "$t0" "$t1"
  t0=$(date +%s.%N); CUPY_CACHE_DIR=$peer_cache python3 bench/quickstart_peer.py cupy > /dev/null; t1=$(date +%s.%N)
  emit cupy $run "$t0" "$t1"
  t0=$(date +%s.%N); python3 bench/quickstart_peer.py pytorch > /dev/null; t1=$(date +%s.%N)
  emit pytorch $run "$t0" "$t1"
done
rm -rf "$cache" "$peer_cache"
echo "== CuPy's examples (examples/cupy_*.rs against CuPy's code in bench/cupy_examples.py)"
# SGEMM's sizes are random in the original: both sides get the same fixed ones.
sgemm_size=(--m 1280 --n 1280 --k 1750)
for ex in cg gmm kmeans "kmeans --use-custom-kernel" black_scholes monte_carlo "sgemm ${sgemm_size[*]}"; do
  read -r name args <<< "$ex"
  log="$out/cupy_example_$name${args:+_${args//[^a-z0-9]/}}.log"
  # shellcheck disable=SC2086  # args is a list of words
  .gpu/examples/cupy_$name $args > "$log" 2>&1 || echo "cupy_$name $args FAILED (exit $?): see $log"
  grep '^{"lib"' "$log" | tee -a "$out/results.jsonl"
done
PYTHONUNBUFFERED=1 python3 bench/cupy_examples.py "${sgemm_size[@]}" 2> "$out/cupy_examples_py.log" | tee -a "$out/results.jsonl" \
  || echo "bench/cupy_examples.py FAILED: see $out/cupy_examples_py.log"
python3 bench/report.py "$out/results.jsonl" --markdown > "$out/table.md"
python3 bench/report.py "$out/results.jsonl"
if python3 -c 'import matplotlib' 2>/dev/null; then
  python3 bench/plot.py "$out/results.jsonl" -o "$out/sweep.png"
fi
