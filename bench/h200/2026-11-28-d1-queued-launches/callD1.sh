#!/usr/bin/env bash
# call D1 (298b140): the device timing check with queued launches (every curve, every class); gECC pmul;
# ecmul bench --op mul at one chunk (118,272: one launch) and 2^22 (whole chunks queued on the streams).
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wD1; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/d1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul $B/root.test
(bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $?") &
ECMUL_TIMING_JSON=$O/gpu-timing.jsonl timeout 300 $B/root.test -test.run 'TestGPUKernelsConstantTime' -test.v -test.timeout 295s > $O/gpu-timing.log 2>&1
echo "timing rc $?"; grep -E "^(---|    ---|ok|FAIL|PASS)" $O/gpu-timing.log | head -8
python3 - $O/gpu-timing.jsonl <<'PY' | tee $O/timing-summary.txt
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l); o=r["outcome"]; c=o["control"]
    cl=o["classes"]; m=max(cl,key=lambda x:abs(x["t"]))
    print(f'{r["test"]}: control t={c["t"]:.1f} diff={c["diff"]*1e3:.2f}us of {c["median"]:.4f}ms; limit {r["limit"]:.2f}; max class |t|={abs(m["t"]):.2f} ({m["name"][:60]}) diff {m["diff"]*1e3:.2f}us')
PY
save; echo "t $(( $(date +%s) - T0 ))"
wait
timeout 100 bash .dev/peers/gecc.sh $O/gecc pmul > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt
save; left=$(( 580 - ($(date +%s) - T0) )); echo "bench gets $left s"
timeout $left $B/ecmul bench --backend gpu --curve p256,secp256k1,p224 --op mul --batch 118272,4194304 --reps 3 \
  --gpu-peers $O/gecc.txt --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $?"; grep -vE "^\s*$" $O/bench.txt | tail -14
save; echo "t $(( $(date +%s) - T0 ))"
