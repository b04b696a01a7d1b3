#!/usr/bin/env bash
# call X1 (two H200s of one host, 32 cores), the binary of 28e83ae: a Pool's Runs overlap on every
# device. GPU tests on both GPUs (the root package's and ECDSA's); ecmul verify --op sign and ecdsa;
# ecmul bench mul,base,ecdsa,sign at 2^22 on one GPU and on two, every curve; the *big.Int path at
# 2^22 with 2^24 items' inputs live on P-224, one and two GPUs.
set -u -o pipefail
T0=$(date +%s); O=/tmp/x1; mkdir -p $O; save() { tar czf $OUT/x1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/x1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul $B/ecdsa.test $B/root.test; $B/ecmul version > $O/version.txt 2>&1; head -1 $O/version.txt
timeout 100 $B/root.test -test.short -test.run 'TestGPUAgainstReference|TestGPUConcurrent|TestGPURealChunking|TestGPUBytesOnItemKernels' -test.v > $O/root-gpu.txt 2>&1; echo "root gpu tests rc $? t $(el)"
grep -E "^--- (PASS|FAIL|SKIP)" $O/root-gpu.txt
timeout 60 $B/ecdsa.test -test.run 'TestGPUSign$|TestGPUVerifyKernel|TestGPUWycheproof' -test.v > $O/ecdsa-gpu.txt 2>&1; echo "ecdsa gpu tests rc $? t $(el)"
grep -E "^--- (PASS|FAIL|SKIP)" $O/ecdsa-gpu.txt
for op in "sign --n 100000" "ecdsa --n 100000"; do t=${op%% *}
  timeout 40 $B/ecmul verify --curve p256 --backend gpu --op $op > $O/verify-p256-$t.txt 2>&1; echo "verify p256 $t rc $? $(tail -n1 $O/verify-p256-$t.txt)"; done
save
timeout 270 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --gpus 1,2 --reps 3 --peers=false \
  --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $? t $(el)"
save
left=$(( 555 - $(el) ))
[ $left -gt 40 ] && GODEBUG=gctrace=1 timeout $left $B/ecmul bench --backend gpu --curve p224 --op mul --batch 4194304,16777216 --gpus 1,2 --reps 5 --peers=false \
  --json $O/bigint-p224.json > $O/bigint-p224.txt 2> $O/bigint-p224.err; echo "bigint p224 rc $? gc cycles $(grep -c '^gc ' $O/bigint-p224.err) t $(el)"
save
python3 - $O <<'PY'
import json,sys,os
o=sys.argv[1]
one={}
p=os.path.join(o,"bench.json")
if os.path.exists(p):
    rs=json.load(open(p))["results"]
    for r in rs:
        g=r.get("gpus") or r.get("config",{}).get("gpus")
        one.setdefault((r["curve"],r["op"]),{})[g]=r["ops_per_s"]
        if "bytes_ops_per_s" in r: one.setdefault((r["curve"],r["op"]+"-bytes"),{})[g]=r["bytes_ops_per_s"]
    for (c,op),d in sorted(one.items()):
        s="  ".join("gpus=%s %.2f M"%(g,v/1e6) for g,v in sorted(d.items(), key=lambda x: str(x[0])))
        vals=list(d.values())
        print("%-9s %-5s %s  x%.3f"%(c,op,s,(max(vals)/min(vals)) if len(vals)==2 else 0))
p=os.path.join(o,"bigint-p224.json")
if os.path.exists(p):
    for r in json.load(open(p))["results"]:
        k=r.get("kernel_ops_per_s") or 0
        print("bigint %s gpus=%s batch=%d %.3f M bytes %.3f M kernel %.3f M  %.1f%%"%(r["curve"],r.get("gpus"),r["batch"],r["ops_per_s"]/1e6,r.get("bytes_ops_per_s",0)/1e6,k/1e6,100*r["ops_per_s"]/k if k else 0))
PY
save; echo "t $(el)"
