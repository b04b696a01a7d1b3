#!/usr/bin/env bash
# call T1 (two H200 of one host): where ECDSA's time goes on one GPU and two. ecmul bench --trace of
# mul,base,ecdsa,sign at 2^22 on every curve, --gpus 1,2, no CPU peers; then CPU profiles of P-224
# verification and secp256k1 signing on two GPUs; then secp256k1 base,sign on one GPU right after its
# CPU peers and again without them. vmstat samples the host throughout.
set -u -o pipefail
T0=$(date +%s); O=/tmp/t1; mkdir -p $O; save() { tar czf $OUT/t1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/t1
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$B/ecmul.xz'), open('$B/ecmul','wb'))" && rm $B/ecmul.xz && chmod +x $B/ecmul
$B/ecmul version > $O/version.txt 2>&1; head -3 $O/version.txt
( vmstat -t 1 > $O/vmstat.txt 2>&1 ) & VM=$!
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], 'g%s'%r.get('gpus',''), '%.2f'%((r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6), 'x%.3f'%(r.get('ratio_to_mul') or r.get('ratio_to_base') or 0))" 2>&1 | tr '\n' ';'; }
run() { # name timeout args...
  local n=$1 t=$2; shift 2; echo "$n start t $(el)" >> $O/marks.txt
  timeout $t $B/ecmul bench --backend gpu --batch 4194304 --reps 3 --json $O/$n.json "$@" > $O/$n.txt 2>&1
  echo "$n rc $? t $(el): $(summ $O/$n.json)"; echo "$n end t $(el)" >> $O/marks.txt; save
}
run trace 200 --gpus 1,2 --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --peers=false --trace $O/trace.jsonl
run prof-verify 60 --gpus 2 --curve p224 --op ecdsa --peers=false --cpuprofile $O/verify-p224-g2.pprof
run prof-sign 60 --gpus 2 --curve secp256k1 --op sign --peers=false --cpuprofile $O/sign-secp-g2.pprof
run sign-peers 90 --gpus 1 --curve secp256k1,p224 --op base,sign
run sign-nopeers 60 --gpus 1 --curve secp256k1,p224 --op base,sign --peers=false
kill $VM; gzip -f $O/trace.jsonl; save
echo "t $(el)"
