#!/usr/bin/env bash
# call Y2 (one H200): make -B kernels-fatbin with the variable-time comb on 13-bit windows and the sign
# unpack's constant first HMAC key and word loads; beside the build, ecmul verify --backend gpu --n 300000
# for k·P and k·G on every curve with main's binary (3533b26: the ladder and the comb the build keeps).
set -u -o pipefail
T0=$(date +%s); O=/tmp/y2; mkdir -p $O; save() { tar czf $OUT/y2.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/y2
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul*
$B/ecmul-main version > $O/version-main.txt 2>&1
( make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? t $(el)" > $O/fatbin.rc; cp internal/kernels/ecmul.fatbin $OUT/ecmul.fatbin ) &
BUILD=$!
for c in p224 p256 secp256k1; do for op in mul base; do
  timeout 170 $B/ecmul-main verify --curve $c --backend gpu --op $op --n 300000 > $O/verify-$c-$op.txt 2>&1
  echo "verify $c $op rc $? $(tail -n1 $O/verify-$c-$op.txt) t $(el)"; save; done; done
wait $BUILD; cat $O/fatbin.rc
grep -E "Function properties for ecm_(signunpack|ladder_p256_combvt|ladder_p224_combvt)\w+" -A2 $O/fatbin.log | grep -E "Function|spill|registers|stack" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-200 | sort -u > $O/ptxas-changed.txt
grep -E "sm_90|c30" $O/ptxas-changed.txt | head -12
echo "entries: $(grep -c "Function properties for ecm_" $O/fatbin.log) function records"
gzip -f $O/fatbin.log; save; echo "t $(el)"
