#!/usr/bin/env bash
# Fuzzes every fuzz target of the module, one after the other, for a set time
# each, and prints a table of the executions per target.
#
#   scripts/fuzz.sh [DURATION] [PACKAGE...]
#
# DURATION is a go test -fuzztime value (default 10m: a duration, or Nx for a
# number of executions); PACKAGE defaults to ./... . Extra go test flags go in
# FUZZFLAGS, such as FUZZFLAGS='-parallel 1'. The seed corpora under each
# package's testdata/fuzz/ run in every plain `go test`; an input that fails
# here is written there by go test, so that it joins the seeds once fixed.
# Exit status 1 when any target fails.
set -uo pipefail
cd "$(dirname "$0")/.."

duration=${1:-10m}
shift || true
pkgs=("$@")
[[ ${#pkgs[@]} -eq 0 ]] && pkgs=(./...)

logdir=$(mktemp -d "${TMPDIR:-/tmp}/ecmul-fuzz.XXXXXX")
summary=()
failed=0
for pkg in $(go list "${pkgs[@]}"); do
	targets=$(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true)
	for target in $targets; do
		log="$logdir/$(basename "$pkg")-$target.log"
		echo "== $pkg $target ($duration)"
		start=$(date +%s)
		# shellcheck disable=SC2086
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$duration" ${FUZZFLAGS:-} "$pkg" >"$log" 2>&1
		rc=$?
		secs=$(($(date +%s) - start))
		execs=$(grep -o 'execs: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
		status=ok
		if [[ $rc -ne 0 ]]; then
			status=FAIL
			failed=1
			tail -n 30 "$log"
		fi
		summary+=("$(printf '%-40s %-28s %6ss %12s  %s' "$pkg" "$target" "$secs" "${execs:-?}" "$status")")
	done
done

echo
printf '%-40s %-28s %7s %12s  %s\n' package target time execs status
printf '%s\n' "${summary[@]}"
echo "logs: $logdir"
if [[ $failed -ne 0 ]]; then
	echo "failing inputs were written under the packages' testdata/fuzz/ folders:"
	git status --porcelain --untracked-files=all -- '*testdata/fuzz/*' | sed 's/^/  /'
fi
exit $failed
