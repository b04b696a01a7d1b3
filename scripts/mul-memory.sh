#!/usr/bin/env bash
# Measures the memory of a long "ecmul mul" stream and writes one JSON record:
#   scripts/mul-memory.sh CURVE BACKEND N OUT.json [MUL FLAGS...]
# e.g. scripts/mul-memory.sh p224 gpu 10000000 bench/h200/mul-memory-p224-gpu.json
#
# Runs "ecmul gen --curve CURVE --n N --seed SEED | ecmul mul --curve CURVE
# --backend BACKEND --stats MUL FLAGS > FILE", samples the peak RSS (VmHWM) and
# the RSS (VmRSS) of the mul process from /proc every half second, and records
# the --stats line, the number of output lines and error lines, and the SHA-256
# of the output: two backends given the same CURVE, N and SEED must print the
# same hash. The output file is deleted at the end (1.2 GB for 10^7 P-224
# items). Exit status 1 when mul fails, an item fails, a line is missing or
# the peak RSS exceeds CEILING_MIB. With "--format raw" among the MUL FLAGS,
# gen writes raw records too, and records stand for lines (counted from the
# output's size, the failed ones from the --stats line).
#
# Environment: ECMUL (.dev/ecmul), SEED (7), CEILING_MIB (the
# ceiling docs/cli.md states: 300 for cpu, 600 for gpu), TMPDIR.
set -euo pipefail
if (($# < 4)); then
  sed -n '2,3p' "$0" >&2
  exit 2
fi
curve=$1 backend=$2 n=$3 out=$4
shift 4
ECMUL=${ECMUL:-.dev/ecmul}
SEED=${SEED:-7}
case $backend in
  gpu) CEILING_MIB=${CEILING_MIB:-600} ;;
  *) CEILING_MIB=${CEILING_MIB:-300} ;;
esac
[[ -x $ECMUL ]] || { echo "mul-memory: $ECMUL is missing (make build or make dev-binaries)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/mul-memory.XXXXXX")
trap 'rm -rf "$work"' EXIT
results=$work/results pidfile=$work/pid

# The mul process records its own PID before it starts, so that the sampler
# reads its /proc entry and not the pipeline's.
gen_flags=()
raw=false
if [[ " $* " == *" --format raw "* || " $* " == *" --format=raw "* ]]; then
  raw=true gen_flags=(--format raw)
fi
"$ECMUL" gen --curve "$curve" --n "$n" --seed "$SEED" "${gen_flags[@]}" |
  sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$pidfile" \
    "$ECMUL" mul --curve "$curve" --backend "$backend" --stats "$@" >"$results" 2>"$work/stderr" &
pipeline=$!
while [[ ! -s $pidfile ]]; do sleep 0.05; done
pid=$(cat "$pidfile")

# kib FIELD: a /proc/PID/status field in KiB, empty once the process is gone.
kib() { sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$pid/status" 2>/dev/null || true; }
start=$(date +%s.%N)
samples=""
while kill -0 "$pid" 2>/dev/null; do
  hwm=$(kib VmHWM) rss=$(kib VmRSS)
  if [[ -n $hwm && -n $rss ]]; then
    t=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    bytes=$(stat -c %s "$results" 2>/dev/null || echo 0)
    samples+="${samples:+,}
    {\"seconds\": $t, \"output_bytes\": $bytes, \"vmhwm_mib\": $(awk -v k="$hwm" 'BEGIN { printf "%.1f", k / 1024 }'), \"vmrss_mib\": $(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')}"
  fi
  sleep 0.5
done
set +e
wait "$pipeline"
rc=$?
set -e

stats=$(grep -E '^ecmul mul: stats:' "$work/stderr" | tail -1 || true)
field() { sed -n "s|.* $1=\([^ ]*\).*|\1|p" <<<"$stats"; }
if [[ $raw == true ]]; then
  L=32
  [[ ${curve,,} == p224 || ${curve,,} == p-224 ]] && L=28
  lines=$(($(stat -c %s "$results") / (1 + 2 * L)))
  errors=$(field failed)
else
  lines=$(wc -l <"$results")
  errors=$(grep -c '^error\|"error"' "$results" || true)
fi
sha=$(sha256sum "$results" | cut -d' ' -f1)
peak=$(field peak_rss_mib) seconds=$(field seconds) ops=$(field op/s)
[[ $peak == n/a ]] && peak=""
device=cpu
if [[ $backend != cpu && $backend != rns-cpu ]]; then
  device=$("$ECMUL" devices 2>/dev/null | sed -n 's/^0: \([^(]*\) (.*/\1/p' | sed 's/ *$//' | head -1)
fi
host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
commit=$("$ECMUL" version | sed -n 's/^ecmul commit //p')
under=false
if [[ -n $peak ]] && awk -v p="$peak" -v c="$CEILING_MIB" 'BEGIN { exit !(p < c) }'; then
  under=true
fi
json_str() { sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' <<<"$1"; }

mkdir -p "$(dirname "$out")"
cat >"$out" <<EOF
{
  "what": "peak memory of one ecmul mul stream, input from ecmul gen through a pipe",
  "date": "$(date -u +%FT%TZ)",
  "commit": "$commit",
  "device": "$(json_str "$device")",
  "host_cpu": "$(json_str "$host_cpu")",
  "host_cores": $(nproc),
  "command": "$(json_str "ecmul gen --curve $curve --n $n --seed $SEED${gen_flags[*]:+ ${gen_flags[*]}} | ecmul mul --curve $curve --backend $backend --stats${*:+ $*} > FILE")",
  "curve": "$curve",
  "backend": "$backend",
  "items_in": $n,
  "exit_status": $rc,
  "stats_line": "$(json_str "$stats")",
  "seconds": ${seconds:-null},
  "ops_per_second": ${ops:-null},
  "peak_rss_mib": ${peak:-null},
  "ceiling_mib": $CEILING_MIB,
  "under_ceiling": $under,
  "output_lines": $lines,
  "error_lines": $errors,
  "output_sha256": "$sha",
  "samples": [$samples
  ]
}
EOF
echo "mul-memory: $curve $backend n=$n: exit $rc, $lines lines, $errors errors, peak RSS ${peak:-?} MiB (ceiling $CEILING_MIB), sha256 ${sha:0:16}…, $out" >&2
if ((rc != 0)) || [[ $under != true ]] || ((lines != n)) || ((errors != 0)); then
  [[ -s $work/stderr ]] && tail -5 "$work/stderr" >&2
  exit 1
fi
