#!/usr/bin/env bash
# call R2: the fatbin rebuilt (make -B kernels-fatbin) from sources whose mappings' whole-warp rule
# comes from entries.go too (ECM_MAPPINGS); compared byte for byte with the committed fatbin, and
# where it differs, its sm_90 SASS and registers function by function.
set -u -o pipefail
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cp internal/kernels/ecmul.fatbin /tmp/old.fatbin
make -B kernels-fatbin > /tmp/fatbin.log 2>&1 || { tail -5 /tmp/fatbin.log; exit 1; }; echo "fatbin built in $(( $(date +%s) - T0 )) s"
if cmp -s /tmp/old.fatbin internal/kernels/ecmul.fatbin; then
  echo "the fatbin is the committed one byte for byte"
else
  cp internal/kernels/ecmul.fatbin ${OUT:-/tmp}/ecmul.fatbin
  norm() { sed -E 's@/\*[0-9a-f]{4,}\*/@@g; s@ +@ @g'; }
  cuobjdump -sass -arch sm_90 /tmp/old.fatbin | norm > /tmp/old.sass
  cuobjdump -sass -arch sm_90 internal/kernels/ecmul.fatbin | norm > /tmp/new.sass
  cuobjdump -res-usage -arch sm_90 /tmp/old.fatbin 2>&1 | grep -E "Function|REG" | paste - - > /tmp/old.res
  cuobjdump -res-usage -arch sm_90 internal/kernels/ecmul.fatbin 2>&1 | grep -E "Function|REG" | paste - - > /tmp/new.res
  echo "sm_90: sass lines differing $(diff /tmp/old.sass /tmp/new.sass | grep -c '^[<>]'), resource lines differing $(diff /tmp/old.res /tmp/new.res | grep -c '^[<>]')"
  diff /tmp/old.sass /tmp/new.sass | head -20
fi
echo "t $(( $(date +%s) - T0 ))"
