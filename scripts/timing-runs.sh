#!/usr/bin/env bash
# Runs the timing tests N times and summarises them: internal/ladder's
# (the scalar path, the finish, the comb) and the cpu and rns-cpu
# backends', each run appending its Studies' records to a file of its own
# ($ECMUL_TIMING_JSON), then internal/tools/timingsum turns them into one
# JSON summary: per Study the control's |t|, the limit, each class's
# largest |t| over the runs, each known leak's smallest, how many runs
# found something wrong in the first measurement, what the confirmation
# measured again, and how many runs failed (a false alarm, a control or a
# leak missed); per test its wall time.
#
#   scripts/timing-runs.sh [N] [MODE] [OUT]
#
# N defaults to 10; MODE is heavy (go test, what CI runs) or light (go test
# -short); OUT (default bench/cpu/DATE-COMMIT-timing-MODE-N.json) receives
# the summary, OUT with .tsv for .json a line per run and Study (pass, the
# control's |t|, the limit, the classes' largest |t|, the confirmation's),
# and OUT without .json a folder of the runs' records and logs, with
# wall.tsv: each run's wall time and the load averages before it. The test
# binaries are built once, before the runs. Exit status 1 when a run
# failed.
set -uo pipefail
cd "$(dirname "$0")/.."

n=${1:-10}
mode=${2:-heavy}
commit=$(git rev-parse --short HEAD)
[[ -n $(git status --porcelain --untracked-files=no) ]] && commit="$commit-dirty"
date=$(date -u +%Y-%m-%d)
out=${3:-bench/cpu/$date-$commit-timing-$mode-$n.json}
runs=${out%.json}
mkdir -p "$runs" || exit 1
runs=$(realpath "$runs")
short=()
[[ $mode == light ]] && short=(-test.short)

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go test -c -o "$bin/ladder.test" ./internal/ladder || exit 1
go test -c -o "$bin/ecmul.test" . || exit 1

machine="$(nproc) processors, lscpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1), /proc/cpuinfo: $(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -1)"
status=$runs/status.txt
wall=$runs/wall.tsv
: >"$status"
printf 'run\tseconds\tload1\tload5\tload15\n' >"$wall"
fail=0
for i in $(seq 1 "$n"); do
	rec=$runs/run-$i.jsonl
	: >"$rec"
	read -r l1 l5 l15 _ </proc/loadavg
	start=$(date +%s.%N)
	for t in "ladder ScalarPathConstantTime|FinishConstantTime|CombConstantTime internal/ladder" \
		"ecmul CPUBackendConstantTime|RNSCPUBackendConstantTime ."; do
		read -r name pattern dir <<<"$t"
		log=$runs/run-$i-$name.log
		(cd "$dir" && ECMUL_TIMING_JSON=$rec "$bin/$name.test" -test.run "^Test($pattern)\$" -test.v -test.count 1 "${short[@]}" >"$log" 2>&1)
		for test in ${pattern//|/ }; do
			secs=$(sed -n "s/^--- [A-Z]*: Test$test (\([0-9.]*\)s)\$/\1/p" "$log")
			if grep -q -- "^--- PASS: Test$test " "$log"; then
				echo "$i $test ok $secs" >>"$status"
			else
				echo "$i $test FAIL $secs" >>"$status"
				fail=1
			fi
		done
	done
	printf '%d\t%.1f\t%s\t%s\t%s\n' "$i" "$(echo "$(date +%s.%N) - $start" | bc)" "$l1" "$l5" "$l15" >>"$wall"
	echo "run $i of $n: $(grep -c ' ok ' "$status") passed, $(grep -c ' FAIL ' "$status") failed so far" >&2
done
go run ./internal/tools/timingsum -status "$status" -date "$date" -commit "$commit" -machine "$machine" -nproc "$(nproc)" \
	-mode "$mode" -tsv "${out%.json}.tsv" -command "go test -run 'ConstantTime' ${short[*]} (internal/ladder and the root package), built once" \
	"$runs"/run-*.jsonl >"$out" || exit 1
echo "summary in $out" >&2
exit $fail
