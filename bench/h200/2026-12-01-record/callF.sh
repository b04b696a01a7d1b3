#!/usr/bin/env bash
# call F (one H200): the fatbin of Channel<30> with −m held for the folds, rebuilt (make -B
# kernels-fatbin, the committed one) beside gECC's build; every entry point of every curve, schedule
# and width checked against the CPU twin (harness --quick 1024); P-256's pair loop counted; gECC's
# pmul and fixed; then ecmul bench --backend gpu --op mul,base,ecdsa at 2^22 on every curve with the
# new fatbin (ECMUL_FATBIN), gECC's figures and OpenSSL (speed -multi 16).
set -u -o pipefail
T0=$(date +%s); O=/tmp/f; mkdir -p $O/vec; save() { tar cJf $OUT/f.txz --exclude=vec --exclude=gecc -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt; openssl version | tee -a $O/device.txt
B=.dev/f
( make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? t $(el)" > $O/fatbin.rc ) &
FB=$!
export GECC_BUILD=$PWD/.dev/gecc-build
mkdir -p .dev/p && tar xJf $B/peers.txz -C .dev/p
( timeout 400 bash .dev/p/peers/gecc.sh .dev/gecc-b build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(el)" > $O/gecc-build.rc ) &
GB=$!
for f in ecmul kv; do xz -dc $B/$f.xz > $B/$f && chmod +x $B/$f; done
for c in p224 p256 secp256k1; do for s in coz paper comb combvt; do for w in 16 30; do
  $B/kv -curve $c -schedule $s -channel-bits $w -n 1024 -out $O/vec/${c}_${s}_c$w.bin > /dev/null
done; done; done
wait $FB; cat $O/fatbin.rc
cp internal/kernels/ecmul.fatbin ${OUT:-/tmp}/ecmul.fatbin
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
$B/ecmul version > $O/version.txt 2>&1; head -3 $O/version.txt
make kernels-harness > $O/harness-build.log 2>&1 || echo "harness build failed"
: > $O/verify.log
for c in p224 p256 secp256k1; do for s in coz paper comb combvt; do for w in 16 30; do
  [ $s$w = combvt16 ] && continue
  internal/kernels/harness/harness internal/kernels/ecmul.fatbin ${c}_${s}_c$w $O/vec/${c}_${s}_c$w.bin --quick 1024 >> $O/verify.log 2>&1 || echo "verify $c $s c$w rc $?"
done; done; done
echo "verify: $(grep -c bit-exact $O/verify.log) bit-exact, $(grep -c MISMATCH $O/verify.log) mismatched, entries $(grep -c '  verify' $O/verify.log) t $(el)"
grep -A2 "Function properties for ecm_ladder" $O/fatbin.log | grep -oE "for ecm_ladder_[a-z0-9_]+|Used [0-9]+ registers|[0-9]+ bytes spill stores" | paste - - - > $O/regs.txt
for e in p256_coz_shenoy_pair_c30:257 p224_coz_shenoy_pair_c30:225 p256_comb_shenoy_pair_c30:52 p256_combvt_shenoy_pair_c30:52; do
  cuobjdump -sass -arch sm_90 -fun ecm_ladder_${e%%:*} internal/kernels/ecmul.fatbin > $O/sass.txt 2>&1
  echo "${e%%:*} $(python3 internal/kernels/harness/sass_loop.py 16 ${e##*:} --hist < $O/sass.txt | head -3 | tr '\n' ' ' | cut -c1-260)"
done | tee $O/sass-loops.txt; rm -f $O/sass.txt
save
wait $GB; cat $O/gecc-build.rc
for w in pmul fixed; do
  timeout 110 bash .dev/p/peers/gecc.sh $O/gecc $w > $O/gecc-$w.txt 2>&1; echo "gecc $w rc $? t $(el): $(grep op/s $O/gecc-$w.txt | tr '\n' ' ')"
done
cat $O/gecc-*.txt | grep "op/s" > $O/gpu-peers.txt; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], '%.2f'%(r['ops_per_s']/1e6), 'k %.2f'%((r.get('kernel_ops_per_s') or 0)/1e6), 'x%.3f'%(r.get('ratio_to_mul') or r.get('ratio_to_base') or 0))" 2>&1 | tr '\n' ';'; }
left=$(( 590 - $(el) ))
timeout $left $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa --batch 4194304 --reps 3 \
  --gpu-peers $O/gpu-peers.txt --json $O/record.json --csv $O/record.csv > $O/record.txt 2>&1; echo "record rc $? t $(el): $(summ $O/record.json)"
tail -12 $O/record.txt
save; echo "t $(el)"
