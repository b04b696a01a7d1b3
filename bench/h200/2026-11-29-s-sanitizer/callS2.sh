#!/usr/bin/env bash
# call S2 (one H200): ecmul-k (0e8a653 + bench/h200x2/2026-11-29-x-two-gpus/patch/x3-trace-knob.patch,
# timing only): signing's first and last step (ECMUL_SRAMP) and verification's (ECMUL_VRAMP) swept
# against the library's 2^15, P-224 and P-256 at 2^22 on one GPU, alternated; a trace of P-224
# signing without the ramp.
set -u -o pipefail
T0=$(date +%s); O=/tmp/s2; mkdir -p $O; save() { tar czf $OUT/s2.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt
B=.dev/s2
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul-*; $B/ecmul-k version > $O/version.txt 2>&1; head -1 $O/version.txt
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s %.2f'%(r['curve'][-4:], r['op'][:4], r['ops_per_s']/1e6) for r in d['results']))"; }
for r in 1 2 3; do for v in 15 16 17 18; do
  env ECMUL_SRAMP=$((1<<v)) ECMUL_VRAMP=$((1<<v)) timeout 60 $B/ecmul-k bench --backend gpu --curve p224,p256 --op sign,ecdsa --batch 4194304 --reps 3 --peers=false \
    --json $O/ramp-$v-$r.json > $O/ramp-$v-$r.txt 2>&1; echo "ramp 2^$v round $r rc $? t $(el) $(summ $O/ramp-$v-$r.json)"; done; save; done
ECMUL_TRACE=1 ECMUL_SRAMP=262144 timeout 40 $B/ecmul-k bench --backend gpu --curve p224 --op sign --gpus 1 --batch 4194304 --reps 1 --peers=false \
  --json $O/trace-p224.json > $O/trace-p224.txt 2> $O/trace-p224.err; echo "trace rc $? t $(el)"; gzip -f $O/trace-p224.err; save
echo "t $(el)"
