#!/usr/bin/env bash
# call R1 (two H200 of one host): issue 41's record with 0c2000a. gECC's build, then its pmul, fixed,
# verify and sign; then ecmul bench --op mul,base,ecdsa,sign at 2^22 on every curve on one GPU and two,
# with OpenSSL (openssl speed -multi, ecmul bench's CPU peers) and gECC's figures; then ecmul verify
# --op ecdsa and --op sign on every curve over both GPUs.
set -u -o pipefail
T0=$(date +%s); O=/tmp/r1; mkdir -p $O; save() { tar czf $OUT/r1.tgz --exclude=gecc -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt; openssl version | tee -a $O/device.txt
B=.dev/r1
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$B/ecmul.xz'), open('$B/ecmul','wb'))" && rm $B/ecmul.xz && chmod +x $B/ecmul
$B/ecmul version > $O/version.txt 2>&1; head -3 $O/version.txt
export GECC_BUILD=/tmp/gecc-build
timeout 200 bash .dev/peers/gecc.sh /tmp/gecc-b build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(el)"
for w in pmul fixed sign verify; do
  left=$(( 300 - $(el) )); [ $left -lt 20 ] && break
  timeout $left bash .dev/peers/gecc.sh $O/gecc $w > $O/gecc-$w.txt 2>&1; echo "gecc $w rc $? t $(el): $(grep op/s $O/gecc-$w.txt | tr '\n' ' ')"
done
cat $O/gecc-*.txt | grep "op/s" > $O/gpu-peers.txt; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], 'g%s'%r.get('gpus',''), '%.2f'%((r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6), 'x%.3f'%(r.get('ratio_to_mul') or r.get('ratio_to_base') or 0), 'p%.2f'%(r.get('ratio_to_best_peer') or 0))" 2>&1 | tr '\n' ';'; }
timeout $(( 560 - $(el) )) $B/ecmul bench --backend gpu --gpus 1,2 --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 \
  --gpu-peers $O/gpu-peers.txt --json $O/record.json --csv $O/record.csv > $O/record.txt 2>&1; echo "record rc $? t $(el): $(summ $O/record.json)"; save
for c in p224 p256 secp256k1; do for op in ecdsa sign; do
  [ $(el) -gt 575 ] && break 2
  timeout 20 $B/ecmul verify --backend gpu --curve $c --op $op --n 40000 > $O/verify-$c-$op.txt 2>&1; echo "verify $c $op rc $? $(tail -1 $O/verify-$c-$op.txt | cut -c1-60) t $(el)"
done; done; save
echo "t $(el)"
