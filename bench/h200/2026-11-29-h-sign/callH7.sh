#!/usr/bin/env bash
# call H7 (H6's binaries): signing at 2^22 on every curve by chunk size (--chunk 33792, 67584, the
# library's 131072) and the finish's items per thread (16, the library's); k·G beside it at the chunk sizes.
set -u -o pipefail
T0=$(date +%s); O=/tmp/h7; mkdir -p $O; save() { tar czf $OUT/h7.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/h6
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul*
for run in s18:33792:16 s18:67584:16 s18:33792:0 s17:33792:16 s17:67584:16 s18:131072:32; do IFS=: read s ch fi <<< "$run"
  timeout 60 $B/ecmul-$s bench --backend gpu --curve p256,p224,secp256k1 --op sign --batch 4194304 --reps 3 --peers=false --finish-items $fi \
    --chunk $ch --json $O/sign-$s-c$ch-f$fi.json > $O/sign-$s-c$ch-f$fi.txt 2>&1
  echo "sign $s chunk $ch finish-items $fi rc $? $(grep -E '^\s+(P-|secp)' $O/sign-$s-c$ch-f$fi.txt | awk '{print $1, $11, $12}' | tr '\n' ' ') t $(el)"; done
for ch in 33792 131072; do
  timeout 60 $B/ecmul-s18 bench --backend gpu --curve p256,p224 --op base --batch 4194304 --reps 3 --peers=false --chunk $ch > $O/base-c$ch.txt 2>&1
  echo "base chunk $ch rc $? $(grep -E '^\s+(P-|secp)' $O/base-c$ch.txt | awk '{print $1, $11, $12}' | tr '\n' ' ') t $(el)"; done
save; echo "t $(el)"
