#!/usr/bin/env bash
# call V1: signing and verification at 2^22 on every curve by step size (the binaries ecmul-sN: steps
# of at most 2^N items for both, the first and last ramped from 2^15) and chunk (--chunk), against
# main 20a5675 (signing's steps not ramped); alternated, the baseline three times.
set -u -o pipefail
T0=$(date +%s); O=/tmp/v1; mkdir -p $O; save() { tar czf $OUT/v1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/v1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul*
row() { grep -E '^\s+(P-|secp)' $1 | awk '{printf "%s %.2f  ", $1, $11/1e6}'; }
sign() { # binary chunk tag
  timeout 60 $B/ecmul-$1 bench --backend gpu --curve p256,p224,secp256k1 --op sign --batch 4194304 --reps 3 --peers=false \
    --chunk $2 --json $O/sign-$1-c$2-$3.json > $O/sign-$1-c$2-$3.txt 2>&1
  echo "sign $1 chunk $2 rc $? $(row $O/sign-$1-c$2-$3.txt) t $(el)"; }
sign main 131072 a; sign s18 131072 a
for s in s19 s20; do for c in 131072 262144 524288; do sign $s $c a; done; done
sign main 131072 b; sign s18 131072 b
for s in s18; do for c in 262144 524288; do sign $s $c a; done; done
save
for s in s19 s20; do for c in 524288 262144; do sign $s $c b; done; done
sign main 131072 c; sign s18 131072 c
save
ecdsa() { # binary chunk tag
  timeout 90 $B/ecmul-$1 bench --backend gpu --curve p224,p256 --op ecdsa --batch 4194304 --reps 3 --peers=false \
    --chunk $2 --json $O/ecdsa-$1-c$2-$3.json > $O/ecdsa-$1-c$2-$3.txt 2>&1
  echo "ecdsa $1 chunk $2 rc $? $(row $O/ecdsa-$1-c$2-$3.txt) t $(el)"; }
ecdsa s18 131072 a; ecdsa s19 131072 a; ecdsa s18 262144 a; ecdsa s19 262144 a; ecdsa s20 262144 a; ecdsa s18 131072 b
save; echo "t $(el)"
