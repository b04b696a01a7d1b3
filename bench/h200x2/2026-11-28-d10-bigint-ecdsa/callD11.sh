#!/usr/bin/env bash
# call D11 (two GPUs): ECDSA verification on two GPUs, 47fde60 (no overlap mark, no pooled step buffers)
# against dbf3b01, alternated
set -u -o pipefail
T0=$(date +%s); O=/tmp/d11; mkdir -p $O
for d in .dev/d11old .dev/d10; do for f in $d/ecmul.xz; do [ -f $f ] && python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done; chmod +x $d/ecmul; done
run() { timeout 60 $2/ecmul bench --backend gpu --curve p224,p256 --op mul,ecdsa --batch 4194304 --gpus 1,2 --reps 3 --peers=false --json $O/$1.json > $O/$1.txt 2>&1; echo "$1 rc $? t $(( $(date +%s) - T0 ))"
  python3 -c "
import json,sys
for r in json.load(open('$O/$1.json'))['results']:
  print('$1', r['curve'], r['op'], r.get('gpus'), round(r['ops_per_s']/1e6,3), round(r.get('ratio_to_mul',0),3))"; }
run old1 .dev/d11old; run new1 .dev/d10; run old2 .dev/d11old; run new2 .dev/d10
tar czf $OUT/d11.tgz -C $O .
