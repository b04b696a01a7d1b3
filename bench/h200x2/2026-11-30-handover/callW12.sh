#!/usr/bin/env bash
# call W12 (two H200): T = e374e9d. An execution trace of two-GPU P-224 signing (3 runs).
set -u -o pipefail
T0=$(date +%s); O=/tmp/w12; mkdir -p $O; save() { tar cJf $OUT/w12.txz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
D=.dev/w12
# built without an embedded fatbin: it loads main's, whose kernel sources are unchanged
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/t.xz'), open('$D/t','wb'))" && chmod +x $D/t
timeout -k 5 45 $D/t bench --backend gpu --gpus 2 --curve p224 --op sign --batch 4194304 --reps 3 --peers=false \
  --json $O/trace-t.json --trace $O/trace-t.jsonl --exectrace $O/trace-t.exectrace > $O/trace-t.txt 2>&1
echo "trace rc $? t $(( $(date +%s) - T0 ))"; gzip -f $O/trace-t.exectrace $O/trace-t.jsonl; save
