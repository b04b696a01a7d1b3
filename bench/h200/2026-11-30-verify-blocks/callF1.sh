#!/usr/bin/env bash
# call F1 (one H200): the verify kernel with at least four blocks a multiprocessor (registers capped
# at 128). make -B kernels-fatbin (new); beside it an sm_90 build with three blocks (v3) and gECC's
# build, pmul and fixed. Then, with the new fatbin (ECMUL_FATBIN, binary of fe89fb6): ecmul verify
# --op ecdsa on every curve; mul,base,ecdsa,sign at 2^22 on every curve with gECC (no OpenSSL);
# P-224 and P-256 mul,ecdsa alternated: old (the binary's own fatbin), new, v3.
set -u -o pipefail
T0=$(date +%s); O=/tmp/f1; mkdir -p $O; save() { tar czf $OUT/f1.tgz --exclude=gecc -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/f1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul; $B/ecmul version > $O/version.txt 2>&1; head -3 $O/version.txt
( make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? t $(el)" > $O/fatbin.rc; cp internal/kernels/ecmul.fatbin $OUT/ecmul.fatbin; sha256sum internal/kernels/ecmul.fatbin > $O/sha256.txt ) &
rm -rf /tmp/src-v3; cp -r internal/kernels /tmp/src-v3
sed -i 's/^constexpr int kVerifyBlocksPerSM = 4;/constexpr int kVerifyBlocksPerSM = 3;/' /tmp/src-v3/verify.cuh; grep -c "kVerifyBlocksPerSM = 3" /tmp/src-v3/verify.cuh
( nvcc -std=c++17 -O3 -Xptxas -v --fatbin -gencode arch=compute_90,code=sm_90 -o /tmp/v3.fatbin /tmp/src-v3/ecmul.cu > $O/v3.log 2>&1; echo "v3 rc $? t $(el)" > $O/v3.rc ) &
export GECC_BUILD=/tmp/gecc-build
( timeout 250 bash .dev/peers/gecc.sh /tmp/gecc-b build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(el)"
  timeout 150 bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $? t $(el)"; grep "op/s" $O/gecc.txt > $O/gpu-peers.txt ) &
wait; cat $O/fatbin.rc $O/v3.rc $O/gpu-peers.txt
for l in fatbin v3; do grep -E "Compiling entry function|Used [0-9]+ registers|spill" $O/$l.log | grep -A2 -E "ecm_verify_(p224|p256|secp256k1)_c30' for 'sm_90'" | sed -E 's/ptxas info *: //g' | cut -c1-150 | sed "s/^/$l /"; gzip -f $O/$l.log; done > $O/ptxas.txt; cat $O/ptxas.txt
cp internal/kernels/ecmul.fatbin /tmp/new.fatbin; save
for c in p224 p256 secp256k1; do
  ECMUL_FATBIN=/tmp/new.fatbin timeout 60 $B/ecmul verify --backend gpu --curve $c --op ecdsa --n 40000 > $O/verify-$c.txt 2>&1; echo "verify $c rc $? $(tail -1 $O/verify-$c.txt | cut -c1-60) t $(el)"
done
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], '%.2f'%((r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6), 'k%.2f'%(r['kernel_ops_per_s']/1e6) if r.get('kernel_ops_per_s') else '', 'x%.3f'%(r.get('ratio_to_mul') or r.get('ratio_to_base') or 0))" 2>&1 | tr '\n' ';'; }
ab() { # variant round
  local fb=""; [ $1 != old ] && fb=/tmp/$1.fatbin
  ECMUL_FATBIN=$fb timeout 40 $B/ecmul bench --backend gpu --curve p224,p256 --op mul,ecdsa --batch 4194304 --reps 3 --peers=false --json $O/ab-$1-$2.json > $O/ab-$1-$2.txt 2>&1
  echo "$1 r$2 rc $? t $(el): $(summ $O/ab-$1-$2.json)"; save
}
for v in old new v3; do ab $v 1; done
ECMUL_FATBIN=/tmp/new.fatbin timeout 120 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 \
  --peers=false --gpu-peers $O/gpu-peers.txt --json $O/record.json > $O/record.txt 2>&1; echo "record rc $? t $(el): $(summ $O/record.json)"; save
for v in old new v3; do [ $(el) -gt 550 ] && break; ab $v 2; done
echo "t $(el)"
