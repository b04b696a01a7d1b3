#!/usr/bin/env bash
# call Y1 (one H200): where the GPU time of ECDSA signing and verification goes at the library's own
# chunk sizes: ncu's duration of every kernel of a batch of 2^20 items (sign, base, ecdsa) on P-224
# and P-256, binary of main (3533b26, the kernels of 37e94ed).
set -u -o pipefail
T0=$(date +%s); O=/tmp/y1; mkdir -p $O; save() { tar czf $OUT/y1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/y1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul
$B/ecmul version > $O/version.txt 2>&1
agg() { python3 - "$1" <<'PY'
import csv,sys,collections
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; ki=h.index("Kernel Name"); gi=h.index("Grid Size"); vi=h.index("Metric Value")
agg=collections.defaultdict(list)
for r in rows[1:]: agg[(r[ki],r[gi])].append(float(r[vi].replace(',','')))
for k,v in sorted(agg.items()): print(f"{k[0][:44]:44s} grid {k[1]:>14s} n {len(v):3d} median us {sorted(v)[len(v)//2]/1e3:9.1f} sum us {sum(v)/1e3:10.1f}")
PY
}
for c in p224 p256; do for op in sign base ecdsa; do
  timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv --kernel-name regex:ecm_ --launch-count 600 \
    --log-file $O/ncu-$c-$op.csv $B/ecmul bench --backend gpu --curve $c --op $op --batch 1048576 --reps 1 --peers=false > $O/ncu-$c-$op.txt 2>&1
  echo "== $c $op rc $? t $(el)"; agg $O/ncu-$c-$op.csv | tee $O/agg-$c-$op.txt
  save
done; done
echo "t $(el)"
