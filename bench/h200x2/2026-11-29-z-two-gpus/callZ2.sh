#!/usr/bin/env bash
# call Z2 (two H200s of one host): ecmul-k (0e8a653 + bench/h200x2/2026-11-29-x-two-gpus/patch/x3-trace-knob.patch,
# timing only): verification and signing at 2^22 on two GPUs with the library's settings (d, one GPU
# beside it), with the first and last steps at 2^16 (r16: 2^15 a GPU), with five steps in flight
# (q5), and with both (r16q5); three rounds alternated, every curve.
set -u -o pipefail
T0=$(date +%s); O=/tmp/z2; mkdir -p $O; save() { tar czf $OUT/z2.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt
B=.dev/z2
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul-*
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s %.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus'), r['ops_per_s']/1e6) for r in d['results']))"; }
for r in 1 2 3; do for v in d r16 q5 r16q5; do
  g=2; k=""
  case $v in d) g=1,2;; r16) k="ECMUL_SRAMP=65536 ECMUL_VRAMP=65536";; q5) k="ECMUL_SQUEUED=5 ECMUL_VINFLIGHT=5";;
    r16q5) k="ECMUL_SRAMP=65536 ECMUL_VRAMP=65536 ECMUL_SQUEUED=5 ECMUL_VINFLIGHT=5";; esac
  left=$(( 330 - $(el) )); [ $left -lt 20 ] && break 2
  env $k timeout $left $B/ecmul-k bench --backend gpu --curve p224,p256,secp256k1 --op ecdsa,sign --gpus $g --batch 4194304 --reps 3 --peers=false \
    --json $O/$v-$r.json > $O/$v-$r.txt 2>&1; echo "$v$r rc $? t $(el) $(summ $O/$v-$r.json)"; done; save; done
save; echo "t $(el)"
