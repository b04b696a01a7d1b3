#!/usr/bin/env bash
# call H2 (branch sign-shares): make -B kernels-fatbin with the sign pack's shared inversion; entry points;
# TestGPUSign, TestGPUVerifyKernel, Wycheproof; ecmul verify --op sign on every curve; memcheck on a P-256
# sign batch; bench base,sign at 2^22 (steps of 2^16, and 2^17, 2^18 on P-256 and P-224); ncu of one sign
# step's kernels; a host profile of P-224 ECDSA verification beside k·P.
set -u -o pipefail
T0=$(date +%s); O=/tmp/h2; mkdir -p $O; save() { tar czf $OUT/h2.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/h2
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*.test $B/ecmul*
make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? t $(el)"
cp internal/kernels/ecmul.fatbin $OUT/ecmul.fatbin
grep -E "Function properties for ecm_sign(unpack|pack)_\w+" -A2 $O/fatbin.log | grep -E "Function|spill|registers|stack" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-200 | sort -u > $O/ptxas-sign.txt; grep signpack $O/ptxas-sign.txt | head -2
gzip -f $O/fatbin.log; save
export ECMUL_FATBIN=$OUT/ecmul.fatbin
echo "entries: $(grep -c "Function properties for ecm_" <(zcat $O/fatbin.log.gz) ) function records"
timeout 150 $B/ecdsa.test -test.run 'TestGPUSign|TestGPUVerifyKernel|TestGPUWycheproof' -test.v > $O/ecdsa-gpu.txt 2>&1; echo "ecdsa gpu rc $? t $(el)"
grep -E "^(--- |    --- )(PASS|FAIL|SKIP)" $O/ecdsa-gpu.txt | grep -v "    --- PASS: TestGPUWycheproof" | head -12
for c in p224 p256 secp256k1; do
  timeout 40 $B/ecmul verify --curve $c --backend gpu --op sign --n 40000 > $O/verify-sign-$c.txt 2>&1; echo "verify $c sign rc $? $(tail -n1 $O/verify-sign-$c.txt)"; done
timeout 60 compute-sanitizer --tool memcheck --print-limit 20 $B/ecmul verify --curve p256 --backend gpu --op sign --n 16400 > $O/memcheck-sign-p256.txt 2>&1
echo "memcheck rc $? $(grep -E 'ERROR SUMMARY' $O/memcheck-sign-p256.txt | tail -1) t $(el)"
save
timeout 100 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op base,sign --batch 4194304 --reps 3 --peers=false \
  --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $? t $(el)"
grep -E "^\s+(P-|secp)" $O/bench.txt | awk '{print $1, $2, $11, $12, $13, $14, $NF}'
save
for v in s18; do
  timeout 50 $B/ecmul-$v bench --backend gpu --curve p256,p224 --op sign --batch 4194304 --reps 3 --peers=false --json $O/sign-$v.json > $O/sign-$v.txt 2>&1
  echo "sign $v rc $? $(grep -E '^\s+(P-|secp)' $O/sign-$v.txt | awk '{print $1, $11, $13}' | tr '\n' ' ') t $(el)"; done
save
timeout 60 ncu --metrics gpu__time_duration.sum --csv --kernel-name regex:ecm_ --launch-count 40 --log-file $O/ncu-sign.csv \
    $B/ecmul bench --backend gpu --curve p256 --op sign --batch 65536 --reps 1 --peers=false > $O/ncu-sign.txt 2>&1
echo "ncu sign rc $? t $(el)"
python3 - $O/ncu-sign.csv <<'PY'
import csv,sys,collections
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; ki=h.index("Kernel Name"); gi=h.index("Grid Size"); vi=h.index("Metric Value")
agg=collections.defaultdict(list)
for r in rows[1:]: agg[(r[ki],r[gi])].append(float(r[vi].replace(',','')))
for k,v in agg.items(): print(f"{k[0][:40]:40s} grid {k[1]:>14s} n {len(v):3d} median us {sorted(v)[len(v)//2]/1e3:9.1f}")
PY
timeout 60 $B/ecmul bench --backend gpu --curve p224 --op mul,ecdsa --batch 4194304 --reps 3 --peers=false \
  --json $O/verify-p224.json --cpuprofile $O/verify-p224.prof > $O/verify-p224.txt 2>&1; echo "p224 verify rc $? t $(el)"
grep -E "^\s+(P-|secp)" $O/verify-p224.txt | awk '{print $1, $2, $11, $12, $13, $14, $NF}'
save; echo "t $(el)"
