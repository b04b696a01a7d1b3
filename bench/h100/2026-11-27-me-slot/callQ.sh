#!/usr/bin/env bash
# call Q: P-224's third mma slot as m_e alone. Build the fatbin; every p224/p256 mma and comb entry point
# against the CPU twin; kernel and end-to-end k·P and k·G at 2^20, committed fatbin (A) against new (B),
# alternated; Nsight Compute on p256 coz mma; gECC k·P.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wQ; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c12
for f in $B/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/*
cp kernels/ecmul.fatbin $O/A.fatbin
s=$(date +%s); make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? in $(( $(date +%s) - s )) s"
cp kernels/ecmul.fatbin $O/B.fatbin; gzip -9 -c kernels/ecmul.fatbin > ${OUT:-/tmp}/ecmul.fatbin.gz
grep -E "Function properties for ecm_ladder_(p256|p224)_(coz|comb)_shenoy_mma_c30" -A2 $O/fatbin.log | grep -E "Function|spill|registers" > $O/ptxas-mma.txt; cat $O/ptxas-mma.txt
save
export ECMUL_FATBIN=$O/B.fatbin
ECMUL_GPU_ITEMS=4000 timeout 100 $B/gpu.test -test.run 'TestKernelMatchesCPUTwin/.*(p224|p256).*(mma|comb)' -test.v -test.timeout 95s > $O/twin.log 2>&1; echo "twin rc $?"; grep -cE "^    --- PASS" $O/twin.log; grep -E "^(--- |FAIL|ok|PASS)|--- FAIL" $O/twin.log | tail -4
save
for r in 1 2; do for v in A B; do
  ECMUL_FATBIN=$O/$v.fatbin timeout 60 $B/ecmul bench --backend gpu --curve p224,p256 --op mul,base --mapping mma --batch 1048576 --reps 3 --peers=false \
    --json $O/ab-$v-$r.json > $O/ab-$v-$r.txt 2>&1; echo "ab $v $r rc $?"
done; done
save
python3 - $O <<'PY'
import json,sys,glob,statistics as st
rows={}
for f in sorted(glob.glob(sys.argv[1]+'/ab-*.json')):
    v=f.split('ab-')[1][0]
    d=json.load(open(f))
    res=d.get('results',d) if isinstance(d,dict) else d
    for x in res:
        k=(x.get('curve'),x.get('op'),v)
        rows.setdefault(k,[]).append((x.get('kernel_ops_per_s') or 0, x.get('ops_per_s') or 0, x.get('bytes_ops_per_s') or 0))
for k in sorted(rows):
    print(k, ' '.join('kern %.3fM e2e %.3fM'%(a/1e6,(c or b)/1e6) for a,b,c in rows[k]))
PY
make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?"
mkdir -p $O/vec; $B/kernelvec -curve p256 -schedule coz -channel-bits 30 -n 2048 -out $O/vec/p256_coz_c30.bin > /dev/null
timeout 150 bash kernels/harness/profile.sh $O/B.fatbin $O/vec $O/ncu ecm_ladder_p256_coz_shenoy_mma_c30 128 131072 > $O/ncu-summary.txt 2>&1; echo "ncu rc $?"; head -40 $O/ncu-summary.txt
rm -f $O/ncu/*.ncu-rep; save
timeout 120 bash .dev/peers/gecc.sh $O/gecc pmul > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt
save
