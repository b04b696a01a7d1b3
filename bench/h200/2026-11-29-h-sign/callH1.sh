#!/usr/bin/env bash
# call H1 (main 852cb0d, G2's fatbin): where a signing step's time goes. P-256 and P-224 sign at 2^22 with
# the sign_step timeline and a host CPU profile; the same with every step's chunks overlapped (ecmul-ovl)
# and with steps of 2^18 too (ecmul-ovl18); ncu's duration of each kernel of one sign step and one k·G batch.
set -u -o pipefail
T0=$(date +%s); O=/tmp/h1; mkdir -p $O; save() { tar czf $OUT/h1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/h1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul*
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
timeout 120 $B/ecmul bench --backend gpu --curve p256,p224 --op base,sign --batch 4194304 --reps 3 --peers=false \
  --json $O/bench.json --cpuprofile $O/sign.prof > $O/bench.txt 2>&1; echo "bench rc $? t $(el)"
grep -E "^\s+(P-|secp)" $O/bench.txt | awk '{print $1, $2, $11, $12, $13, $14, $NF}'
save
for v in ovl ovl18; do
  timeout 60 $B/ecmul-$v bench --backend gpu --curve p256 --op sign --batch 4194304 --reps 3 --peers=false --json $O/sign-$v.json > $O/sign-$v.txt 2>&1
  echo "sign p256 $v rc $? $(grep -E '^\s+P-256' $O/sign-$v.txt | awk '{print $11, $13}') t $(el)"; done
save
for op in sign base; do
  timeout 120 ncu --metrics gpu__time_duration.sum --csv --kernel-name regex:ecm_ --launch-count 60 --log-file $O/ncu-$op.csv \
    $B/ecmul bench --backend gpu --curve p256 --op $op --batch 65536 --reps 1 --peers=false > $O/ncu-$op.txt 2>&1
  echo "ncu $op rc $? t $(el)"
  python3 - $O/ncu-$op.csv <<'PY'
import csv,sys,collections
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; ki=h.index("Kernel Name"); gi=h.index("Grid Size"); vi=h.index("Metric Value")
agg=collections.defaultdict(list)
for r in rows[1:]:
    agg[(r[ki],r[gi])].append(float(r[vi].replace(',','')))
for k,v in agg.items(): print(f"{k[0][:40]:40s} grid {k[1]:>14s} n {len(v):3d} median us {sorted(v)[len(v)//2]/1e3:9.1f}")
PY
done
save; echo "t $(el)"
