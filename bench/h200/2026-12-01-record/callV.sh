#!/usr/bin/env bash
# call V (one H200, the session's last device seconds): ae834fa end to end with its committed fatbin:
# the Wycheproof tests of the root and ecdsa packages on the gpu backend, then ecmul verify --backend
# gpu --n 300000 for k·P on every curve and --op ecdsa, as far as the time allows.
set -u -o pipefail
T0=$(date +%s); O=/tmp/v; mkdir -p $O; save() { tar cJf $OUT/v.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/v
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
for f in ecmul root.test ecdsa.test; do xz -T4 -dc $B/$f.xz > $B/$f && chmod +x $B/$f; done
$B/ecmul version > $O/version.txt 2>&1; tail -1 $O/version.txt; sha256sum internal/kernels/ecmul.fatbin | tee -a $O/version.txt
for t in root ecdsa; do
  timeout 60 $B/$t.test -test.run 'Wycheproof' -test.v > $O/wycheproof-$t.txt 2>&1; echo "wycheproof $t rc $? $(grep -cE '^\s*--- PASS' $O/wycheproof-$t.txt) passed $(grep -cE '^\s*--- (FAIL|SKIP)' $O/wycheproof-$t.txt) failed or skipped t $(el)"
done | tee $O/wycheproof.txt
save
v() { # curve op n
  timeout 90 $B/ecmul verify --backend gpu --curve $1 --op $2 --n $3 --chunk 65536 > $O/verify-$1-$2.txt 2>&1
  echo "verify $1 $2 $3 rc $? $(tail -2 $O/verify-$1-$2.txt | tr '\n' ' ' | cut -c1-150) t $(el)"
}
for a in "p256 mul 300000" "secp256k1 mul 300000" "p224 mul 300000" "p256 ecdsa 100000" "secp256k1 ecdsa 100000" "p224 ecdsa 100000"; do
  v $a; save
done | tee $O/verify.txt
save; echo "t $(el)"
