#!/usr/bin/env bash
# call L7 (two H200): p = 3b78eb8 with p-timing-only.diff (ECMUL_X_OLDLOWS=1: the low-s rule through
# LimbsFromBytes, lowS and PutLimbs as before). o (old) and p alternated three rounds on secp256k1
# signing, one GPU and two.
set -u -o pipefail
T0=$(date +%s); O=/tmp/l7; mkdir -p $O; save() { tar cJf $OUT/l7.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/l7
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/p.xz'), open('$D/p','wb'))" && chmod +x $D/p
$D/p version > $O/version.txt 2>&1
run() { # tag round env
  env $3 timeout -k 5 60 $D/p bench --backend gpu --gpus 1,2 --curve secp256k1 --op sign --batch 4194304 --reps 5 --peers=false \
    --json $O/$1-$2.json --trace $O/$1-$2.jsonl > $O/$1-$2.txt 2>&1; echo "$1-$2 rc $? t $(el)"
  gzip -f $O/$1-$2.jsonl
}
for r in 1 2 3; do run o $r ECMUL_X_OLDLOWS=1; run p $r X=1; done
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O o p | tee $O/medians.txt
save; echo "t $(el)"
