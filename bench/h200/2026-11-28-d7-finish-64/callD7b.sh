#!/usr/bin/env bash
# call D7b: the finish kernel at 16, 32 and 64 items a thread (ecmul bench --finish-items), one binary and
# call D7a's fatbin: P-224 and P-256 mul,base,ecdsa at 2^22, alternated; gECC pmul and fixed in the same
# call; verify at the library's setting.
set -u -o pipefail
T0=$(date +%s)
O=$OUT/d7b; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/d7
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*.test $B/ecmul 2>/dev/null
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
sha256sum $ECMUL_FATBIN | tee $O/fatbin.sha256
(bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $?") &
run() { # items
  timeout 110 $B/ecmul bench --backend gpu --curve p224,p256 --op mul,base,ecdsa --batch 4194304 --reps 3 --peers=false \
    --finish-items $1 --json $O/bench-$1.json > $O/bench-$1.txt 2>&1; echo "bench $1 rc $? t $(( $(date +%s) - T0 ))"
  grep -E "^\s+(P-|secp)" $O/bench-$1.txt | cut -c1-150
}
run 16; run 32; run 64
wait
for c in p224 p256; do for op in mul ecdsa; do timeout 40 $B/ecmul verify --curve $c --backend gpu --op $op --n 20000 > $O/verify-$c-$op.txt 2>&1; echo "verify $c $op rc $? $(tail -n1 $O/verify-$c-$op.txt)"; done; done
left=$(( 570 - ($(date +%s) - T0) )); echo "gecc gets $left s"
timeout $left bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt
python3 - $O <<'PY'
import json,sys,os
o=sys.argv[1]
print("%-6s %-5s %-6s %12s %12s %12s" % ("items","curve","op","e2e M/s","kernel M/s","ratio"))
for n in (16,32,64):
    p=os.path.join(o,"bench-%d.json"%n)
    if not os.path.exists(p): continue
    for r in json.load(open(p))["results"]:
        print("%-6d %-5s %-6s %12.3f %12.3f %12s" % (n, r["curve"], r["op"], r.get("bytes_ops_per_s", r["ops_per_s"])/1e6 if r["op"]=="mul" else r["ops_per_s"]/1e6, r.get("kernel_ops_per_s",0)/1e6, "%.3f"%r["ratio_to_mul"] if "ratio_to_mul" in r else ""))
PY
echo "t $(( $(date +%s) - T0 ))"
