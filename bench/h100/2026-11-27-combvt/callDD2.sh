#!/usr/bin/env bash
# call DD2: on the machine of call DD, still warm, right after it: the same ECDSA run, five repetitions.
O=/tmp/wDD2; mkdir -p $O; timeout 100 .dev/c21/ecmul bench --backend gpu --curve secp256k1,p224,p256 --op mul,ecdsa --batch 4194304 --reps 5 --peers=false --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $?"; grep -E "^ +(P-|secp)" $O/bench.txt; tar czf $OUT/call.tgz -C $O .
