#!/usr/bin/env bash
# call W7 (two H200): X = 8f2e02d with gpu's runChunks holding a slot before taking a chunk only
# while a chunk is pending (a Run with nothing left to take hands over at once); with
# ECMUL_HOLD_ALWAYS set, X holds it always, as 8f2e02d does (variant A). Y = X's change with
# verification's prepare on par.Spread (next/verify-spread) and signing's h1 computed in the fill
# (next/h1-in-fill). verify with Y, then A, B (= X), C (= Y) alternated four times: signing and
# verification on P-224 and P-256, one GPU and two.
set -u -o pipefail
T0=$(date +%s); O=/tmp/w7; mkdir -p $O; save() { tar cJf $OUT/w7.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/w7
# the binaries were built without an embedded fatbin: they load main's, whose kernel sources are unchanged
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
for v in x y; do
  python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/$v.xz'), open('$D/$v','wb'))" && chmod +x $D/$v
  $D/$v version > $O/version-$v.txt 2>&1; echo "$v: $(head -1 $O/version-$v.txt)"
done
for c in p224 p256; do for op in sign ecdsa; do
  timeout -k 5 45 $D/y verify --backend gpu --curve $c --op $op --n 60000 --chunk 60000 > $O/verify-$c-$op.txt 2>&1
  echo "verify Y $c $op rc $? $(tail -1 $O/verify-$c-$op.txt) $(grep -o 'items=[0-9]* mismatches=[0-9]* item_errors=[0-9]*' $O/verify-$c-$op.txt) t $(el)"
done; done
save
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
bin() { case $1 in a) echo "env ECMUL_HOLD_ALWAYS=1 $D/x";; b) echo "$D/x";; c) echo "$D/y";; esac; }
for r in 1 2 3 4; do for v in a b c; do
  timeout -k 5 60 $(bin $v) bench --backend gpu --gpus 1,2 --curve p224,p256 --op sign --batch 4194304 --reps 5 --peers=false \
    --json $O/${v}s-$r.json --trace $O/${v}s-$r.jsonl > $O/${v}s-$r.txt 2>&1; echo "${v}s-$r rc $? t $(el): $(summ $O/${v}s-$r.json)"
  timeout -k 5 60 $(bin $v) bench --backend gpu --gpus 1,2 --curve p224,p256 --op ecdsa --batch 4194304 --reps 3 --peers=false \
    --json $O/${v}e-$r.json --trace $O/${v}e-$r.jsonl > $O/${v}e-$r.txt 2>&1; echo "${v}e-$r rc $? t $(el): $(summ $O/${v}e-$r.json)"
  gzip -f $O/${v}s-$r.jsonl $O/${v}e-$r.jsonl
done; save; done
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O a b c | tee $O/medians.txt
save; echo "t $(el)"
