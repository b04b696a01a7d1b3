#!/usr/bin/env bash
# call A3 (two H200 of one host): signing's steps without copies, the hash looked up, and its host work
# on par.Spread (new, 078560b) against A2's new binary (old, b6821b0), alternated twice: ecmul bench
# --op base,sign at 2^22 on every curve, one GPU and two, no CPU peers, --trace; then the new binary's
# P-224 signing on two GPUs with --exectrace.
set -u -o pipefail
T0=$(date +%s); O=/tmp/a3; mkdir -p $O; save() { tar cJf $OUT/a3.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt
B=.dev/a3
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul-*; for v in old new; do $B/ecmul-$v version > $O/version-$v.txt 2>&1; head -1 $O/version-$v.txt; done
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], 'g%s'%r.get('gpus',''), '%.2f'%((r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6), 'x%.3f'%(r.get('ratio_to_mul') or r.get('ratio_to_base') or 0))" 2>&1 | tr '\n' ';'; }
ab() { # variant round
  timeout 100 $B/ecmul-$1 bench --backend gpu --gpus 1,2 --curve p224,p256,secp256k1 --op base,sign --batch 4194304 --reps 3 --peers=false \
    --json $O/$1-$2.json --trace $O/$1-$2.jsonl > $O/$1-$2.txt 2>&1
  echo "$1 r$2 rc $? t $(el): $(summ $O/$1-$2.json)"; save
}
ab old 1; ab new 1; ab old 2; ab new 2
timeout 60 $B/ecmul-new bench --backend gpu --gpus 2 --curve p224 --op sign --batch 4194304 --reps 3 --peers=false --json $O/exec.json --exectrace $O/exec.trace > $O/exec.txt 2>&1
echo "exec rc $? t $(el): $(summ $O/exec.json)"; xz -T4 $O/exec.trace; gzip $O/*.jsonl; save
echo "t $(el)"
