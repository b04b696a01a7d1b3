#!/usr/bin/env bash
# call V: occupancy of the mma mapping. The committed fatbin's coz and comb mma entry points at 32, 64 and
# 128 threads per block (a block of one warp lets a 152-register kernel run 13 warps per SM, not 12), and
# sm_90 fatbins of those entry points at caps of 144, 136 and 128 registers at 32 threads; harness at 2^20,
# bit-exact, three alternated runs.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wV; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/c12
for f in $B/kernelvec.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/kernelvec
(make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
mkdir -p $O/vec; for c in p224 p256; do for sc in coz comb; do $B/kernelvec -curve $c -schedule $sc -channel-bits 30 -n 2048 -out $O/vec/${c}_${sc}_c30.bin > /dev/null; done; done
build() {  # build NAME CAP: sm_90, the p224/p256 coz and comb mma entries
  d=/tmp/var/$1; rm -rf $d; mkdir -p $d; cp kernels/*.cu kernels/*.cuh $d/
  python3 - $d/schedule_gen.cuh <<'PY'
import re,sys
p=sys.argv[1]; L=open(p).read().split('\n'); out=[]; i=0
while i<len(L):
    if L[i].startswith('#define ECM_ENTRIES('):
        keep=[]; i+=1
        while True:
            l=L[i].rstrip(' \\'); i+=1
            if re.search(r'ENTRY\((p224|p256), \w+, (coz|comb), \w+, shenoy, Shenoy, mma,', l): keep.append(l)
            if not L[i-1].endswith('\\'): break
        out.append('#define ECM_ENTRIES(ENTRY) \\'); out += [k+' \\' for k in keep[:-1]] + [keep[-1]]
    else: out.append(L[i]); i+=1
open(p,'w').write('\n'.join(out))
PY
  nvcc -O3 -std=c++17 --threads 0 -Xptxas -v -DECM_MAX_REGS=$2 --fatbin -gencode arch=compute_90,code=sm_90 -o $O/$1.fatbin $d/ecmul.cu > $O/build-$1.log 2>&1
  echo "build $1 rc $?"
}
build r144 144 & build r136 136 & build r128 128 & wait
for v in r144 r136 r128; do grep -E "Function properties|spill|registers" $O/build-$v.log | paste - - - | grep ecm_ladder | sed -E 's/ptxas info *: //g; s/Function properties for //' | awk -v v=$v '{print v, $0}' | cut -c1-140; done | tee $O/ptxas.txt
cp kernels/ecmul.fatbin $O/r152.fatbin
for r in 1 2 3; do for e in p224_coz p256_coz p224_comb p256_comb; do
  for v in r152 r144 r136 r128; do
    th=32; [ $v = r152 ] && th=32,64,128
    kernels/harness/harness $O/$v.fatbin ${e}_c30 $O/vec/${e}_c30.bin --batches 1048576 --threads $th --only ecm_ladder_${e}_shenoy_mma_c30 > $O/h.log 2>&1
    cat $O/h.log >> $O/harness-all.log
    grep -E "^  time " $O/h.log | awk -v v=$v -v r=$r '{printf "%s run %s %-36s threads %3s %8.3f M/s\n", v, r, $2, $4, $(NF-1)}'
    grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
  done
done; done | tee $O/times.txt
save
