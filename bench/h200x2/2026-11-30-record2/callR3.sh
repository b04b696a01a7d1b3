#!/usr/bin/env bash
# call R3 (two H200 of one host, the machine of R2 still held): R2's record without its correctness
# checks (R2 ran them and printed PASS, then waited on its vmstat for the rest of its time). gECC's
# pmul and fixed (its build from R2 reused where it is still there), ecmul bench --op mul,base,ecdsa,sign
# at 2^22 on every curve, one GPU and two, --trace, with gECC's figures and the CPU peers (measured
# last), then gECC's sign if time is left; vmstat samples the host throughout.
set -u -o pipefail
T0=$(date +%s); O=/tmp/r3; mkdir -p $O; save() { tar cJf $OUT/r3.txz --exclude=gecc -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt; openssl version | tee -a $O/device.txt
B=.dev/r2
[ -x $B/ecmul ] || { python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$B/ecmul.xz'), open('$B/ecmul','wb'))" && chmod +x $B/ecmul; }
$B/ecmul version > $O/version.txt 2>&1; head -1 $O/version.txt
vmstat -t 1 > $O/vmstat.txt 2>&1 & VM=$!
export GECC_BUILD=/tmp/gecc-build
ls $GECC_BUILD > /dev/null 2>&1 && echo "gecc build dir kept" || echo "gecc build dir missing"
for w in pmul fixed; do
  timeout 200 bash $B/peers/gecc.sh $O/gecc $w > $O/gecc-$w.txt 2>&1; echo "gecc $w rc $? t $(el): $(grep op/s $O/gecc-$w.txt | tr '\n' ' ')"
done
cat $O/gecc-*.txt | grep "op/s" > $O/gpu-peers.txt; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], 'g%s'%r.get('gpus',''), '%.2f'%((r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6), 'x%.3f'%(r.get('ratio_to_mul') or r.get('ratio_to_base') or 0))" 2>&1 | tr '\n' ';'; }
timeout $(( 400 - $(el) )) $B/ecmul bench --backend gpu --gpus 1,2 --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 \
  --gpu-peers $O/gpu-peers.txt --json $O/record.json --csv $O/record.csv --trace $O/trace.jsonl > $O/record.txt 2>&1; echo "record rc $? t $(el): $(summ $O/record.json)"
gzip -f $O/trace.jsonl; save
left=$(( 420 - $(el) )); [ $left -gt 90 ] && { timeout $left bash $B/peers/gecc.sh $O/gecc sign > $O/gecc-sign.txt 2>&1; echo "gecc sign rc $? t $(el): $(grep op/s $O/gecc-sign.txt | tr '\n' ' ')"; }
kill $VM; gzip -f $O/vmstat.txt; save
echo "t $(el)"
