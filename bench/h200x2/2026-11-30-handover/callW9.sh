#!/usr/bin/env bash
# call W9 (two H200): M = 7e6b3c8; S = M with four slots a device (gpu's slotCount; pipelineDepth
# kept at 3), and, where ECMUL_Q4 is set, four signing steps queued, not three (timing only). A CPU
# profile of M's two-GPU P-224 signing, then m, s3 (S), s4 (S with ECMUL_Q4) alternated four times:
# signing and verification, P-224 and P-256, one GPU and two.
set -u -o pipefail
T0=$(date +%s); O=/tmp/w9; mkdir -p $O; save() { tar cJf $OUT/w9.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/w9
# built without an embedded fatbin: they load main's, whose kernel sources are unchanged
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
for v in m s; do python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/$v.xz'), open('$D/$v','wb'))" && chmod +x $D/$v; done
timeout -k 5 60 $D/m bench --backend gpu --gpus 2 --curve p224 --op sign --batch 4194304 --reps 20 --peers=false \
  --json $O/prof.json --cpuprofile $O/prof-sign.pprof > $O/prof.txt 2>&1; echo "profile rc $? t $(el)"; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
bin() { case $1 in m) echo "$D/m";; s3) echo "$D/s";; s4) echo "env ECMUL_Q4=1 $D/s";; esac; }
for r in 1 2 3 4; do for v in m s3 s4; do
  timeout -k 5 60 $(bin $v) bench --backend gpu --gpus 1,2 --curve p224,p256 --op sign --batch 4194304 --reps 5 --peers=false \
    --json $O/${v}s-$r.json --trace $O/${v}s-$r.jsonl > $O/${v}s-$r.txt 2>&1; echo "${v}s-$r rc $? t $(el): $(summ $O/${v}s-$r.json)"
  timeout -k 5 60 $(bin $v) bench --backend gpu --gpus 1,2 --curve p224,p256 --op ecdsa --batch 4194304 --reps 3 --peers=false \
    --json $O/${v}e-$r.json --trace $O/${v}e-$r.jsonl > $O/${v}e-$r.txt 2>&1; echo "${v}e-$r rc $? t $(el): $(summ $O/${v}e-$r.json)"
  gzip -f $O/${v}s-$r.jsonl $O/${v}e-$r.jsonl
done; save; done
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O ms s3s s4s | tee $O/medians.txt; python3 $D/medians.py $O me s3e s4e | tee -a $O/medians.txt
save; echo "t $(el)"
