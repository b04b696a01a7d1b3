#!/usr/bin/env bash
# call T: P-224's third mma slot as m_e alone, the full fatbin: built; every entry point against the CPU
# twin; the harness at 2^20 on every coz and comb mma entry point (bit-exact, median of three runs), with
# the comb at register caps 168 and 176 beside it (sm_90 fatbins of the comb entries); gECC k·P.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wT; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c12
for f in $B/gpu.test.xz $B/kernelvec.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/*
build() {  # build NAME CAP: sm_90, the comb mma entries only
  d=/tmp/var/$1; rm -rf $d; mkdir -p $d; cp kernels/*.cu kernels/*.cuh $d/
  python3 - $d/schedule_gen.cuh <<'PY'
import re,sys
p=sys.argv[1]; L=open(p).read().split('\n'); out=[]; i=0
while i<len(L):
    if L[i].startswith('#define ECM_ENTRIES('):
        keep=[]; i+=1
        while True:
            l=L[i].rstrip(' \\'); i+=1
            if re.search(r'ENTRY\(\w+, \w+, comb, \w+, shenoy, Shenoy, mma,', l): keep.append(l)
            if not L[i-1].endswith('\\'): break
        out.append('#define ECM_ENTRIES(ENTRY) \\'); out += [k+' \\' for k in keep[:-1]] + [keep[-1]]
    else: out.append(L[i]); i+=1
open(p,'w').write('\n'.join(out))
PY
  nvcc -O3 -std=c++17 --threads 0 -Xptxas -v -DECM_MAX_REGS=$2 --fatbin -gencode arch=compute_90,code=sm_90 -o $O/$1.fatbin $d/ecmul.cu > $O/build-$1.log 2>&1
  echo "build $1 rc $?"
}
s=$(date +%s)
make -B kernels-fatbin > $O/fatbin.log 2>&1 & build comb168 168 & build comb176 176 & (make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
mkdir -p $O/vec; for c in p224 p256 secp256k1; do for sc in coz comb; do $B/kernelvec -curve $c -schedule $sc -channel-bits 30 -n 2048 -out $O/vec/${c}_${sc}_c30.bin > /dev/null; done; done
wait; echo "builds in $(( $(date +%s) - s )) s"
gzip -9 -c kernels/ecmul.fatbin > ${OUT:-/tmp}/ecmul.fatbin.gz
grep -E "Function properties for ecm_ladder_\w+_(coz|comb)_shenoy_mma_c30" -A2 $O/fatbin.log | grep -E "Function|spill|registers" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-150 | tee $O/ptxas-mma.txt
for v in comb168 comb176; do grep -E "Function properties|spill|registers" $O/build-$v.log | paste - - - | grep ecm_ladder | sed -E 's/ptxas info *: //g; s/Function properties for //' | awk -v v=$v '{print v, $0}' | cut -c1-150; done | tee $O/ptxas-caps.txt
save
export ECMUL_FATBIN=$PWD/kernels/ecmul.fatbin
ECMUL_GPU_ITEMS=4000 timeout 150 $B/gpu.test -test.run 'TestKernelMatchesCPUTwin' -test.v -test.timeout 145s > $O/twin.log 2>&1; echo "twin rc $?"; grep -cE "^    --- PASS" $O/twin.log; grep -E "^(--- |FAIL|ok|PASS)|--- FAIL" $O/twin.log | tail -4
save
for r in 1 2 3; do for c in p224 p256 secp256k1; do for sc in coz comb; do
  for fb in kernels/ecmul.fatbin $([ $sc = comb ] && echo $O/comb168.fatbin $O/comb176.fatbin); do
    kernels/harness/harness $fb ${c}_${sc}_c30 $O/vec/${c}_${sc}_c30.bin --batches 1048576 --threads 128 --only ecm_ladder_${c}_${sc}_shenoy_mma_c30 > $O/h.log 2>&1
    cat $O/h.log >> $O/harness-all.log
    awk -v f=$(basename $fb .fatbin) -v r=$r '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%-8s run %s %-40s %8.3f M/s\n", f, r, $1, $5/1e6}' $O/h.log
    grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
done; done; done; done | tee $O/times.txt
save
timeout 150 bash .dev/peers/gecc.sh $O/gecc pmul > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt
save
