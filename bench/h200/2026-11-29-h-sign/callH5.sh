#!/usr/bin/env bash
# call H5 (branch sign-shares at "three steps queued", H2's fatbin embedded): signing at 2^22 on every curve
# in steps of 2^16, 2^17 and 2^18; k·G beside it.
set -u -o pipefail
T0=$(date +%s); O=/tmp/h5; mkdir -p $O; save() { tar czf $OUT/h5.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/h5
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul*
timeout 60 $B/ecmul-s16 bench --backend gpu --curve p256,p224 --op base --batch 4194304 --reps 3 --peers=false --json $O/base.json > $O/base.txt 2>&1
echo "base rc $? $(grep -E '^\s+(P-|secp)' $O/base.txt | awk '{print $1, $11, $12}' | tr '\n' ' ') t $(el)"
for s in s16 s17 s18; do
  timeout 60 $B/ecmul-$s bench --backend gpu --curve p256,p224,secp256k1 --op sign --batch 4194304 --reps 3 --peers=false \
    --json $O/sign-$s.json --cpuprofile $O/sign-$s.prof > $O/sign-$s.txt 2>&1
  echo "sign $s rc $? $(grep -E '^\s+(P-|secp)' $O/sign-$s.txt | awk '{print $1, $11, $12}' | tr '\n' ' ') t $(el)"; done
save; echo "t $(el)"
