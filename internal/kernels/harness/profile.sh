#!/usr/bin/env bash
# profile.sh runs Nsight Compute on one entry point on a GPU machine: the
# harness launches it on BATCH items at THREADS per block, ncu profiles the
# first timed launch (the two verification launches come first and are
# skipped) with the full section set and per-instruction source counters.
# Writes OUTDIR/ENTRY.ncu-rep, the details page (stall reasons, issue slots,
# occupancy, pipes) as text, and the SASS with per-instruction stall samples
# as CSV.
#
#   internal/kernels/harness/profile.sh FATBIN VECDIR OUTDIR ENTRY THREADS [BATCH]
#     ENTRY e.g. ecm_ladder_p256_coz_shenoy_block_c30; its kernelvec file is
#     VECDIR/CURVE_SCHEDULE_CHANNELS.bin
set -u -o pipefail
fb=${1:?fatbin}
vec=${2:?vector folder}
out=${3:?output folder}
entry=${4:?entry point}
threads=${5:?threads per block}
batch=${6:-131072}
mkdir -p "$out"
key=$(sed -E 's/^ecm_ladder_([a-z0-9]+)_([a-z]+)_[a-z]+_[a-z]+_(c[0-9]+)$/\1_\2_\3/' <<<"$entry")
rep="$out/$entry"
ncu --set full --import-source yes --launch-skip 2 --launch-count 1 -k "regex:^$entry\$" \
  -f -o "$rep" internal/kernels/harness/harness "$fb" "$key" "$vec/$key.bin" \
  --threads "$threads" --batches "$batch" --only "$entry" >"$out/$entry-ncu.log" 2>&1 || { tail -5 "$out/$entry-ncu.log"; [ -f "$rep.ncu-rep" ] || exit 1; }
ncu --import "$rep.ncu-rep" --page details >"$rep-details.txt" 2>&1
ncu --import "$rep.ncu-rep" --page source --print-source sass --csv >"$rep-sass.csv" 2>&1 || true
grep -E "Issue Slots Busy|Issued Warp Per Scheduler|No Eligible|Eligible Warps|Active Warps Per|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|Warp Cycles Per Issued|Stall|Duration|Executed Ipc" \
  "$rep-details.txt" | sed 's/  */ /g'
# stall reasons: warp cycles per issued instruction spent in each state
ncu --import "$rep.ncu-rep" --page raw >"$rep-raw.txt" 2>&1
grep -E "smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active.ratio " "$rep-raw.txt" |
  awk '{print $NF, $1}' | sort -rn | head -14
