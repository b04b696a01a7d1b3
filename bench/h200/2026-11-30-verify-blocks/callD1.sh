#!/usr/bin/env bash
# call D1 (one H200): what bounds the kernels around the comb and the ladder (P-224): ncu's
# launch, occupancy, scheduler and pipe figures for the sign unpack, sign pack, finish, verify
# kernels and combvt; SASS opcode counts from the committed fatbin.
set -u -o pipefail
T0=$(date +%s); O=/tmp/d1; mkdir -p $O; save() { tar czf $OUT/d1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/d1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul; $B/ecmul version > $O/version.txt 2>&1
S="--section LaunchStats --section Occupancy --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats"
prof() { # name op regex skip
  timeout 150 ncu --clock-control none $S --csv --page details --kernel-name regex:"$3" --launch-skip $4 --launch-count 1 \
    $B/ecmul bench --backend gpu --curve p224 --op $2 --batch 1048576 --reps 1 --peers=false > $O/ncu-$1.csv 2> $O/ncu-$1.err
  echo "== $1 rc $? t $(el)"
}
prof signunpack sign '^ecm_signunpack_p224' 3
prof signpack sign '^ecm_signpack_p224' 3
prof signfinish sign '^ecm_finish_p224' 3
prof verify ecdsa '^ecm_verify_p224' 3
prof combfinish ecdsa '^ecm_finish_p224' 3
prof combvt ecdsa '^ecm_ladder_p224_combvt' 3
prof kpfinish mul '^ecm_finish_p224' 3
save
F=internal/kernels/ecmul.fatbin
cuobjdump -lelf $F > $O/elf.txt 2>&1
for k in ecm_signunpack_p224_c30 ecm_signpack_p224_c30 ecm_finish_p224_c30 ecm_verify_p224_c30 ecm_verifyunpack_p224_c30; do
  cuobjdump -sass -fun $k $F > $O/sass-$k.txt 2>&1
  echo "== $k $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $O/sass-$k.txt) instructions"
  grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_]+' $O/sass-$k.txt | awk '{print $NF}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -25 > $O/ops-$k.txt
  head -12 $O/ops-$k.txt | tr '\n' ' '; echo
done
save
python3 - $O <<'PY'
import csv,sys,glob,os
want=["Duration","Registers Per Thread","Achieved Occupancy","Theoretical Occupancy","Issue Slots Busy","Executed Ipc Active","Compute (SM) Throughput","Memory Throughput","No Eligible","Warp Cycles Per Issued Instruction","Executed Instructions","Block Limit Registers","Grid Size","Local Memory Spilling Requests","Active Warps Per Scheduler","Eligible Warps Per Scheduler"]
for f in sorted(glob.glob(sys.argv[1]+"/ncu-*.csv")):
  rows=[r for r in csv.reader(open(f)) if len(r)>10]
  if not rows: print(os.path.basename(f),"empty"); continue
  h=rows[0]; mi=h.index("Metric Name"); vi=h.index("Metric Value"); ui=h.index("Metric Unit")
  print("==",os.path.basename(f), rows[1][h.index("Kernel Name")][:40], rows[1][h.index("Grid Size")])
  for r in rows[1:]:
    if any(r[mi].startswith(w) for w in want): print("   %-45s %s %s"%(r[mi],r[vi],r[ui]))
PY
echo "t $(el)"
