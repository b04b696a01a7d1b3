#!/usr/bin/env bash
# call Q2b, run twice (the H200 of Q2a, still warm; the second run, Q2c, with GECC_VERIFY=0 after the first found no ecmul binary): gECC's pmul, fixed and verify (built by Q2a), then
# ecmul bench --op mul,base,ecdsa at 2^22 on every curve with gECC's figures and OpenSSL; b32e8fa.
set -u -o pipefail
T0=$(date +%s); O=/tmp/q2b; mkdir -p $O; save() { tar cJf $OUT/q2b.txz --exclude=gecc -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/q2
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin GECC_BUILD=$PWD/.dev/gecc-build
ls .dev/gecc-build > /dev/null 2>&1 || echo "no gecc build here"
xz -dc $B/ecmul.xz > $B/ecmul && chmod +x $B/ecmul
for w in pmul fixed; do
  timeout 100 bash .dev/p/peers/gecc.sh $O/gecc $w > $O/gecc-$w.txt 2>&1; echo "gecc $w rc $? t $(el): $(grep op/s $O/gecc-$w.txt | tr '\n' ' ')"
done
cat $O/gecc-*.txt | grep "op/s" > $O/gpu-peers.txt; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], '%.2f'%(r['ops_per_s']/1e6), 'k %.2f'%((r.get('kernel_ops_per_s') or 0)/1e6))" 2>&1 | tr '\n' ';'; }
timeout 300 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa --batch 4194304 --reps 5 \
  --gpu-peers $O/gpu-peers.txt --json $O/record.json --csv $O/record.csv > $O/record.txt 2>&1; echo "record rc $? t $(el): $(summ $O/record.json)"
save
[ ${GECC_VERIFY:-1} = 1 ] && [ $(el) -lt 380 ] && { timeout $(( 470 - $(el) )) bash .dev/p/peers/gecc.sh $O/gecc verify > $O/gecc-verify.txt 2>&1; echo "gecc verify rc $? t $(el): $(grep op/s $O/gecc-verify.txt | tr '\n' ' ')"; }
tail -30 $O/record.txt
save; echo "t $(el)"
