#!/usr/bin/env bash
# call H4 (branch sign-shares + a trace of each signing step on stderr, experiment only): P-256 signing at
# 2^22 in steps of 2^18 and 2^16, every step's host phases and GPU chunks; a host profile.
set -u -o pipefail
T0=$(date +%s); O=/tmp/h4; mkdir -p $O; save() { tar czf $OUT/h4.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/h4
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul*
for s in t18 t16; do
  ECMUL_TRACE=1 timeout 60 $B/ecmul-$s bench --backend gpu --curve p256 --op sign --batch 4194304 --reps 1 --peers=false \
    --cpuprofile $O/sign-$s.prof > $O/sign-$s.txt 2> $O/trace-$s.txt
  echo "sign $s rc $? $(grep -E '^\s+(P-|secp)' $O/sign-$s.txt | awk '{print $1, $11, $12}' | tr '\n' ' ') t $(el)"; done
for g in 8 24; do
  GOMAXPROCS=$g timeout 60 $B/ecmul-t18 bench --backend gpu --curve p256 --op sign --batch 4194304 --reps 3 --peers=false > $O/sign-g$g.txt 2>&1
  echo "sign t18 GOMAXPROCS=$g rc $? $(grep -E '^\s+(P-|secp)' $O/sign-g$g.txt | awk '{print $1, $11, $12}' | tr '\n' ' ') t $(el)"; done
GOGC=400 timeout 60 $B/ecmul-t18 bench --backend gpu --curve p256 --op sign --batch 4194304 --reps 3 --peers=false > $O/sign-gc.txt 2>&1
echo "sign t18 GOGC=400 rc $? $(grep -E '^\s+(P-|secp)' $O/sign-gc.txt | awk '{print $1, $11, $12}' | tr '\n' ' ') t $(el)"
gzip $O/trace-*.txt; save; echo "t $(el)"
