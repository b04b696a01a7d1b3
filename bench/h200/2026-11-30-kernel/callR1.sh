#!/usr/bin/env bash
# call R1: the fatbin rebuilt (make -B kernels-fatbin) from sources that write m_e's formulas, the
# 16-bit q and the mappings' shapes once; its SASS and registers against the committed fatbin's,
# function by function, on every architecture it holds.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wR1; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
cp internal/kernels/ecmul.fatbin /tmp/old.fatbin
make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? in $(( $(date +%s) - T0 )) s"
cp internal/kernels/ecmul.fatbin ${OUT:-/tmp}/ecmul.fatbin
norm() { sed -E 's@/\*[0-9a-f]{4,}\*/@@g; s@ +@ @g'; }
for a in sm_80 sm_86 sm_89 sm_90; do
  for v in old new; do
    f=/tmp/old.fatbin; [ $v = new ] && f=internal/kernels/ecmul.fatbin
    cuobjdump -sass -arch $a $f 2> $O/$v-$a.err | norm > $O/$v-$a.sass
    cuobjdump -res-usage -arch $a $f 2>&1 | grep -E "Function|REG" | paste - - > $O/$v-$a.res
  done
  echo "$a: sass lines old $(wc -l < $O/old-$a.sass) new $(wc -l < $O/new-$a.sass), differing $(diff $O/old-$a.sass $O/new-$a.sass | grep -c '^[<>]'); functions $(wc -l < $O/new-$a.res), resource lines differing $(diff $O/old-$a.res $O/new-$a.res | grep -c '^[<>]')"
done | tee $O/compare.txt
for a in sm_90; do diff $O/old-$a.sass $O/new-$a.sass | head -40 > $O/diff-$a.txt; done
gzip -9 $O/*.sass; save; echo "t $(( $(date +%s) - T0 ))"
