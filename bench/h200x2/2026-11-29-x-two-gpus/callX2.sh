#!/usr/bin/env bash
# call X2 (two H200s of one host, 32 cores). ecmul-knob = 28e83ae + patch/x2-knob.patch (the W2 trace
# made per device, and environment knobs for ECDSA's step sizes, ramps and steps in flight; unset, the
# knobs keep the library's values): traces of P-224 verification and signing on one GPU and on two;
# a sweep of the knobs, P-224 and P-256, ecdsa and sign, one GPU and two. Then x1's ecmul (28e83ae):
# the *big.Int path at 2^22 with 2^24 items' inputs live on P-256 and secp256k1, one GPU and two.
set -u -o pipefail
T0=$(date +%s); O=/tmp/x2; mkdir -p $O; save() { tar czf $OUT/x2.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt
for f in .dev/x2/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
K=.dev/x2/ecmul-knob; chmod +x $K .dev/x2/ecmul
for g in 2 1; do
  ECMUL_TRACE=1 timeout 60 $K bench --backend gpu --curve p224 --op ecdsa,sign --gpus $g --batch 4194304 --reps 1 --peers=false \
    --json $O/trace-g$g.json > $O/trace-g$g.txt 2> $O/trace-g$g.err; echo "trace gpus=$g rc $? t $(el)"
  gzip -f $O/trace-g$g.err
done
save
run() { # name, env...
  local n=$1; shift
  env "$@" timeout 70 $K bench --backend gpu --curve p224,p256 --op ecdsa,sign --gpus 1,2 --batch 4194304 --reps 3 --peers=false \
    --json $O/knob-$n.json > $O/knob-$n.txt 2>&1; echo "knob $n ($*) rc $? t $(el)"
}
run k0
run k1 ECMUL_VRAMP=65536 ECMUL_SRAMP=65536
run k2 ECMUL_SSTEP=524288
run k3 ECMUL_VINFLIGHT=5 ECMUL_SQUEUED=5
run k4 ECMUL_VSUB=131072
run k5 ECMUL_VSUB=524288
run k6 ECMUL_VRAMP=65536 ECMUL_SRAMP=65536 ECMUL_SSTEP=524288 ECMUL_VINFLIGHT=5 ECMUL_SQUEUED=5
run k0b
save
for c in p256 secp256k1; do
  left=$(( 560 - $(el) )); [ $left -lt 30 ] && break
  GODEBUG=gctrace=1 timeout $left .dev/x2/ecmul bench --backend gpu --curve $c --op mul --batch 4194304,16777216 --gpus 1,2 --reps 3 --peers=false \
    --json $O/bigint-$c.json > $O/bigint-$c.txt 2> $O/bigint-$c.err; echo "bigint $c rc $? gc cycles $(grep -c '^gc ' $O/bigint-$c.err) t $(el)"
done
save
python3 - $O <<'PY'
import json,sys,os,glob
o=sys.argv[1]
for p in sorted(glob.glob(os.path.join(o,"knob-*.json"))):
    try: rs=json.load(open(p))["results"]
    except Exception as e: print(p,e); continue
    print(os.path.basename(p)[5:-5].ljust(4), "  ".join("%s/%s/g%d %.2f"%(r["curve"][-3:],r["op"][:4],r["gpus"],r["ops_per_s"]/1e6) for r in rs))
for c in ("p256","secp256k1"):
    p=os.path.join(o,"bigint-%s.json"%c)
    if not os.path.exists(p): continue
    for r in json.load(open(p))["results"]:
        k=r.get("kernel_ops_per_s") or 0
        print("bigint %s gpus=%s batch=%d %.3f M bytes %.3f M kernel %.3f M  %.1f%%"%(r["curve"],r["gpus"],r["batch"],r["ops_per_s"]/1e6,r.get("bytes_ops_per_s",0)/1e6,k/1e6,100*r["ops_per_s"]/k if k else 0))
PY
save; echo "t $(el)"
