#!/usr/bin/env bash
# call H6 (branch sign-shares at "Fill over the cores", H2's fatbin embedded): signing at 2^22 on every
# curve in steps of 2^17 and 2^18, the finish's items per thread 8 and the library's; a trace of P-256's
# steps (2^18).
set -u -o pipefail
T0=$(date +%s); O=/tmp/h6; mkdir -p $O; save() { tar czf $OUT/h6.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/h6
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul*
for run in s17:0 s18:0 s17:8 s18:8 s18:16; do s=${run%%:*}; fi=${run##*:}
  timeout 60 $B/ecmul-$s bench --backend gpu --curve p256,p224,secp256k1 --op sign --batch 4194304 --reps 3 --peers=false --finish-items $fi \
    --json $O/sign-$s-f$fi.json > $O/sign-$s-f$fi.txt 2>&1
  echo "sign $s finish-items $fi rc $? $(grep -E '^\s+(P-|secp)' $O/sign-$s-f$fi.txt | awk '{print $1, $11, $12}' | tr '\n' ' ') t $(el)"; done
ECMUL_TRACE=1 timeout 60 $B/ecmul-t18 bench --backend gpu --curve p256 --op sign --batch 4194304 --reps 1 --peers=false > $O/sign-t18.txt 2> $O/trace-t18.txt
echo "trace rc $? $(grep -E '^\s+(P-|secp)' $O/sign-t18.txt | awk '{print $1, $11, $12}') t $(el)"
gzip $O/trace-*.txt; save; echo "t $(el)"
