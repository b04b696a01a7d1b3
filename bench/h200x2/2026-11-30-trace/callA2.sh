#!/usr/bin/env bash
# call A2 (two H200 of one host): the step buffers in a free list (new, b4c5acd and after) against
# 40dd9e4 (old), alternated twice: ecdsa bench --op mul,base,ecdsa,sign at 2^22 on every curve, one GPU
# and two, no CPU peers, --trace; then the new binary's P-224 and secp256k1 signing right after their CPU
# peers.
set -u -o pipefail
T0=$(date +%s); O=/tmp/a2; mkdir -p $O; save() { tar cJf $OUT/a2.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt
B=.dev/a2
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul-*; for v in old new; do $B/ecmul-$v version > $O/version-$v.txt 2>&1; head -1 $O/version-$v.txt; done
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], 'g%s'%r.get('gpus',''), '%.2f'%((r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6), 'x%.3f'%(r.get('ratio_to_mul') or r.get('ratio_to_base') or 0))" 2>&1 | tr '\n' ';'; }
ab() { # variant round
  timeout 120 $B/ecmul-$1 bench --backend gpu --gpus 1,2 --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 --peers=false \
    --json $O/$1-$2.json --trace $O/$1-$2.jsonl > $O/$1-$2.txt 2>&1
  echo "$1 r$2 rc $? t $(el): $(summ $O/$1-$2.json)"; save
}
ab old 1; ab new 1; ab old 2; ab new 2
timeout 90 $B/ecmul-new bench --backend gpu --gpus 1,2 --curve secp256k1,p224 --op base,sign --batch 4194304 --reps 3 --json $O/new-peers.json > $O/new-peers.txt 2>&1
echo "new-peers rc $? t $(el): $(summ $O/new-peers.json)"; save
echo "t $(el)"
