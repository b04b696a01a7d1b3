#!/usr/bin/env bash
# call D2: the *big.Int path at 2^22 items with 2^24 items' inputs live (ecmul bench --batch 4194304,16777216),
# every curve, GC traced; then P-224 alone at 2^22 with a CPU profile.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wD2; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt; free -g | head -2 | tee -a $O/device.txt
B=.dev/d2
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul $B/ecmul-sym $B/ecmul-298b140
for c in p224 p256 secp256k1; do
  GODEBUG=gctrace=1 timeout 200 $B/ecmul bench --backend gpu --curve $c --op mul --batch 4194304,16777216 --reps 3 --peers=false \
    --json $O/bench-$c.json > $O/bench-$c.txt 2> $O/bench-$c.err; echo "bench $c rc $? gc cycles $(grep -c '^gc ' $O/bench-$c.err)"
  grep -E "^\s+(P-|secp)" $O/bench-$c.txt
  save; echo "t $(( $(date +%s) - T0 ))"
done
GODEBUG=gctrace=1 timeout 150 $B/ecmul-298b140 bench --backend gpu --curve p224 --op mul --batch 4194304,16777216 --reps 3 --peers=false \
  --json $O/bench-p224-298b140.json > $O/bench-p224-298b140.txt 2> $O/bench-p224-298b140.err; echo "before (298b140) p224 rc $? gc cycles $(grep -c '^gc ' $O/bench-p224-298b140.err)"
grep -E "^\s+(P-|secp)" $O/bench-p224-298b140.txt
save; echo "t $(( $(date +%s) - T0 ))"
timeout 100 $B/ecmul-sym bench --backend gpu --curve p224 --op mul --batch 4194304 --reps 5 --peers=false \
  --cpuprofile $O/p224.prof --json $O/bench-p224-prof.json > $O/bench-p224-prof.txt 2>&1; echo "prof rc $?"
grep -E "^\s+(P-|secp)" $O/bench-p224-prof.txt
save; echo "t $(( $(date +%s) - T0 ))"
