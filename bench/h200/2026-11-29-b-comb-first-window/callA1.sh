#!/usr/bin/env bash
# call A1 (one H200): the comb without window 0's addition, and the variable-time comb prefetching its
# next window's rows into L1. make -B kernels-fatbin (new); beside it an sm_90 build without the
# prefetch (nopf); the harness on comb and combvt, old (committed fatbin) / new / nopf, 3 alternated
# rounds at 2^20 items; ecmul bench base,ecdsa,sign on P-224 and P-256 with old and new fatbins.
set -u -o pipefail
T0=$(date +%s); O=/tmp/a1; mkdir -p $O/vec; save() { tar czf $OUT/a1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/a1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul $B/kernelvec; $B/ecmul version > $O/version.txt 2>&1
( make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? t $(el)" > $O/fatbin.rc; cp internal/kernels/ecmul.fatbin $OUT/ecmul.fatbin ) &
rm -rf /tmp/src-nopf; cp -r internal/kernels /tmp/src-nopf
sed -i 's/      if (i + 1 < Windows) comb_prefetch</      if (false) comb_prefetch</' /tmp/src-nopf/ecmul.cu; grep -c "if (false) comb_prefetch" /tmp/src-nopf/ecmul.cu
( nvcc -std=c++17 -O3 -Xptxas -v --fatbin -gencode arch=compute_90,code=sm_90 -o /tmp/nopf.fatbin /tmp/src-nopf/ecmul.cu > $O/nopf.log 2>&1; echo "nopf rc $? t $(el)" > $O/nopf.rc ) &
(make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") 
for c in p224 p256; do for s in comb combvt; do $B/kernelvec -curve $c -schedule $s -channel-bits 30 -n 2048 -out $O/vec/${c}_${s}_c30.bin > /dev/null; done; done
wait; cat $O/fatbin.rc $O/nopf.rc; cp internal/kernels/ecmul.fatbin /tmp/new.fatbin; cp $B/old.fatbin /tmp/old.fatbin
for l in fatbin nopf; do grep -E "Function properties for ecm_ladder_\w+_comb(vt)?_shenoy_pair_c30" -A2 $O/$l.log | grep -E "Function|spill|registers" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-170 | sed "s/^/$l /" | sort -u; done > $O/ptxas.txt
grep sm_90 $O/ptxas.txt | cut -c1-220; gzip -f $O/fatbin.log $O/nopf.log; save
run() { # fatbin curve schedule
  internal/kernels/harness/harness /tmp/$1.fatbin ${2}_${3}_c30 $O/vec/${2}_${3}_c30.bin --batches 1048576 --threads 128 --only ecm_ladder_${2}_${3}_shenoy_pair_c30 > $O/h.log 2>&1
  cat $O/h.log >> $O/harness-all.log
  awk -v tag="$1" '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%-4s %-40s %9.3f M/s\n", tag, $1, $5/1e6}' $O/h.log
  grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
}
for rep in 1 2 3; do for c in p224 p256; do for s in combvt comb; do for v in old new nopf; do [ $s = comb ] && [ $v = nopf ] && continue; run $v $c $s; done; done; done; done | tee $O/times.txt
echo "bit-exact $(grep -c bit-exact $O/harness-all.log) of $(grep -c '  verify' $O/harness-all.log)"; gzip -f $O/harness-all.log; save; echo "t $(el)"
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], '%.2f'%(r['ops_per_s']/1e6), 'k%.2f'%(r['kernel_ops_per_s']/1e6) if r.get('kernel_ops_per_s') else '', 'x%.3f'%r['ratio_to_mul'] if r.get('ratio_to_mul') else '')"; }
for r in 1 2; do for v in new old; do [ $(el) -gt 540 ] && break
  ECMUL_FATBIN=/tmp/$v.fatbin timeout 45 $B/ecmul bench --backend gpu --curve p224 --op mul,base,ecdsa --batch 4194304 --reps 3 --peers=false --json $O/b-$v$r.json > $O/b-$v$r.txt 2>&1; echo "b $v$r rc $? t $(el)"; save
done; done
for f in $O/b-*.json; do echo "== $f"; summ $f | tr '\n' ';'; echo; done
save; echo "t $(el)"
