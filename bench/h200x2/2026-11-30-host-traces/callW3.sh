#!/usr/bin/env bash
# call W3 (two H200): B = 0a277ad (par.Spread); D = B with signing's host passes on every core but one
# (par.SpreadHost), and, only where ECMUL_NO_RAMP_DOWN is set (variant E), pipeline steps that ramp up
# but not down (the last step keeps the items of the down ramp). verify with E, then B, D, E alternated
# three times: signing and verification on P-224 and P-256, one GPU and two.
set -u -o pipefail
T0=$(date +%s); O=/tmp/w3; mkdir -p $O; save() { tar cJf $OUT/w3.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/w3
for v in b d; do
  python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/$v.xz'), open('$D/$v','wb'))" && chmod +x $D/$v
  $D/$v version > $O/version-$v.txt 2>&1; echo "$v: $(head -1 $O/version-$v.txt)"
done
for c in p224 p256; do for op in sign ecdsa; do
  ECMUL_NO_RAMP_DOWN=1 timeout -k 5 45 $D/d verify --backend gpu --curve $c --op $op --n 60000 --chunk 60000 > $O/verify-$c-$op.txt 2>&1
  echo "verify E $c $op rc $? $(tail -1 $O/verify-$c-$op.txt) $(grep -o 'items=[0-9]* mismatches=[0-9]* item_errors=[0-9]*' $O/verify-$c-$op.txt) t $(el)"
done; done
save
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
bin() { case $1 in b) echo "$D/b";; d) echo "$D/d";; e) echo "env ECMUL_NO_RAMP_DOWN=1 $D/d";; esac; }
for r in 1 2 3; do for v in b d e; do
  timeout -k 5 60 $(bin $v) bench --backend gpu --gpus 1,2 --curve p224,p256 --op sign --batch 4194304 --reps 5 --peers=false \
    --json $O/${v}s-$r.json --trace $O/${v}s-$r.jsonl > $O/${v}s-$r.txt 2>&1; echo "${v}s-$r rc $? t $(el): $(summ $O/${v}s-$r.json)"
  timeout -k 5 60 $(bin $v) bench --backend gpu --gpus 1,2 --curve p224,p256 --op ecdsa --batch 4194304 --reps 3 --peers=false \
    --json $O/${v}e-$r.json --trace $O/${v}e-$r.jsonl > $O/${v}e-$r.txt 2>&1; echo "${v}e-$r rc $? t $(el): $(summ $O/${v}e-$r.json)"
  gzip -f $O/${v}s-$r.jsonl $O/${v}e-$r.jsonl
done; save; done
head -1 /proc/stat | tee -a $O/device.txt; save
echo "t $(el)"
