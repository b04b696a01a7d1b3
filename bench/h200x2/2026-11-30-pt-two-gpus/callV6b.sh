#!/usr/bin/env bash
# call V6b: the command run on V6's machine right after it (the binary decompressed again: the carried
# folder is replaced on each call): secp256k1 and P-224, signing and verification, two rounds.
B=.dev/v6; O=/tmp/v6b; mkdir -p $O; export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin; xz -dc $B/ecmul.xz > $B/ecmul && chmod +x $B/ecmul; head -1 /proc/stat > $O/device.txt; for r in 1 2; do timeout -k 5 60 $B/ecmul bench --backend gpu --gpus 1,2 --curve secp256k1,p224 --op sign,ecdsa --batch 4194304 --reps 5 --peers=false --json $O/s-$r.json --trace $O/s-$r.jsonl > $O/s-$r.txt 2>&1; echo "round $r rc $?"; gzip -f $O/s-$r.jsonl; done; head -1 /proc/stat | tee -a $O/device.txt; python3 $B/medians.py $O s | tee $O/medians.txt; tar cJf $OUT/v6b.txz -C $O .
