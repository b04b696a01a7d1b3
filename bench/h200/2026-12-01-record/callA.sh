#!/usr/bin/env bash
# call A (one H200): issue 41's record at ee7a93f with every peer in the same call. First the SASS of
# the pair entry points from the committed fatbin (their loops' opcodes, for issue 43); then gECC built
# and its pmul and fixed; then ecmul bench --op mul,base,ecdsa,sign at 2^22 on every curve with gECC's
# two figures and OpenSSL (speed -multi 16); then gECC's sign and verify in the time left. The binary
# loads the committed fatbin (ECMUL_FATBIN).
set -u -o pipefail
T0=$(date +%s); O=/tmp/a; mkdir -p $O; save() { tar cJf $OUT/a.txz --exclude=gecc -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt; openssl version | tee -a $O/device.txt
B=.dev/a
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin GECC_BUILD=$PWD/.dev/gecc-build
xz -dc $B/ecmul.xz > $B/ecmul && chmod +x $B/ecmul
$B/ecmul version > $O/version.txt 2>&1; head -2 $O/version.txt
for e in p256_coz_shenoy_pair_c30 p224_coz_shenoy_pair_c30 p256_comb_shenoy_pair_c30; do
  cuobjdump -sass -arch sm_90 -fun ecm_ladder_$e internal/kernels/ecmul.fatbin > $O/sass-$e.txt 2>&1
  echo "$e $(python3 internal/kernels/harness/sass_loop.py 16 1 --hist < $O/sass-$e.txt | head -c 300)"
done
gzip -f $O/sass-*.txt; save; echo "sass t $(el)"
mkdir -p .dev/p && tar xJf $B/peers.txz -C .dev/p
timeout 200 bash .dev/p/peers/gecc.sh .dev/gecc-b build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(el)"
for w in pmul fixed; do
  timeout 110 bash .dev/p/peers/gecc.sh $O/gecc $w > $O/gecc-$w.txt 2>&1; echo "gecc $w rc $? t $(el): $(grep op/s $O/gecc-$w.txt | tr '\n' ' ')"
done
cat $O/gecc-*.txt | grep "op/s" > $O/gpu-peers.txt; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], '%.2f'%(r['ops_per_s']/1e6), 'k %.2f'%((r.get('kernel_ops_per_s') or 0)/1e6), 'x%.3f'%(r.get('ratio_to_mul') or r.get('ratio_to_base') or 0))" 2>&1 | tr '\n' ';'; }
timeout 300 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 \
  --gpu-peers $O/gpu-peers.txt --json $O/record.json --csv $O/record.csv > $O/record.txt 2>&1; echo "record rc $? t $(el): $(summ $O/record.json)"
tail -16 $O/record.txt; save
for w in sign verify; do
  left=$(( 592 - $(el) )); [ $left -gt 30 ] || break
  timeout $left bash .dev/p/peers/gecc.sh $O/gecc $w > $O/gecc-$w.txt 2>&1; echo "gecc $w rc $? t $(el): $(grep op/s $O/gecc-$w.txt | tr '\n' ' ')"
done
save; echo "t $(el)"
