#!/usr/bin/env bash
# call W: frag_combine (s3), the reduction's 64-bit sum (s5) and both (s4) written as PTX carry additions, against s0.
# the harness at 2^20 items, alternated twice: s0 (P-224's third slot m_e alone), s1 (+ reduce on the whole of
# z), s1 at register caps 128, 136, 144; SASS counts of each ladder loop.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wW; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/c12
for f in $B/kernelvec.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/kernelvec
(make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
mkdir -p $O/vec; for k in p224_coz p256_coz p224_comb p256_comb; do $B/kernelvec -curve ${k%_*} -schedule ${k#*_} -channel-bits 30 -n 2048 -out $O/vec/${k}_c30.bin > /dev/null; done
build() {  # build NAME SRC [CAP]
  d=/tmp/var/$1; rm -rf $d; mkdir -p $d; cp kernels/*.cu kernels/*.cuh $d/; cp .dev/varsrc/$2/* $d/
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
  nvcc -O3 -std=c++17 --threads 0 -Xptxas -v ${3:+-DECM_MAX_REGS=$3} --fatbin -gencode arch=compute_90,code=sm_90 -o $O/$1.fatbin $d/ecmul.cu > $O/build-$1.log 2>&1
  echo "build $1 rc $?"
}
s=$(date +%s)
build s0 s0 & build s3 s3 & build s4 s4 & build s5 s5 & wait
echo "builds in $(( $(date +%s) - s )) s"
V="s0 s3 s4 s5"
for v in $V; do
  grep -E "Function properties|spill|registers" $O/build-$v.log | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | awk -v v=$v '{print v, $0}' | cut -c1-200
  for e in p224_coz p256_coz p224_comb p256_comb; do
    cuobjdump -sass -fun ecm_ladder_${e}_shenoy_mma_c30 $O/$v.fatbin > $O/sass-$v-$e.txt 2>&1
  done
done > $O/ptxas.txt; grep ecm_ladder $O/ptxas.txt | grep -oE "^s\S+ ecm_ladder_\S+|[0-9]+ bytes spill stores|Used [0-9]+ registers" | paste - - - 
for v in $V; do for e in p224_coz p256_coz; do
  ipw=8; bits=$([ ${e%_*} = p224 ] && echo 225 || echo 257)
  printf "%s %s " $v $e; python3 kernels/harness/sass_loop.py $ipw $bits --hist < $O/sass-$v-$e.txt | head -2 | tr '\n' ' ' | cut -c1-400; echo
done; done | tee $O/sass-counts.txt
save
for r in 1 2 3; do for v in $V; do for e in p224_coz p256_coz p224_comb p256_comb; do
  kernels/harness/harness $O/$v.fatbin ${e}_c30 $O/vec/${e}_c30.bin --batches 1048576 --threads 128 --only ecm_ladder_${e}_shenoy_mma_c30 > $O/h-$v-$e-$r.log 2>&1
  awk -v v=$v -v r=$r '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%s run %s %-40s %8.3f M/s\n", v, r, $1, $5/1e6}' $O/h-$v-$e-$r.log
  grep -E "MISMATCH|[1-9][0-9]* failed" $O/h-$v-$e-$r.log | head -2
done; done; done | tee $O/times.txt
save
