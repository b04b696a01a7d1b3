#!/usr/bin/env bash
# call W1 (two H200): where the host's time goes in signing and verification at 2^22 items.
# HEAD's binary; P-224 signing on one GPU and two, and P-224 verification on two, each with
# --trace (per chunk) and --exectrace (the Go runtime's execution trace of the whole run).
set -u -o pipefail
O=/tmp/w1; mkdir -p $O; D=.dev/w1
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/e.xz'), open('$D/e','wb'))" && chmod +x $D/e
$D/e version | head -1 | tee $O/version.txt
head -1 /proc/stat > $O/stat0.txt; nvidia-smi -L >> $O/device.txt
for g in 1 2; do
  timeout -k 5 60 $D/e bench --backend gpu --gpus $g --curve p224 --op sign --batch 4194304 --reps 5 --peers=false \
    --json $O/sign-g$g.json --trace $O/sign-g$g.jsonl --exectrace $O/sign-g$g.exectrace > $O/sign-g$g.txt 2>&1; echo "sign g$g rc $?"
  tail -3 $O/sign-g$g.txt
done
timeout -k 5 90 $D/e bench --backend gpu --gpus 2 --curve p224 --op ecdsa --batch 4194304 --reps 5 --peers=false \
  --json $O/ecdsa-g2.json --trace $O/ecdsa-g2.jsonl --exectrace $O/ecdsa-g2.exectrace > $O/ecdsa-g2.txt 2>&1; echo "ecdsa g2 rc $?"
tail -3 $O/ecdsa-g2.txt
head -1 /proc/stat > $O/stat1.txt; cat $O/stat0.txt $O/stat1.txt
gzip -f $O/*.jsonl $O/*.exectrace; ls -la $O
tar cJf $OUT/w1.txz -C $O .
