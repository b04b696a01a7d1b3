#!/usr/bin/env bash
# call W13 (two H200): R = e374e9d with signing's steps from ECMUL_RAMP (timing only): unset, the
# committed ramp (steps 2^15 a GPU doubling up to the middle's and halving back); nr, no ramp; r4,
# steps growing and shrinking by 4; nu, no up ramp (the first step a middle one), the down ramp kept;
# nus, nu with the first step cut into chunks as a batch that is not followed (its first chunk's fill
# shorter). Alternated four times on signing, P-224 and P-256, one GPU and two.
set -u -o pipefail
T0=$(date +%s); O=/tmp/w13; mkdir -p $O; save() { tar cJf $OUT/w13.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/w13
# built without an embedded fatbin: it loads main's, whose kernel sources are unchanged
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/r.xz'), open('$D/r','wb'))" && chmod +x $D/r
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
for r in 1 2 3 4; do for v in c nr r4 nu nus; do
  ECMUL_RAMP=$v timeout -k 5 60 $D/r bench --backend gpu --gpus 1,2 --curve p224,p256 --op sign --batch 4194304 --reps 5 --peers=false \
    --json $O/${v}s-$r.json --trace $O/${v}s-$r.jsonl > $O/${v}s-$r.txt 2>&1; echo "${v}s-$r rc $? t $(el): $(summ $O/${v}s-$r.json)"
  gzip -f $O/${v}s-$r.jsonl
done; save; done
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O cs nrs r4s nus nuss | tee $O/medians.txt
save; echo "t $(el)"
