#!/usr/bin/env bash
# call P1 (one H200): where call A1's P-224 verification lost 4 ms a batch. ncu (every kernel
# serialised, gpu__time_duration) on the first 60 P-224 launches of a verification batch of 196,608
# items, old (ecmul-old, 0c2000a) and new (ecmul-new with A1's fatbin); then P-224 and P-256 mul,ecdsa
# at 2^22 on one GPU, old and new alternated.
set -u -o pipefail
T0=$(date +%s); O=/tmp/p1; mkdir -p $O; save() { tar czf $OUT/p1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt
B=.dev/p1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul-*
fb() { [ $1 = new ] && echo $B/new.fatbin; }
for v in old new; do
  ECMUL_FATBIN=$(fb $v) timeout 120 ncu --clock-control none --csv --page raw --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread \
    --kernel-name regex:"ecm_.*_p224_" --launch-count 60 \
    $B/ecmul-$v bench --backend gpu --gpus 1 --curve p224 --op ecdsa --batch 196608 --reps 1 --peers=false > $O/ncu-$v.csv 2> $O/ncu-$v.err
  echo "ncu $v rc $? t $(el)"; save
done
python3 - $O <<'PY'
import csv, sys, io
for v in ("old", "new"):
    txt = open(f"{sys.argv[1]}/ncu-{v}.csv").read()
    rows = list(csv.reader(io.StringIO(txt[txt.find('"ID"'):])))
    h = rows[0]; k = h.index("Kernel Name"); t = h.index("gpu__time_duration.sum"); g = h.index("launch__grid_size")
    print(v, " ".join(f"{r[k].replace('ecm_','').replace('_p224_c30','')}:{r[t]}" for r in rows[2:]))
PY
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], '%.2f'%((r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6), [round(x,1) for x in r['runs_ms']])" 2>&1 | tr '\n' ';'; }
for round in 1 2; do for v in old new; do
  ECMUL_FATBIN=$(fb $v) timeout 40 $B/ecmul-$v bench --backend gpu --gpus 1 --curve p224,p256 --op mul,ecdsa --batch 4194304 --reps 3 --peers=false --json $O/ab-$v-$round.json > $O/ab-$v-$round.txt 2>&1
  echo "$v r$round rc $? t $(el): $(summ $O/ab-$v-$round.json)"; save
done; done
