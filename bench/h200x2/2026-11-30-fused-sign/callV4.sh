#!/usr/bin/env bash
# call V4 (two H200): HEAD's signing on the GPU: verify --op sign on P-224 and P-256 over both GPUs,
# then one bench of P-224 and P-256 signing, one GPU and two.
set -u -o pipefail
O=/tmp/v4; mkdir -p $O; D=.dev/v4
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/e.xz'), open('$D/e','wb'))" && chmod +x $D/e
$D/e version | head -1 | tee $O/version.txt
for c in p224 p256; do
  timeout -k 5 40 $D/e verify --backend gpu --curve $c --op sign --n 60000 --chunk 60000 > $O/verify-$c-sign.txt 2>&1
  echo "verify $c sign rc $? $(tail -1 $O/verify-$c-sign.txt) $(grep -o 'items=[0-9]* mismatches=[0-9]* item_errors=[0-9]*' $O/verify-$c-sign.txt)"
done
timeout -k 5 60 $D/e bench --backend gpu --gpus 1,2 --curve p224,p256 --op sign --batch 4194304 --reps 5 --peers=false \
  --json $O/e.json --trace $O/e.jsonl > $O/e.txt 2>&1; echo "bench rc $?"; tail -12 $O/e.txt
gzip -f $O/e.jsonl; tar cJf $OUT/v4.txz -C $O .
