#!/usr/bin/env bash
# call H3 (branch sign-shares, H2's fatbin embedded): signing at 2^22 on P-256 and P-224 by step size
# (2^16, 2^18, 2^20) and the finish's (and sign pack's) items per thread; k·G beside it.
set -u -o pipefail
T0=$(date +%s); O=/tmp/h3; mkdir -p $O; save() { tar czf $OUT/h3.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/h3
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul*; mv $B/ecmul $B/ecmul-s16
timeout 60 $B/ecmul-s16 bench --backend gpu --curve p256,p224 --op base --batch 4194304 --reps 3 --peers=false --json $O/base.json > $O/base.txt 2>&1
echo "base rc $? $(grep -E '^\s+(P-|secp)' $O/base.txt | awk '{print $1, $11, $12}' | tr '\n' ' ') t $(el)"
for run in s16:16 s16:64 s18:4 s18:8 s18:16 s18:32 s18:64 s20:8 s20:16 s20:64; do s=${run%%:*}; fi=${run##*:}
  timeout 50 $B/ecmul-$s bench --backend gpu --curve p256,p224 --op sign --batch 4194304 --reps 3 --peers=false --finish-items $fi \
    --json $O/sign-$s-f$fi.json > $O/sign-$s-f$fi.txt 2>&1
  echo "sign $s finish-items $fi rc $? $(grep -E '^\s+(P-|secp)' $O/sign-$s-f$fi.txt | awk '{print $1, $11, $12}' | tr '\n' ' ') t $(el)"; done
save; echo "t $(el)"
