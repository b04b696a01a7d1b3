#!/usr/bin/env bash
# call G1 (one H200): four slots a device (gpu.slotCount 4) with four signing steps queued
# (ecdsasign.stepsQueued 4), against HEAD's three and three: ecmul verify on P-224 (ecdsa, sign, mul),
# then mul,base,ecdsa,sign at 2^22 alternated, no peer.
set -u -o pipefail
T0=$(date +%s); O=/tmp/g1; mkdir -p $O; save() { tar czf $OUT/g1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/g1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul-*; for v in s3 s4q4; do $B/ecmul-$v version >> $O/version.txt 2>&1; done
for op in ecdsa sign mul; do
  timeout 60 $B/ecmul-s4q4 verify --backend gpu --curve p224 --op $op --n 40000 > $O/verify-$op.txt 2>&1; echo "verify $op rc $? $(tail -1 $O/verify-$op.txt | cut -c1-80) t $(el)"
done
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], '%.2f'%((r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6), 'x%.3f'%(r.get('ratio_to_mul') or r.get('ratio_to_base') or 0))" 2>&1 | tr '\n' ';'; }
bench() { # variant curve round
  timeout 80 $B/ecmul-$1 bench --backend gpu --curve $2 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 --peers=false --json $O/b-$1-$2-$3.json > $O/b-$1-$2-$3.txt 2>&1
  echo "$1 $2 r$3 rc $? t $(el): $(summ $O/b-$1-$2-$3.json)"; save
}
for r in 1 2 3; do for v in s3 s4q4; do bench $v p224 $r; done; done
for v in s3 s4q4; do bench $v p256 1; done
echo "t $(el)"
