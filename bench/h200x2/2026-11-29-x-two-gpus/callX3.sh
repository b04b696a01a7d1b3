#!/usr/bin/env bash
# call X3 (two H200s of one host, 32 cores): ecmul-a = 28e83ae (X1's), ecmul-b = 37e94ed (an overlapped
# Run's share of a device in the fewest equal chunks; signing's steps of StepItems a GPU), alternated (b, a, b):
# ecmul bench ecdsa,sign at 2^22 on one GPU and two, every curve. ecmul-bt = 37e94ed +
# patch/x3-trace-knob.patch: a trace of P-224 on two GPUs.
set -u -o pipefail
T0=$(date +%s); O=/tmp/x3; mkdir -p $O; save() { tar czf $OUT/x3.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt
for f in .dev/x3/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x .dev/x3/ecmul-*
for r in 1 2 3; do v=$([ $r = 2 ] && echo a || echo b); {
  timeout 90 .dev/x3/ecmul-$v bench --backend gpu --curve p224,p256,secp256k1 --op ecdsa,sign --gpus 1,2 --batch 4194304 --reps 3 --peers=false \
    --json $O/ab-$v$r.json > $O/ab-$v$r.txt 2>&1; echo "ab $v$r rc $? t $(el)"
}; done
save
for c in p224; do
  ECMUL_TRACE=1 timeout 60 .dev/x3/ecmul-bt bench --backend gpu --curve $c --op ecdsa,sign --gpus 2 --batch 4194304 --reps 1 --peers=false \
    --json $O/trace-$c.json > $O/trace-$c.txt 2> $O/trace-$c.err; echo "trace $c rc $? t $(el)"; gzip -f $O/trace-$c.err
done
save
save
python3 - $O <<'PY'
import json,sys,os,glob
o=sys.argv[1]
for p in sorted(glob.glob(os.path.join(o,"ab-*.json")))+sorted(glob.glob(os.path.join(o,"knob-*.json"))):
    try: rs=json.load(open(p))["results"]
    except Exception as e: print(p,e); continue
    print(os.path.basename(p)[:-5].ljust(8), "  ".join("%s/%s/g%d %.2f"%(r["curve"][-3:],r["op"][:4],r["gpus"],r["ops_per_s"]/1e6) for r in rs))
PY
save; echo "t $(el)"
