#!/usr/bin/env bash
# call R5: the fatbin rebuilt (make -B kernels-fatbin) from sources whose constant loaders take every
# extension constant and channel from one function each (ext_const, b_channel, t_channel); its SASS
# and registers against the committed fatbin's, function by function on sm_90, and every entry
# point of every curve, schedule and width checked against the CPU twin.
set -u -o pipefail
T0=$(date +%s); O=/tmp/wR5; mkdir -p $O/vec
save() { tar czf ${OUT:-/tmp}/call.tgz -C $O --exclude=vec .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
cp internal/kernels/ecmul.fatbin /tmp/old.fatbin
( make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? t $(el)" > $O/fatbin.rc ) &
FB=$!
B=.dev/e1
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$B/kernelvec.xz'), open('$B/kernelvec','wb'))"; chmod +x $B/kernelvec
make kernels-harness > $O/harness-build.log 2>&1 || echo "harness build failed"
for c in p224 p256 secp256k1; do for s in coz paper comb combvt; do for w in 16 30; do
  $B/kernelvec -curve $c -schedule $s -channel-bits $w -n 1024 -out $O/vec/${c}_${s}_c$w.bin > /dev/null &
done; done; done
wait $FB; cat $O/fatbin.rc; wait
cp internal/kernels/ecmul.fatbin ${OUT:-/tmp}/ecmul.fatbin
norm() { sed -E 's@/\*[0-9a-f]{4,}\*/@@g; s@ +@ @g'; }
for v in old new; do
  f=/tmp/old.fatbin; [ $v = new ] && f=internal/kernels/ecmul.fatbin
  cuobjdump -sass -arch sm_90 $f | norm > $O/$v.sass
  cuobjdump -res-usage -arch sm_90 $f 2>&1 | grep -E "Function|REG" | paste - - > $O/$v.res
done
echo "sm_90: sass lines old $(wc -l < $O/old.sass) new $(wc -l < $O/new.sass), differing $(diff $O/old.sass $O/new.sass | grep -c '^[<>]'); resource lines differing $(diff $O/old.res $O/new.res | grep -c '^[<>]')" | tee $O/compare.txt
diff $O/old.res $O/new.res > $O/res-diff.txt; head -20 $O/res-diff.txt
python3 - $O <<'PY' | tee $O/functions-differing.txt
import sys, re
d = sys.argv[1]
def funcs(p):
    out, name = {}, None
    for l in open(p):
        m = re.match(r'\s*Function : (\S+)', l)
        if m: name = m.group(1); out[name] = []; continue
        if name: out[name].append(l)
    return out
a, b = funcs(d + '/old.sass'), funcs(d + '/new.sass')
diff = [n for n in b if a.get(n) != b[n]]
print('functions %d, differing %d' % (len(b), len(diff)))
for n in diff[:40]: print(' ', n, len(a.get(n, [])), len(b[n]))
PY
gzip -9 $O/*.sass
: > $O/verify.log
for c in p224 p256 secp256k1; do for s in coz paper comb combvt; do for w in 16 30; do
  [ -f $O/vec/${c}_${s}_c$w.bin ] || continue
  internal/kernels/harness/harness internal/kernels/ecmul.fatbin ${c}_${s}_c$w $O/vec/${c}_${s}_c$w.bin --quick 1024 >> $O/verify.log 2>&1 || echo "verify $c $s c$w rc $?"
done; done; done
echo "verify: $(grep -c bit-exact $O/verify.log) bit-exact, $(grep -c MISMATCH $O/verify.log) mismatched, entries $(grep -c '  verify' $O/verify.log)"
gzip -9 $O/verify.log; save; echo "t $(el)"
