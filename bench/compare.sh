#!/usr/bin/env bash
# cuarray against CuPy and PyTorch on this machine's GPU, one run, one table.
#
#   ../shared/gpu/pack benches   (here; builds .gpu/benches/compare)
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
python3 bench/report.py "$out/results.jsonl" --markdown > "$out/table.md"
python3 bench/report.py "$out/results.jsonl"
if python3 -c 'import matplotlib' 2>/dev/null; then
  python3 bench/plot.py "$out/results.jsonl" -o "$out/sweep.png"
fi
