#!/usr/bin/env bash
# call VV: issue 23, frag_combine on the ALU pipe. A/B at 2^20 items (harness, 128 threads) of the co-Z, comb and
# combvt mma entry points of P-224 and P-256: base = commit 14f831e (source), new = frag_combine adding 2^16·mid by PTX shifts and a carried add
# sm_90 fatbins of those six entry points alone; each run bit-exact first.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wVV; mkdir -p $O/vec; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/c35
for f in $B/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/kernelvec
(make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
for v in base new; do
  inc=kernels; [ $v = base ] && inc=$B/base
  (nvcc -O3 -std=c++17 -Xptxas -v -I $inc --fatbin -gencode arch=compute_90,code=sm_90 -o /tmp/$v.fatbin $B/six.cu > $O/build-$v.log 2>&1; echo "$v build rc $?") &
done
for c in p224 p256; do for s in coz comb combvt; do $B/kernelvec -curve $c -schedule $s -channel-bits 30 -n 2048 -out $O/vec/${c}_${s}_c30.bin > /dev/null; done; done
wait; echo "builds in $(( $(date +%s) - T0 )) s"
for v in base new; do grep -E "Function properties for ecm_ladder" -A2 $O/build-$v.log | grep -E "Function|spill|registers" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-170 | sed "s/^/$v: /"; done > $O/ptxas.txt
run() { # fatbin curve schedule tag
  kernels/harness/harness $1 ${2}_${3}_c30 $O/vec/${2}_${3}_c30.bin --batches 1048576 --threads 128 --only ecm_ladder_${2}_${3}_shenoy_mma_c30 > $O/h.log 2>&1
  cat $O/h.log >> $O/harness-all.log
  awk -v tag="$4" '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%-5s %-40s %9.3f M/s\n", tag, $1, $5/1e6}' $O/h.log
  grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
}
for rep in 1 2 3; do for c in p256 p224; do for s in coz comb combvt; do for v in base new; do
  run /tmp/$v.fatbin $c $s $v
done; done; done; done | tee $O/times.txt
grep -c bit-exact $O/harness-all.log; grep -vc bit-exact <(grep "  verify" $O/harness-all.log)
save; echo "t $(( $(date +%s) - T0 ))"
for v in base new; do
  for e in ecm_ladder_p256_coz_shenoy_mma_c30 ecm_ladder_p256_combvt_shenoy_mma_c30; do
    echo "$v $(cuobjdump -sass -arch sm_90 -fun $e /tmp/$v.fatbin | python3 kernels/harness/sass_loop.py 8 257 --hist | head -2 | tr '\n' ' ')"
  done
done | tee $O/sass-loop.txt
save
