#!/usr/bin/env bash
# call W8 (two H200): Z = 7e6b3c8 with timing-only variants of signing's steps read from the
# environment: ECMUL_RAMP4 (steps grow and shrink by 4, not 2), ECMUL_NO_DOWN (no down ramp),
# ECMUL_LAST_OVERLAPPED (the last step one chunk a device, as the others). An execution trace of
# two-GPU P-224 signing as committed, then c (committed), r, n, l alternated four times on signing,
# P-224 and P-256, one GPU and two.
set -u -o pipefail
T0=$(date +%s); O=/tmp/w8; mkdir -p $O; save() { tar cJf $OUT/w8.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/w8
# built without an embedded fatbin: it loads main's, whose kernel sources are unchanged
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/z.xz'), open('$D/z','wb'))" && chmod +x $D/z
timeout -k 5 45 $D/z bench --backend gpu --gpus 2 --curve p224 --op sign --batch 4194304 --reps 3 --peers=false \
  --json $O/trace-c.json --trace $O/trace-c.jsonl --exectrace $O/trace-c.exectrace > $O/trace-c.txt 2>&1
echo "trace rc $? t $(el)"; gzip -f $O/trace-c.exectrace $O/trace-c.jsonl; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
bin() { case $1 in c) echo "$D/z";; r) echo "env ECMUL_RAMP4=1 $D/z";; n) echo "env ECMUL_NO_DOWN=1 $D/z";; l) echo "env ECMUL_LAST_OVERLAPPED=1 $D/z";; esac; }
for r in 1 2 3 4; do for v in c r n l; do
  timeout -k 5 60 $(bin $v) bench --backend gpu --gpus 1,2 --curve p224,p256 --op sign --batch 4194304 --reps 5 --peers=false \
    --json $O/${v}s-$r.json --trace $O/${v}s-$r.jsonl > $O/${v}s-$r.txt 2>&1; echo "${v}s-$r rc $? t $(el): $(summ $O/${v}s-$r.json)"
  gzip -f $O/${v}s-$r.jsonl
done; save; done
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O cs rs ns ls | tee $O/medians.txt
save; echo "t $(el)"
