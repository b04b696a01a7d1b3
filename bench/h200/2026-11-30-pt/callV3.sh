#!/usr/bin/env bash
# call V3 (one H200): the record of f02b03c with every peer in the same call: gECC built, its k·P
# (pmul) and fixed-base, then ecmul bench --op mul,base,ecdsa at 2^22 on every curve with gECC's
# figures and OpenSSL (speed -multi 16), then gECC's verify with the time left. The binary loads the
# committed fatbin (ECMUL_FATBIN).
set -u -o pipefail
T0=$(date +%s); O=/tmp/v3; mkdir -p $O; save() { tar cJf $OUT/v3.txz --exclude=gecc -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt; openssl version | tee -a $O/device.txt
B=.dev/v3
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin GECC_BUILD=$PWD/.dev/gecc-build
xz -dc $B/ecmul.xz > $B/ecmul && chmod +x $B/ecmul
$B/ecmul version > $O/version.txt 2>&1
mkdir -p .dev/p && tar xJf $B/peers.txz -C .dev/p
timeout 250 bash .dev/p/peers/gecc.sh .dev/gecc-b build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(el)"
for w in pmul fixed; do
  timeout 100 bash .dev/p/peers/gecc.sh $O/gecc $w > $O/gecc-$w.txt 2>&1; echo "gecc $w rc $? t $(el): $(grep op/s $O/gecc-$w.txt | tr '\n' ' ')"
done
cat $O/gecc-*.txt | grep "op/s" > $O/gpu-peers.txt; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], '%.2f'%(r['ops_per_s']/1e6), 'k %.2f'%((r.get('kernel_ops_per_s') or 0)/1e6))" 2>&1 | tr '\n' ';'; }
timeout 200 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa --batch 4194304 --reps 5 \
  --gpu-peers $O/gpu-peers.txt --json $O/record.json --csv $O/record.csv > $O/record.txt 2>&1; echo "record rc $? t $(el): $(summ $O/record.json)"
save
left=$(( 585 - $(el) ))
[ $left -gt 60 ] && { timeout $left bash .dev/p/peers/gecc.sh $O/gecc verify > $O/gecc-verify.txt 2>&1; echo "gecc verify rc $? t $(el): $(grep op/s $O/gecc-verify.txt | tr '\n' ' ')"; }
tail -12 $O/record.txt
save; echo "t $(el)"
