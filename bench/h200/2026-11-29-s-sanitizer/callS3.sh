#!/usr/bin/env bash
# call S3 (one H200): ecmul-w (0e8a653 + bench/h200x2/2026-11-29-x-two-gpus/patch/x3-trace-knob.patch and
# ECMUL_VWORKERS, the workers of Verify's prepare; timing only): P-224 and P-256 verification at 2^22
# with the library's 15 workers against 8 and 4, three rounds alternated (k·P beside the first);
# traces of P-224 verification with 15 and with 8.
set -u -o pipefail
T0=$(date +%s); O=/tmp/s3; mkdir -p $O; save() { tar czf $OUT/s3.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt
B=.dev/s3
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul-*
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s %.2f'%(r['curve'][-4:], r['op'][:4], (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))"; }
for r in 1 2 3; do for w in 0 8 4; do
  ops=ecdsa; [ $r$w = 10 ] && ops=mul,ecdsa
  ECMUL_VWORKERS=$w timeout 60 $B/ecmul-w bench --backend gpu --curve p224,p256 --op $ops --batch 4194304 --reps 3 --peers=false \
    --json $O/w$w-$r.json > $O/w$w-$r.txt 2>&1; echo "workers $w round $r rc $? t $(el) $(summ $O/w$w-$r.json)"; done; save; done
for w in 0 8; do
  ECMUL_TRACE=1 ECMUL_VWORKERS=$w timeout 40 $B/ecmul-w bench --backend gpu --curve p224 --op ecdsa --batch 4194304 --reps 1 --peers=false \
    --json $O/trace-w$w.json > $O/trace-w$w.txt 2> $O/trace-w$w.err; echo "trace $w rc $? t $(el)"; gzip -f $O/trace-w$w.err; done
save; echo "t $(el)"
