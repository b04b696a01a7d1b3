#!/usr/bin/env bash
# call B2 (one H200): the record at 89df49b (the combs without the first window's addition): gECC pmul and
# fixed; ecmul bench mul,base,ecdsa,sign at 2^22 on every curve with OpenSSL and gECC; then the same
# binary with the fatbin before the change (ECMUL_FATBIN=old, 24a9db8's) alternated with its own,
# base,ecdsa,sign on P-224 and P-256, no peer.
set -u -o pipefail
T0=$(date +%s); O=/tmp/b2; mkdir -p $O; save() { tar czf $OUT/b2.tgz --exclude=gecc-build --exclude=build -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/b2
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul; $B/ecmul version > $O/version.txt 2>&1; head -3 $O/version.txt
export GECC_BUILD=/tmp/gecc-build
timeout 200 bash .dev/peers/gecc.sh /tmp/gecc-b build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(el)"
timeout 130 bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $? t $(el)"
grep "op/s" $O/gecc.txt | tee $O/gpu-peers.txt; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], '%.2f'%(r['ops_per_s']/1e6), 'b%.2f'%(r['bytes_ops_per_s']/1e6) if r.get('bytes_ops_per_s') else '', 'k%.2f'%(r['kernel_ops_per_s']/1e6) if r.get('kernel_ops_per_s') else '', 'x%.3f'%r['ratio_to_mul'] if r.get('ratio_to_mul') else '')"; }
timeout 170 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 \
  --gpu-peers $O/gpu-peers.txt --json $O/record.json > $O/record.txt 2>&1; echo "record rc $? t $(el)"; save
for r in 1 2; do for v in new old; do [ $(el) -gt 530 ] && break
  if [ $v = old ]; then export ECMUL_FATBIN=$PWD/$B/old.fatbin; else unset ECMUL_FATBIN; fi
  timeout 60 $B/ecmul bench --backend gpu --curve p224,p256 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 --peers=false \
    --json $O/$v$r.json > $O/$v$r.txt 2>&1; echo "$v$r rc $? t $(el)"; save
done; done; unset ECMUL_FATBIN
for f in record new1 old1 new2 old2; do echo "== $f"; [ -f $O/$f.json ] && summ $O/$f.json | tr '\n' ';'; echo; done
save; echo "t $(el)"
