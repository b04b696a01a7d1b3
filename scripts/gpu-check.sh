#!/usr/bin/env bash
# Verifies and benchmarks ecmul on a GPU host that has nvcc but no Go, as one device call.
# Expects the Go binaries cross-built beforehand on a Go machine (make dev-binaries):
#   .dev/ecmul, .dev/gpu.test, .dev/ecmul.test, .dev/ecdsa.test
# (or those compressed with xz, .dev/*.xz, as a device call's 64 MiB carry needs: unpacked first)
# and, to measure gECC in the same run, a copy of ../shared/peers in .dev/peers. The binaries
# embed the kernel; REBUILD=1 first rebuilds the fatbin from the sources with nvcc (about 7
# minutes on an H200) and runs them on that one ($ECMUL_FATBIN).
# Writes logs and results under $OUT (default ./out) and prints a short table last.
#   scripts/gpu-check.sh [verify|bench|sanitize|all]   (default all; the parts one by one where
#   all does not fit a device call's time limit)
# VERIFY_N: ecmul verify's items (default 100000; its textbook reference took over 40 s a run at
# 300000 on 16 cores); GPUS: bench's --gpus (default 1; 1,2 on two GPUs); BATCH and REPS:
# bench's --batch (default 4194304) and --reps (default 3).
set -uo pipefail
what=${1:-all}
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
log() { echo "== $*" >&2; }
curves=(p224 p256 secp256k1)
status=0

for f in .dev/*.xz; do
  [[ -e $f ]] || continue
  python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3], 'wb'))" "$f" && rm "$f"
  chmod +x "${f%.xz}"
done

log "device"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv | tee "$OUT/nvidia-smi.txt"
.dev/ecmul version | tee "$OUT/version.txt"

if [[ ${REBUILD:-0} == 1 ]]; then
  log "kernels: make -B kernels-fatbin"
  if ! make -B kernels-fatbin >"$OUT/build.log" 2>&1; then
    tail -40 "$OUT/build.log"; exit 1
  fi
  cp internal/kernels/ecmul.fatbin "$OUT/ecmul.fatbin"
  export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
fi

if [[ $what == verify || $what == all ]]; then
  log "verify: every kernel entry point against the CPU twin, channel for channel"
  ECMUL_GPU_ITEMS=${ECMUL_GPU_ITEMS:-100000} .dev/gpu.test -test.v -test.run 'KernelMatches' -test.timeout 20m \
    >"$OUT/kernels.log" 2>&1 || status=1
  grep -E '^(--- |ok|FAIL|PASS)' "$OUT/kernels.log" | grep -v '^    --- PASS' | tail -20
  log "verify: the engine and ECDSA on the gpu backend (Wycheproof, bad input, faults)"
  .dev/ecmul.test -test.v -test.run 'GPU' -test.timeout 10m >"$OUT/engine.log" 2>&1 || status=1
  .dev/ecdsa.test -test.v -test.run 'GPU' -test.timeout 10m >"$OUT/ecdsa.log" 2>&1 || status=1
  grep -E '^(--- |ok|FAIL|PASS)' "$OUT/engine.log" "$OUT/ecdsa.log" | grep -v ':    --- PASS' | tail -30
  log "verify: ecmul verify on the gpu backend, every curve and operation"
  for c in "${curves[@]}"; do
    for op in mul base ecdsa sign; do
      timeout 600 .dev/ecmul verify --curve "$c" --backend gpu --op "$op" --n "${VERIFY_N:-100000}" \
        >"$OUT/verify-$c-$op.txt" 2>&1 || status=1
      echo "$c $op: $(tail -n1 "$OUT/verify-$c-$op.txt")"
    done
  done
fi

if [[ $what == bench || $what == all ]]; then
  peers=()
  if [[ -f .dev/peers/gecc.sh ]]; then
    log "gECC, the GPU peer, in the same run"
    export GECC_BUILD=${GECC_BUILD:-$OUT/gecc-build}
    bash .dev/peers/gecc.sh "$OUT" pmul fixed >"$OUT/gecc.txt" 2>&1 || status=1
    grep "op/s" "$OUT/gecc.txt" | tee "$OUT/gpu-peers.txt"
    peers=(--gpu-peers "$OUT/gpu-peers.txt")
  fi
  log "bench: k·P, k·G, ECDSA verification and signing, every curve"
  .dev/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --gpus "${GPUS:-1}" \
    --batch "${BATCH:-4194304}" --reps "${REPS:-3}" "${peers[@]}" --json "$OUT/bench.json" >"$OUT/bench.txt" 2>&1 || status=1
  grep -v ' op/s end to end' "$OUT/bench.txt" | tail -20
fi

if [[ $what == sanitize || $what == all ]]; then
  log "compute-sanitizer: memcheck on every curve, racecheck and synccheck on P-256"
  san() {
    local tool=$1 c=$2 op=$3
    timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 3 --print-limit 20 \
      .dev/ecmul verify --backend gpu --curve "$c" --op "$op" --n 20000 --chunk 20000 >"$OUT/san-$tool-$c-$op.txt" 2>&1 || status=1
    echo "$tool $c $op: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san-$tool-$c-$op.txt" | tr '\n' ' ')"
  }
  for c in "${curves[@]}"; do for op in mul base ecdsa sign; do san memcheck "$c" "$op"; done; done
  for tool in racecheck synccheck; do for op in mul base ecdsa sign; do san "$tool" p256 "$op"; done; done
fi

if [[ -f $OUT/bench.txt ]]; then
  log "bench, end to end and kernel alone (M op/s = op/s / 1e6)"
  grep -v ' op/s end to end' "$OUT/bench.txt" | tail -14
fi
exit $status
