#!/usr/bin/env bash
# call S1 (one H200): P-256 verification and signing against gECC's verify and sign in one call, with
# 0c2000a: ecmul bench --op mul,ecdsa,sign at 2^22 on P-256 (no OpenSSL: R1 has it), then gECC's
# build, sign and verify, each in the time left.
set -u -o pipefail
T0=$(date +%s); O=/tmp/s1; mkdir -p $O; save() { tar czf $OUT/s1.tgz --exclude=gecc -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt
B=.dev/q1
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$B/ecmul.xz'), open('$B/ecmul','wb'))" && rm $B/ecmul.xz && chmod +x $B/ecmul
$B/ecmul version > $O/version.txt 2>&1; head -1 $O/version.txt
timeout 60 $B/ecmul bench --backend gpu --curve p256 --op mul,ecdsa,sign --batch 4194304 --reps 3 --peers=false --json $O/bench.json > $O/bench.txt 2>&1
echo "bench rc $? t $(el): $(grep -E 'P-256 +(mul|ecdsa|sign) ' $O/bench.txt | awk '{print $2, $14, $15}' | tr '\n' ';')"; save
export GECC_BUILD=/tmp/gecc-build
timeout $(( 400 - $(el) )) bash .dev/peers/gecc.sh /tmp/gecc-b build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(el)"
for w in sign verify; do
  left=$(( 440 - $(el) )); [ $left -lt 20 ] && break
  timeout $left bash .dev/peers/gecc.sh $O/gecc $w > $O/gecc-$w.txt 2>&1; echo "gecc $w rc $? t $(el): $(grep op/s $O/gecc-$w.txt | tr '\n' ' ')"
  cp $O/gecc/gecc-$w.log $O/ 2>/dev/null; save
done
echo "t $(el)"
