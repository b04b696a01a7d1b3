#!/usr/bin/env bash
# call L6 (two H200): 9fef459 (the code of dd15624). Execution traces of P-224 and secp256k1 signing on
# one GPU and two, three runs each, for where the two-GPU run's time goes (the traces themselves are not
# kept: etrace.py's summaries are, in l6/).
set -u -o pipefail
T0=$(date +%s); O=/tmp/l6; mkdir -p $O; save() { tar cJf $OUT/l6.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/l6
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/ecmul.xz'), open('$D/ecmul','wb'))" && chmod +x $D/ecmul
$D/ecmul version > $O/version.txt 2>&1
for c in p224 secp256k1; do for g in 1 2; do
  timeout -k 5 60 $D/ecmul bench --backend gpu --gpus $g --curve $c --op sign --batch 4194304 --reps 3 --peers=false \
    --json $O/x-$c-g$g.json --trace $O/x-$c-g$g.jsonl --exectrace $O/x-$c-g$g.exectrace > $O/x-$c-g$g.txt 2>&1; echo "$c g$g rc $? t $(el)"
done; done
gzip -f $O/*.jsonl; xz -T16 $O/*.exectrace
head -1 /proc/stat | tee -a $O/device.txt
save; echo "t $(el)"
