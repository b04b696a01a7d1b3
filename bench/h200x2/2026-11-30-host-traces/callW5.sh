#!/usr/bin/env bash
# call W5 (two H200): HEAD (5b2e62b) against gECC in one call. gECC's build beside ecmul verify --op sign
# and --op ecdsa on P-224 and P-256 over both GPUs; gECC's sign and verify; then ecmul bench --op
# ecdsa,sign at 2^22 on P-224 and P-256, one GPU and two, --trace, with gECC's figures and OpenSSL's.
set -u -o pipefail
T0=$(date +%s); O=/tmp/w5; mkdir -p $O; save() { tar cJf $OUT/w5.txz --exclude=gecc -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt; openssl version | tee -a $O/device.txt
head -1 /proc/stat | tee -a $O/device.txt
B=.dev/w5
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$B/ecmul.xz'), open('$B/ecmul','wb'))" && chmod +x $B/ecmul
$B/ecmul version > $O/version.txt 2>&1; head -1 $O/version.txt
export GECC_BUILD=/tmp/gecc-build
( timeout 220 bash $B/peers/gecc.sh /tmp/gecc-b build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(el)" > $O/gecc-build.rc ) &
for c in p224 p256; do for op in sign ecdsa; do
  timeout -k 5 45 $B/ecmul verify --backend gpu --curve $c --op $op --n 60000 --chunk 60000 > $O/verify-$c-$op.txt 2>&1
  echo "verify $c $op rc $? $(tail -1 $O/verify-$c-$op.txt) $(grep -o 'items=[0-9]* mismatches=[0-9]* item_errors=[0-9]*' $O/verify-$c-$op.txt) t $(el)"
done; done
wait; cat $O/gecc-build.rc; save
for w in sign verify; do
  timeout 100 bash $B/peers/gecc.sh $O/gecc $w > $O/gecc-$w.txt 2>&1; echo "gecc $w rc $? t $(el): $(grep op/s $O/gecc-$w.txt | tr '\n' ' ')"
done
cat $O/gecc-*.txt | grep "op/s" > $O/gpu-peers.txt; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], 'g%s'%r.get('gpus',''), '%.2f'%((r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6), 'peer x%.3f'%(r.get('ratio_to_best_peer') or 0))" 2>&1 | tr '\n' ';'; }
timeout -k 5 $(( 560 - $(el) )) $B/ecmul bench --backend gpu --gpus 1,2 --curve p224,p256 --op ecdsa,sign --batch 4194304 --reps 5 \
  --gpu-peers $O/gpu-peers.txt --json $O/record.json --csv $O/record.csv --trace $O/trace.jsonl > $O/record.txt 2>&1; echo "record rc $? t $(el): $(summ $O/record.json)"
gzip -f $O/trace.jsonl; head -1 /proc/stat | tee -a $O/device.txt; save
tail -8 $O/record.txt
echo "t $(el)"
