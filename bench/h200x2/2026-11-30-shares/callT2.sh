#!/usr/bin/env bash
# call T2 (two H200): c = d193bab; pq = c with the ladders of a batch's closing Runs at launch priorities
# below the others', older first, and each chunk timed by one query an event (pq-timing-only.diff);
# q = pq run with ECMUL_X_NOPRIO=1 (every ladder at the default priority). verify with pq (sign P-224, P-256; ecdsa P-224); an execution trace of pq
# (P-224 signing on two GPUs); c, p, pq alternated: signing four rounds, verification two.
set -u -o pipefail
T0=$(date +%s); O=/tmp/t2; mkdir -p $O; save() { tar cJf $OUT/t2.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/t2
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
for v in c pq; do python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/$v.xz'), open('$D/$v','wb'))" && chmod +x $D/$v; done
for c in p224 p256; do
  timeout -k 5 45 $D/pq verify --backend gpu --curve $c --op sign --n 60000 --chunk 60000 > $O/verify-$c-sign.txt 2>&1
  echo "verify pq $c sign rc $? $(tail -1 $O/verify-$c-sign.txt) t $(el)"
done
timeout -k 5 60 $D/pq verify --backend gpu --curve p224 --op ecdsa --n 60000 --chunk 60000 > $O/verify-p224-ecdsa.txt 2>&1
echo "verify pq p224 ecdsa rc $? $(tail -1 $O/verify-p224-ecdsa.txt) t $(el)"
timeout -k 5 60 $D/pq bench --backend gpu --gpus 2 --curve p224 --op sign --batch 4194304 --reps 5 --peers=false \
  --json $O/xs-g2.json --trace $O/xs-g2.jsonl --exectrace $O/xs-g2.exectrace > $O/xs-g2.txt 2>&1; echo "exectrace sign g2 rc $? t $(el)"
gzip -f $O/x*.jsonl $O/x*.exectrace; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
run() { # variant op tag round reps
  b=$1; x=; [ $1 = q ] && { b=pq; x=ECMUL_X_NOPRIO=1; }
  timeout -k 5 90 env $x $D/$b bench --backend gpu --gpus 1,2 --curve p224,p256 --op $2 --batch 4194304 --reps $5 --peers=false \
    --json $O/$1$3-$4.json --trace $O/$1$3-$4.jsonl > $O/$1$3-$4.txt 2>&1; echo "$1$3-$4 rc $? t $(el): $(summ $O/$1$3-$4.json)"
  gzip -f $O/$1$3-$4.jsonl
}
for r in 1 2 3 4; do for v in c q pq; do run $v sign s $r 5; done; save; done
for r in 1 2; do for v in c q pq; do run $v ecdsa e $r 3; done; save; done
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O cs qs pqs | tee $O/medians.txt
python3 $D/medians.py $O ce qe pqe | tee -a $O/medians.txt
save; echo "t $(el)"
