#!/usr/bin/env bash
# call L1 (one H200): ecmul-a = b6f71ef. Verification with the comb's finish in the verify chunks
# taking 64 (the library's), 32, 16 or 8 items a thread (--finish-items, which the comb's runner
# takes; the verify kernel takes one item a thread whatever it says), alternated; no peer.
set -u -o pipefail
T0=$(date +%s); O=/tmp/l1; mkdir -p $O; save() { tar czf $OUT/l1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt
B=.dev/l1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul-a; $B/ecmul-a version > $O/version.txt 2>&1; head -1 $O/version.txt
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s %.2f'%(r['curve'][-4:], r['op'][:4], r['ops_per_s']/1e6) for r in d['results']))"; }
for fi in 64 16 8 32 64 16; do left=$(( 150 - $(el) )); [ $left -lt 15 ] && break
  timeout $left $B/ecmul-a bench --backend gpu --curve p224,p256 --op ecdsa --batch 4194304 --reps 3 --peers=false --finish-items $fi \
    --json $O/fi$fi-$(el).json > $O/fi$fi.txt 2>&1; echo "fi$fi rc $? t $(el) $(summ $(ls -t $O/fi$fi-*.json | head -1))"; save; done
save; echo "t $(el)"
