#!/usr/bin/env bash
# call W6 (two H200): signing's first step, 2^14, 2^15 (aa63d30) or 2^16 items a GPU, with one binary
# (aa63d30 reading rampItems from ECMUL_RAMP_ITEMS, timing only), alternated four times on P-224 and
# P-256, one GPU and two.
set -u -o pipefail
T0=$(date +%s); O=/tmp/w6; mkdir -p $O; save() { tar cJf $OUT/w6.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/w6
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/r.xz'), open('$D/r','wb'))" && chmod +x $D/r
$D/r version > $O/version.txt 2>&1; head -1 $O/version.txt
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/g%s=%.2f'%(r['curve'][-4:], r.get('gpus',''), r['ops_per_s']/1e6) for r in d['results']))" 2>&1; }
for r in 1 2 3 4; do for v in 14 15 16; do
  ECMUL_RAMP_ITEMS=$(( 1 << v )) timeout -k 5 40 $D/r bench --backend gpu --gpus 1,2 --curve p224,p256 --op sign --batch 4194304 --reps 5 \
    --peers=false --json $O/r$v-$r.json --trace $O/r$v-$r.jsonl > $O/r$v-$r.txt 2>&1; echo "r$v-$r rc $? t $(el): $(summ $O/r$v-$r.json)"
  gzip -f $O/r$v-$r.jsonl
done; save; done
head -1 /proc/stat | tee -a $O/device.txt; save
echo "t $(el)"
