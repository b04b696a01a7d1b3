#!/usr/bin/env bash
# call K4: the library's chunk (the items of one launch) for k·P at 2^22 items: ecmul bench --op mul on P-256 and
# secp256k1 with --chunk 131072 (the default, 118,272 items: 7 waves of the pair mapping), 262144 and 524288,
# two alternated rounds, no CPU peers; gECC pmul in the same call. The binary of d1e2e31 (call K3's).
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wK4; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/k4
python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $B/ecmul.xz && chmod +x $B/ecmul
(bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $?") &
sleep 75
for rep in 1 2; do for c in 131072 262144 524288; do
  timeout 60 $B/ecmul bench --backend gpu --curve p256,secp256k1 --op mul --batch 4194304 --reps 3 --chunk $c --peers=false \
    --json $O/bench-$c-$rep.json > $O/bench-$c-$rep.txt 2>&1; echo "chunk $c round $rep rc $?"
  grep -E "^\s+(P-256|secp256k1)\s+mul" $O/bench-$c-$rep.txt | sed "s/^/chunk $c: /"
done; done | tee $O/chunks.txt
save; echo "t $(( $(date +%s) - T0 ))"
wait
timeout 100 bash .dev/peers/gecc.sh $O/gecc pmul > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt
save; echo "t $(( $(date +%s) - T0 ))"
