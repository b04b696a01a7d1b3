#!/usr/bin/env bash
# call K1 (two H200s of one host): ecmul-a = b6f71ef (VerifyWire.AddN refuses an r above p − n at
# once), ecmul-p = 4731965 (before). P-224 and P-256 verification on one GPU and two, alternated
# p/a twice; no peer: ecmul against ecmul only.
set -u -o pipefail
T0=$(date +%s); O=/tmp/k1; mkdir -p $O; save() { tar czf $OUT/k1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/k1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul-*; $B/ecmul-a version > $O/version-a.txt 2>&1; $B/ecmul-p version > $O/version-p.txt 2>&1; head -1 $O/version-*.txt
timeout 40 $B/ecmul-a verify --curve p224 --backend gpu --op ecdsa --n 40000 > $O/verify-p224-ecdsa.txt 2>&1; echo "verify p224 rc $? $(tail -n1 $O/verify-p224-ecdsa.txt) t $(el)"
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s %.2f'%(r['curve'][-4:], r['op'][:4], r['ops_per_s']/1e6) for r in d['results']))"; }
for r in 1 2; do for b in p a; do left=$(( 150 - $(el) )); [ $left -lt 20 ] && break 2
  timeout $left $B/ecmul-$b bench --backend gpu --curve p224,p256 --op ecdsa --batch 4194304 --gpus 1,2 --reps 3 --peers=false \
    --json $O/$b$r.json > $O/$b$r.txt 2>&1; echo "$b$r rc $? t $(el) $(summ $O/$b$r.json)"; save; done; done
save; echo "t $(el)"
