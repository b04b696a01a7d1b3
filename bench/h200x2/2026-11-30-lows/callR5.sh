#!/usr/bin/env bash
# call R5 (two H200 of one host): the record at dd15624. gECC's build beside ecmul verify --op ecdsa and
# --op sign on every curve over both GPUs; gECC's pmul, fixed and sign; then ecmul bench --op
# mul,base,ecdsa,sign at 2^22 on every curve, one GPU and two, five runs each, --trace, with gECC's
# figures and the CPU peers (OpenSSL speed -multi 32 and the cpu backend, measured last); vmstat
# samples the host throughout. The binary loads the committed fatbin (ECMUL_FATBIN).
set -u -o pipefail
T0=$(date +%s); O=/tmp/r5; mkdir -p $O; save() { tar cJf $OUT/r5.txz --exclude=gecc -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt; openssl version | tee -a $O/device.txt
head -1 /proc/stat | tee -a $O/device.txt
B=.dev/r5
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$B/ecmul.xz'), open('$B/ecmul','wb'))" && chmod +x $B/ecmul
$B/ecmul version > $O/version.txt 2>&1; head -3 $O/version.txt
vmstat -t 1 > $O/vmstat.txt 2>&1 & VM=$!
mkdir -p /tmp/p && tar xJf $B/peers.txz -C /tmp/p
export GECC_BUILD=/tmp/gecc-build
( timeout 200 bash /tmp/p/peers/gecc.sh /tmp/gecc-b build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(el)" > $O/gecc-build.rc ) &
GB=$!
for c in p224 p256 secp256k1; do for op in ecdsa sign; do
  timeout 40 $B/ecmul verify --backend gpu --curve $c --op $op --n 40000 > $O/verify-$c-$op.txt 2>&1; echo "verify $c $op rc $? $(tail -1 $O/verify-$c-$op.txt | cut -c1-60) t $(el)"
done; done
wait $GB; cat $O/gecc-build.rc; save
for w in pmul fixed sign; do
  timeout 90 bash /tmp/p/peers/gecc.sh $O/gecc $w > $O/gecc-$w.txt 2>&1; echo "gecc $w rc $? t $(el): $(grep op/s $O/gecc-$w.txt | tr '\n' ' ')"
done
cat $O/gecc-*.txt | grep "op/s" > $O/gpu-peers.txt; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], 'g%s'%r.get('gpus',''), '%.2f'%((r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6))" 2>&1 | tr '\n' ';'; }
timeout $(( 570 - $(el) )) $B/ecmul bench --backend gpu --gpus 1,2 --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --reps 5 \
  --gpu-peers $O/gpu-peers.txt --json $O/record.json --csv $O/record.csv --trace $O/trace.jsonl > $O/record.txt 2>&1; echo "record rc $? t $(el): $(summ $O/record.json)"
kill $VM; head -1 /proc/stat | tee -a $O/device.txt
gzip -f $O/trace.jsonl $O/vmstat.txt; save
tail -40 $O/record.txt
echo "t $(el)"
