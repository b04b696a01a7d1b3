#!/usr/bin/env bash
# call E1 (one H200): the kernels around the comb and the ladder in blocks of one warp
# (kernels.FinishThreads 32), so that they fit beside the ladder's and the comb's blocks in the
# registers those leave free; f32c also caps the finish at 128 registers. sm_90 builds of both,
# ecmul verify on P-224 with f32c, then mul,base,ecdsa,sign at 2^22 alternated: old (committed
# fatbin, FinishThreads 128), f32, f32c.
# .dev/e1: ecmul (fe89fb6), ecmul32 (fe89fb6 with kernels.FinishThreads = 32, schedule_gen.cuh
# regenerated), src32 (internal/kernels of that tree), src32c (src32 with the finish entry's
# __launch_bounds__(kFinishThreads, 16)).
set -u -o pipefail
T0=$(date +%s); O=/tmp/e1; mkdir -p $O; save() { tar czf $OUT/e1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/e1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul $B/ecmul32; $B/ecmul version > $O/version.txt 2>&1; $B/ecmul32 version >> $O/version.txt 2>&1
for v in f32 f32c; do src=$B/src${v#f}
  ( nvcc -std=c++17 -O3 -Xptxas -v --fatbin -gencode arch=compute_90,code=sm_90 -o /tmp/$v.fatbin $src/ecmul.cu > $O/$v.log 2>&1; echo "$v rc $? t $(el)" > $O/$v.rc ) &
done
wait; cat $O/*.rc
for v in f32 f32c; do grep -E "Compiling entry function|Used [0-9]+ registers" $O/$v.log | paste - - | grep -E "_p224_c30|_p256_c30" | grep -vE "ladder" | sed -E 's/ptxas info *: //g' | cut -c1-170 | sed "s/^/$v /"; gzip -f $O/$v.log; done > $O/ptxas.txt
grep -E "finish_p224|verify_p224|signpack_p224" $O/ptxas.txt
cp internal/kernels/ecmul.fatbin /tmp/old.fatbin; save
for op in ecdsa sign mul base; do
  ECMUL_FATBIN=/tmp/f32c.fatbin timeout 60 $B/ecmul32 verify --backend gpu --curve p224 --op $op --n 20000 > $O/verify-$op.txt 2>&1; echo "verify $op rc $? $(tail -1 $O/verify-$op.txt | cut -c1-100) t $(el)"
done
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], '%.2f'%((r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6), 'k%.2f'%(r['kernel_ops_per_s']/1e6) if r.get('kernel_ops_per_s') else '', 'x%.3f'%(r.get('ratio_to_mul') or r.get('ratio_to_base') or 0))" 2>&1 | tr '\n' ';'; }
bench() { # tag curve
  local bin=$B/ecmul32 fb=/tmp/$1.fatbin; [ $1 = old ] && bin=$B/ecmul
  ECMUL_FATBIN=$fb timeout 80 $bin bench --backend gpu --curve $2 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 --peers=false --json $O/b-$1-$2-$3.json > $O/b-$1-$2-$3.txt 2>&1
  echo "$1 $2 r$3 rc $? t $(el): $(summ $O/b-$1-$2-$3.json)"; save
}
for v in old f32 f32c; do bench $v p224 1; done
for v in old f32c; do bench $v p256 1; done
for v in f32c f32 old; do [ $(el) -gt 470 ] && break; bench $v p224 2; done
echo "t $(el)"
