#!/usr/bin/env bash
# call H8 (branch sign-shares at "steps of 2^18, 16 items a thread"; ecmul-slot4: the same with four slots
# a device, experiment): mul, base, sign at 2^22 on every curve, alternated.
set -u -o pipefail
T0=$(date +%s); O=/tmp/h8; mkdir -p $O; save() { tar czf $OUT/h8.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/h8
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul*
for v in ecmul ecmul-slot4 ecmul ecmul-slot4; do
  timeout 90 $B/$v bench --backend gpu --curve p256,p224,secp256k1 --op mul,base,sign --batch 4194304 --reps 3 --peers=false \
    --json $O/$v-$(el).json > $O/$v.txt 2>&1
  echo "$v rc $? $(grep -E '^\s+(P-|secp)' $O/$v.txt | awk '{print $1, $2, $12}' | tr '\n' ' ') t $(el)"; done
save; echo "t $(el)"
