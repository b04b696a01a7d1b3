#!/usr/bin/env bash
# Runs the timing tests N times and summarises them: internal/ladder's
# (the scalar path, the finish, the comb) and the cpu and rns-cpu
# backends', each run appending its Studies' records to a file of its own
# ($ECMUL_TIMING_JSON), then internal/tools/timingsum turns them into one
# JSON summary: per Study the control's |t|, the limit, each class's
# largest |t| over the runs, each known leak's smallest, and how many runs
# had a false alarm or missed a control or a leak.
#
#   scripts/timing-runs.sh [N] [MODE] [OUT]
#
# N defaults to 10; MODE is heavy (go test, what CI runs) or light (go test
# -short); OUT (default bench/cpu/DATE-COMMIT-timing-MODE-N.json) receives
# the summary, and OUT's directory a folder of the runs' records and logs
# (OUT without .json). The test binaries are built once, before the runs.
# Exit status 1 when a run failed.
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
: >"$status"
fail=0
for i in $(seq 1 "$n"); do
	rec=$runs/run-$i.jsonl
	: >"$rec"
	for t in "ladder ScalarPathConstantTime|FinishConstantTime|CombConstantTime internal/ladder" \
		"ecmul CPUBackendConstantTime|RNSCPUBackendConstantTime ."; do
		read -r name pattern dir <<<"$t"
		log=$runs/run-$i-$name.log
		(cd "$dir" && ECMUL_TIMING_JSON=$rec "$bin/$name.test" -test.run "^Test($pattern)\$" -test.v -test.count 1 "${short[@]}" >"$log" 2>&1)
		for test in ${pattern//|/ }; do
			if grep -q -- "^--- PASS: Test$test " "$log"; then
				echo "$i $test ok" >>"$status"
			else
				echo "$i $test FAIL" >>"$status"
				fail=1
			fi
		done
	done
	echo "run $i of $n: $(grep -c ' ok$' "$status") passed, $(grep -c ' FAIL$' "$status") failed so far" >&2
done
go run ./internal/tools/timingsum -status "$status" -date "$date" -commit "$commit" -machine "$machine" -nproc "$(nproc)" \
	-mode "$mode" -command "go test -run 'ConstantTime' ${short[*]} (internal/ladder and the root package), built once" \
	"$runs"/run-*.jsonl >"$out" || exit 1
echo "summary in $out" >&2
exit $fail
