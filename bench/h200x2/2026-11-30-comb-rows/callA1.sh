#!/usr/bin/env bash
# call A1 (two H200 of one host): the verify kernel reads u1·G from the comb finish's result rows
# (no comb pack, no 2-D copy, no parse of u1·G in the verify unpack). make -B kernels-fatbin from the
# working tree beside gECC's build, pmul, fixed, verify and sign. Then, with the new fatbin
# (ECMUL_FATBIN; binary ecmul-new of the working tree): ecmul verify --op ecdsa on every curve over both
# GPUs; P-224 and P-256 mul,ecdsa on one GPU, old (ecmul-old, 0c2000a, its own fatbin) and new
# alternated; mul,base,ecdsa,sign at 2^22 on every curve on one GPU and two, with gECC (no OpenSSL).
set -u -o pipefail
T0=$(date +%s); O=/tmp/a1; mkdir -p $O; save() { tar czf $OUT/a1.tgz --exclude=gecc -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/a1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul-*; for v in old new; do $B/ecmul-$v version > $O/version-$v.txt 2>&1; head -3 $O/version-$v.txt; done
( make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? t $(el)" > $O/fatbin.rc; cp internal/kernels/ecmul.fatbin $OUT/ecmul.fatbin; sha256sum internal/kernels/ecmul.fatbin > $O/sha256.txt ) &
export GECC_BUILD=/tmp/gecc-build
( timeout 250 bash .dev/peers/gecc.sh /tmp/gecc-b build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(el)"
  timeout 200 bash .dev/peers/gecc.sh $O/gecc pmul fixed verify sign > $O/gecc.txt 2>&1; echo "gecc rc $? t $(el)"; grep "op/s" $O/gecc.txt > $O/gpu-peers.txt ) &
wait; cat $O/fatbin.rc $O/gpu-peers.txt
grep -E "Compiling entry function|Used [0-9]+ registers|spill" $O/fatbin.log | grep -A2 -E "ecm_verify(pack|unpack)?_(p224|p256|secp256k1)_c30' for 'sm_90'" | sed -E 's/ptxas info *: //g' | cut -c1-150 > $O/ptxas.txt; gzip -f $O/fatbin.log; cat $O/ptxas.txt
cp internal/kernels/ecmul.fatbin /tmp/new.fatbin; save
for c in p224 p256 secp256k1; do
  ECMUL_FATBIN=/tmp/new.fatbin timeout 60 $B/ecmul-new verify --backend gpu --curve $c --op ecdsa --n 100000 > $O/verify-$c.txt 2>&1; echo "verify $c rc $? $(tail -1 $O/verify-$c.txt | cut -c1-70) t $(el)"
done
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], 'g%s'%r.get('gpus',''), '%.2f'%((r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6), 'k%.2f'%(r['kernel_ops_per_s']/1e6) if r.get('kernel_ops_per_s') else '', 'x%.3f'%(r.get('ratio_to_mul') or r.get('ratio_to_base') or 0))" 2>&1 | tr '\n' ';'; }
ab() { # variant round
  local fb=""; [ $1 = new ] && fb=/tmp/new.fatbin
  ECMUL_FATBIN=$fb timeout 40 $B/ecmul-$1 bench --backend gpu --gpus 1 --curve p224,p256 --op mul,ecdsa --batch 4194304 --reps 3 --peers=false --json $O/ab-$1-$2.json > $O/ab-$1-$2.txt 2>&1
  echo "$1 r$2 rc $? t $(el): $(summ $O/ab-$1-$2.json)"; save
}
ab old 1; ab new 1
ECMUL_FATBIN=/tmp/new.fatbin timeout 150 $B/ecmul-new bench --backend gpu --gpus 1,2 --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 \
  --peers=false --gpu-peers $O/gpu-peers.txt --json $O/record.json > $O/record.txt 2>&1; echo "record rc $? t $(el): $(summ $O/record.json)"; save
[ $(el) -lt 520 ] && { ab old 2; ab new 2; }
echo "t $(el)"
