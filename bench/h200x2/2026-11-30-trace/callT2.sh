#!/usr/bin/env bash
# call T2 (two H200 of one host): the host's stalls at the start of a run. ecmul bench --exectrace and
# --trace of sign on P-256 and secp256k1 on two GPUs and one, --reps 5, and of P-224 mul on two GPUs.
set -u -o pipefail
T0=$(date +%s); O=/tmp/t2; mkdir -p $O; save() { tar cJf $OUT/t2.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt
B=.dev/t2
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$B/ecmul.xz'), open('$B/ecmul','wb'))" && rm $B/ecmul.xz && chmod +x $B/ecmul
$B/ecmul version > $O/version.txt 2>&1; head -1 $O/version.txt
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], 'g%s'%r.get('gpus',''), '%.2f'%((r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6), ' '.join('%.1f'%x for x in r['runs_ms']))" 2>&1 | tr '\n' ';'; }
run() { # name timeout args...
  local n=$1 t=$2; shift 2
  timeout $t $B/ecmul bench --backend gpu --batch 4194304 --peers=false --json $O/$n.json --trace $O/$n.jsonl --exectrace $O/$n.trace "$@" > $O/$n.txt 2>&1
  echo "$n rc $? t $(el): $(summ $O/$n.json)"; save
}
run sign 150 --gpus 2,1 --curve p256,secp256k1 --op sign --reps 5
run mul 100 --gpus 2 --curve p224 --op mul --reps 5
ls -la $O; echo "t $(el)"
