#!/usr/bin/env bash
# Builds, verifies and benchmarks ecmul on a GPU host that has nvcc but no Go.
# Expects the Go binaries cross-built beforehand on a Go machine (make dev-binaries):
#   .dev/ecmul, .dev/gpu.test, .dev/ecmul.test
# and, to measure gECC in the same run, a copy of ../shared/peers in .dev/peers.
# Writes logs and results under $OUT (default ./out) and prints a short table last.
#   scripts/gpu-check.sh [verify|bench|all]   (default all)
set -uo pipefail
what=${1:-all}
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
log() { echo "== $*" >&2; }

log "device"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv | tee "$OUT/nvidia-smi.txt"

log "kernels"
if ! make -B kernels-fatbin >"$OUT/build.log" 2>&1; then
  tail -40 "$OUT/build.log"; exit 1
fi
cp internal/kernels/ecmul.fatbin "$OUT/ecmul.fatbin"
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin

status=0
if [[ $what == verify || $what == all ]]; then
  log "verify: kernel vs CPU twin (channel for channel) and vs references"
  ECMUL_GPU_ITEMS=${ECMUL_GPU_ITEMS:-100000} .dev/gpu.test -test.v -test.run 'KernelMatches' -test.timeout 20m \
    >"$OUT/verify.log" 2>&1 || status=1
  grep -E '^(=== RUN|--- |ok|FAIL|PASS)|match the CPU twin' "$OUT/verify.log" | grep -v '=== RUN' | tail -30
  log "verify: engine API on the gpu backend (Wycheproof, bad input, faults)"
  .dev/ecmul.test -test.v -test.run 'GPU' -test.timeout 10m >"$OUT/engine.log" 2>&1 || status=1
  grep -E '^(--- |ok|FAIL|PASS)|wycheproof' "$OUT/engine.log" | grep -v '^    --- PASS' | tail -30
  log "verify: ecmul verify on the gpu backend, every curve"
  for c in p224 p256 secp256k1; do
    .dev/ecmul verify --curve "$c" --backend gpu --n "${VERIFY_N:-200000}" 2>&1 | tail -2 | tee -a "$OUT/ecmul-verify.log" || status=1
  done
fi
if [[ $what == bench || $what == all ]]; then
  peers=()
  if [[ -x .dev/peers/gecc.sh ]]; then
    log "gECC, the GPU peer, in the same run"
    .dev/peers/gecc.sh "$OUT" >"$OUT/gecc.txt" 2>&1 || status=1
    cat "$OUT/gecc.txt"
    peers=(--gpu-peers "$OUT/gecc.txt")
  fi
  schedules=${BENCH_SCHEDULES:-coz,paper}
  log "bench: P-224, schedules $schedules, both extensions, warp mapping"
  .dev/ecmul bench --backend gpu --curve p224 --schedule "$schedules" --ext shenoy,kawamura --mapping warp --ipb "${BENCH_IPB:-8}" \
    --batch "${BENCH_BATCHES:-1,1024,131072,1048576,4194304}" --reps 3 --chunk "${BENCH_CHUNK:-131072}" "${peers[@]}" \
    --json "$OUT/bench-p224.json" >"$OUT/bench-p224.txt" 2>&1 || status=1
  log "bench: P-256 and secp256k1, schedules $schedules, both extensions, block mapping"
  .dev/ecmul bench --backend gpu --curve p256,secp256k1 --schedule "$schedules" --ext shenoy,kawamura --mapping block --ipb 28 \
    --batch "${BENCH_BATCHES_256:-1,1024,131072,1048576,4194304}" --reps 3 --chunk "${BENCH_CHUNK:-131072}" "${peers[@]}" \
    --json "$OUT/bench-256.json" >"$OUT/bench-256.txt" 2>&1 || status=1
  grep -v ' op/s end-to-end' "$OUT/bench-p224.txt" "$OUT/bench-256.txt"
fi
if [[ $what == verify || $what == all ]]; then
  log "compute-sanitizer memcheck on a small batch"
  ECMUL_GPU_ITEMS=64 compute-sanitizer --tool memcheck --error-exitcode 3 .dev/gpu.test -test.run 'KernelMatches' \
    >"$OUT/sanitizer.log" 2>&1 || status=1
  tail -3 "$OUT/sanitizer.log"
fi
exit $status
