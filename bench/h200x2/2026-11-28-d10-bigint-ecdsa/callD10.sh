#!/usr/bin/env bash
# call D10 (two GPUs, 32 host cores): the *big.Int path at 2^22 items with 2^24 items' inputs live, one and
# two GPUs, every curve (5 timed runs for P-224); ECDSA verification on one and two GPUs.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/d10; mkdir -p $O; save() { tar czf $OUT/d10.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt; free -g | head -2 | tee -a $O/device.txt
B=.dev/d10
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul; $B/ecmul version > $O/version.txt 2>&1; head -1 $O/version.txt
for c in p224 p256 secp256k1; do
  reps=3; [ $c = p224 ] && reps=5
  GODEBUG=gctrace=1 timeout 90 $B/ecmul bench --backend gpu --curve $c --op mul --batch 4194304,16777216 --gpus 1,2 --reps $reps --peers=false \
    --json $O/bigint-$c.json > $O/bigint-$c.txt 2> $O/bigint-$c.err; echo "bigint $c rc $? gc cycles $(grep -c '^gc ' $O/bigint-$c.err) t $(( $(date +%s) - T0 ))"
  save
done
timeout 90 $B/ecmul bench --backend gpu --curve p224,p256 --op mul,ecdsa --batch 4194304 --gpus 1,2 --reps 3 --peers=false \
  --json $O/ecdsa.json > $O/ecdsa.txt 2>&1; echo "ecdsa rc $? t $(( $(date +%s) - T0 ))"
save
python3 - $O <<'PY'
import json,sys,os
o=sys.argv[1]
for c in ("p224","p256","secp256k1"):
    p=os.path.join(o,"bigint-%s.json"%c)
    if not os.path.exists(p): continue
    for r in json.load(open(p))["results"]:
        print("%-9s gpus=%d batch=%-8d bigint %7.3f M  bytes %7.3f M  kernel %7.3f M  bigint/kernel %5.1f%%" % (r["curve"], r.get("gpus",0), r["batch"], r["ops_per_s"]/1e6, r.get("bytes_ops_per_s",0)/1e6, r.get("kernel_ops_per_s",0)/1e6, 100*r["ops_per_s"]/r["kernel_ops_per_s"] if r.get("kernel_ops_per_s") else 0))
p=os.path.join(o,"ecdsa.json")
if os.path.exists(p):
    for r in json.load(open(p))["results"]:
        print("%-9s %-5s gpus=%s %7.3f M (bytes %s) ratio %s" % (r["curve"], r["op"], r.get("gpus"), r["ops_per_s"]/1e6, "%.3f"%(r["bytes_ops_per_s"]/1e6) if "bytes_ops_per_s" in r else "-", "%.3f"%r["ratio_to_mul"] if "ratio_to_mul" in r else ""))
PY
echo "t $(( $(date +%s) - T0 ))"
