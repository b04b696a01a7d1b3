#!/usr/bin/env bash
# call W4 (two H200): D = d123672 (par.SpreadHost); F = 5b2e62b (a Run holds its slot before it takes a
# chunk), built with steps that ramp up but not down where ECMUL_NO_RAMP_DOWN is set (variant G; unset,
# the binary is F). verify with F, then D, F, G alternated four times on signing, D and F three times on
# verification, P-224 and P-256, one GPU and two.
set -u -o pipefail
T0=$(date +%s); O=/tmp/w4; mkdir -p $O; save() { tar cJf $OUT/w4.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/w4
for v in d g; do
  python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/$v.xz'), open('$D/$v','wb'))" && chmod +x $D/$v
  $D/$v version > $O/version-$v.txt 2>&1; echo "$v: $(head -1 $O/version-$v.txt)"
done
for c in p224 p256; do for op in sign ecdsa; do
  timeout -k 5 45 $D/g verify --backend gpu --curve $c --op $op --n 60000 --chunk 60000 > $O/verify-$c-$op.txt 2>&1
  echo "verify F $c $op rc $? $(tail -1 $O/verify-$c-$op.txt) $(grep -o 'items=[0-9]* mismatches=[0-9]* item_errors=[0-9]*' $O/verify-$c-$op.txt) t $(el)"
done; done
save
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
bin() { case $1 in d) echo "$D/d";; f) echo "$D/g";; g) echo "env ECMUL_NO_RAMP_DOWN=1 $D/g";; esac; }
for r in 1 2 3 4; do
  for v in d f g; do
    timeout -k 5 60 $(bin $v) bench --backend gpu --gpus 1,2 --curve p224,p256 --op sign --batch 4194304 --reps 5 --peers=false \
      --json $O/${v}s-$r.json --trace $O/${v}s-$r.jsonl > $O/${v}s-$r.txt 2>&1; echo "${v}s-$r rc $? t $(el): $(summ $O/${v}s-$r.json)"
    gzip -f $O/${v}s-$r.jsonl
  done
  [ $r = 4 ] && continue
  for v in d f; do
    timeout -k 5 60 $(bin $v) bench --backend gpu --gpus 1,2 --curve p224,p256 --op ecdsa --batch 4194304 --reps 3 --peers=false \
      --json $O/${v}e-$r.json --trace $O/${v}e-$r.jsonl > $O/${v}e-$r.txt 2>&1; echo "${v}e-$r rc $? t $(el): $(summ $O/${v}e-$r.json)"
    gzip -f $O/${v}e-$r.jsonl
  done; save
done
head -1 /proc/stat | tee -a $O/device.txt; save
echo "t $(el)"
