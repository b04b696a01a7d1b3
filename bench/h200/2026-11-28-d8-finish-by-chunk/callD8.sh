#!/usr/bin/env bash
# call D8: the finish kernel's items per thread by chunk (64, 16 in a batch's last three chunks: the
# library's default since 47fde60) against 16 everywhere (--finish-items 16, as before), alternated, at
# 2^22 on every curve (mul,base,ecdsa) and at mid-sized batches (P-224 mul,base: latency); where
# ECDSA's time goes (BenchmarkVerifyGPU, P-224); verify, Wycheproof; gECC pmul and fixed.
set -u -o pipefail
T0=$(date +%s)
O=$OUT/d8; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/d8
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*.test $B/ecmul
$B/ecmul version > $O/version.txt 2>&1; head -3 $O/version.txt
(bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $?") &
big() { # tag extra-flags...
  local t=$1; shift
  timeout 90 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa --batch 4194304 --reps 3 --peers=false \
    "$@" --json $O/big-$t.json > $O/big-$t.txt 2>&1; echo "big $t rc $? t $(( $(date +%s) - T0 ))"
}
mid() {
  local t=$1; shift
  timeout 60 $B/ecmul bench --backend gpu --curve p224 --op mul,base --batch 32768,65536,262144,1048576 --reps 5 --peers=false \
    "$@" --json $O/mid-$t.json > $O/mid-$t.txt 2>&1; echo "mid $t rc $? t $(( $(date +%s) - T0 ))"
}
big A1; big B1 --finish-items 16; big A2; big B2 --finish-items 16
mid A; mid B --finish-items 16
timeout 120 $B/ecdsa.test -test.run XXX -test.bench 'VerifyGPU/P-224' -test.benchtime 3x > $O/verifygpu-p224.txt 2>&1; echo "verifygpu rc $? t $(( $(date +%s) - T0 ))"
grep -E "items/s" $O/verifygpu-p224.txt | sed -E 's/BenchmarkVerifyGPU\///; s/ +[0-9]+ +[0-9]+ ns\/op//' | cut -c1-90
wait
for c in p224 p256 secp256k1; do for op in mul ecdsa; do timeout 40 $B/ecmul verify --curve $c --backend gpu --op $op --n 20000 > $O/verify-$c-$op.txt 2>&1; echo "verify $c $op rc $? $(tail -n1 $O/verify-$c-$op.txt)"; done; done
timeout 60 $B/root.test -test.run 'TestGPUWycheproof' -test.v > $O/wycheproof-ecdh.txt 2>&1; echo "ecdh wycheproof rc $? $(grep -cE '^    --- PASS' $O/wycheproof-ecdh.txt) passed"
timeout 60 $B/ecdsa.test -test.run 'TestGPUWycheproof' -test.v > $O/wycheproof-ecdsa.txt 2>&1; echo "ecdsa wycheproof rc $? $(grep -E '^(ok|PASS|FAIL)' $O/wycheproof-ecdsa.txt | head -2 | tr '\n' ' ')"
left=$(( 575 - ($(date +%s) - T0) )); echo "gecc gets $left s"
timeout $left bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt
rm -rf $O/gecc-build $O/gecc/*/ 2>/dev/null
python3 - $O <<'PY'
import json,sys,os,glob
o=sys.argv[1]
def rows(p):
    return json.load(open(p))["results"] if os.path.exists(p) else []
print("2^22: e2e M/s (mul: bytes API), ratio to k·P")
print("%-4s %-10s %-6s %9s %9s" % ("run","curve","op","e2e","ratio"))
for t in ("A1","B1","A2","B2"):
    for r in rows(os.path.join(o,"big-%s.json"%t)):
        e2e = r.get("bytes_ops_per_s", r["ops_per_s"]) if r["op"]=="mul" else r["ops_per_s"]
        print("%-4s %-10s %-6s %9.3f %9s" % (t, r["curve"], r["op"], e2e/1e6, "%.3f"%r["ratio_to_mul"] if "ratio_to_mul" in r else ""))
print("mid batches, P-224: latency ms")
for t in ("A","B"):
    for r in rows(os.path.join(o,"mid-%s.json"%t)):
        print("%-2s %-5s %8d %9.3f ms  bytes %s" % (t, r["op"], r["batch"], r["latency_ms"], "%.3f"%r["bytes_latency_ms"] if "bytes_latency_ms" in r else "-"))
PY
echo "t $(( $(date +%s) - T0 ))"
