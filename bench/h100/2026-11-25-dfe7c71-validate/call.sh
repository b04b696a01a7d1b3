#!/bin/bash
# GPU validation of prebuilt (CGO_ENABLED=0) ecmul binaries; runs on the device
# machine from the repository root. Results: $OUT/results.tgz (re-packed after
# every stage) and the table at the end.
set -u -o pipefail
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
V=$ROOT/.dev/validate
B=/tmp/vbin
IN=/tmp/vin
R=/tmp/vres
OUT=${OUT:-/tmp/vout}
BUDGET=${BUDGET:-530}  # seconds for the whole script
START=$(date +%s)
rm -rf "$B" "$IN" "$R"
mkdir -p "$B" "$IN" "$R" "$OUT"
SUM=$R/summary.tsv
printf 'stage\trc\tsecs\tresult\n' >"$SUM"

# STAGES: comma-separated subset of info,smoke,gpu,verify,root,ecdsa,cmd (default: all)
want() { [ -z "${STAGES:-}" ] || [[ ",$STAGES," == *",$1,"* ]]; }
left() { echo $((BUDGET - ($(date +%s) - START))); }
# cap N: N seconds, or what is left of the budget less a reserve
cap() { local l=$(($(left) - 10)); if [ "$1" -lt "$l" ]; then echo "$1"; else echo "$l"; fi; }
pack() { tar czf "$OUT/results.tgz.part" -C "$R" . && mv -f "$OUT/results.tgz.part" "$OUT/results.tgz"; }
row() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$SUM"; echo "== $1 rc=$2 ${3}s: $4"; pack; }

# unpack
for f in "$V"/*.gz; do
	n=$(basename "$f" .gz)
	gunzip -c "$f" >"$B/$n" && chmod +x "$B/$n"
done
tar xzf "$V/inputs.tgz" -C "$IN"
(cd "$B" && sha256sum *) >"$R/00-binaries.sha256"
E=$B/ecmul

# stage: device info
{
	echo "date: $(date -u +%FT%TZ)"
	nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv
	nvidia-smi
	echo "nproc: $(nproc)"
	uname -a
	"$E" version
	echo "--- ecmul devices"
	"$E" devices
	echo "devices rc=$?"
} >"$R/00-info.log" 2>&1
row info "$?" 0 "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"

# stage: the README example on gpu vs cpu
if want smoke; then
t0=$(date +%s)
{
	"$E" mul --backend gpu --curve p224 <testdata/example-p224.txt >"$R/01-mul-example.gpu"
	echo "gpu rc=$?" | tee "$R/.rc"
	"$E" mul --backend cpu --curve p224 <testdata/example-p224.txt >"$R/01-mul-example.cpu"
	echo "cpu rc=$?"
	cmp "$R/01-mul-example.gpu" "$R/01-mul-example.cpu" && echo "cmp: identical"
} >"$R/01-mul-example.log" 2>&1
rc=$(grep -o '[0-9]*$' "$R/.rc")
row mul-example "$rc" $(($(date +%s) - t0)) "$(grep -q identical "$R/01-mul-example.log" && [ "$rc" = 0 ] && echo PASS || echo FAIL): $(grep -c . "$R/01-mul-example.gpu") lines, $(grep -q identical "$R/01-mul-example.log" && echo gpu==cpu || echo DIFFER)"

# stage: ecmul base, gpu vs cpu, 1000 generated scalars + edge scalars per curve
for c in p224 p256 secp256k1; do
	t0=$(date +%s)
	L=$R/02-base-$c.log
	{
		"$E" gen --curve "$c" --n 1000 --seed 11 | awk '{print $1}' >"$IN/base-$c.scalars"
		cat "$IN/edge-$c.scalars" >>"$IN/base-$c.scalars"
		echo "scalars: $(wc -l <"$IN/base-$c.scalars")"
		timeout 60 "$E" base --backend gpu --curve "$c" --stats <"$IN/base-$c.scalars" >"$IN/base-$c.gpu"
		echo "gpu rc=$?" | tee "$R/.rc"
		timeout 60 "$E" base --backend cpu --curve "$c" --stats <"$IN/base-$c.scalars" >"$IN/base-$c.cpu"
		echo "cpu rc=$?"
		echo "gpu lines=$(wc -l <"$IN/base-$c.gpu") infinity=$(grep -c '^infinity' "$IN/base-$c.gpu") errors=$(grep -c '^error' "$IN/base-$c.gpu")"
		cmp "$IN/base-$c.gpu" "$IN/base-$c.cpu" && echo "cmp: identical"
		echo "--- edge scalars (last 15) on gpu:"
		paste -d' ' <(tail -15 "$IN/base-$c.scalars") <(tail -15 "$IN/base-$c.gpu")
	} >"$L" 2>&1
	rc=$(grep -o '[0-9]*$' "$R/.rc")
	row "base-$c" "$rc" $(($(date +%s) - t0)) "$(grep -q 'cmp: identical' "$L" && [ "$rc" = 0 ] && echo PASS || echo FAIL): $(grep -o 'gpu lines=.*' "$L"), $(grep -q 'cmp: identical' "$L" && echo gpu==cpu || echo DIFFER)"
done

# stage: ecmul ecdsa-verify, gpu vs cpu vs expected (Wycheproof p1363 sets + random signatures)
for c in p224 p256 secp256k1; do
	t0=$(date +%s)
	L=$R/03-ecdsa-verify-$c.log
	: >"$R/.rc"
	{
		for set in wp rnd; do
			f=$IN/$set-$c
			timeout 60 "$E" ecdsa-verify --backend gpu --curve "$c" <"$f.in" >"$f.gpu"
			echo "$set gpu rc=$? (1 expected: some items invalid)" | tee -a "$R/.rc"
			timeout 60 "$E" ecdsa-verify --backend cpu --curve "$c" <"$f.in" >"$f.cpu"
			echo "$set cpu rc=$?"
			cmp "$f.gpu" "$f.cpu" && echo "$set cmp: gpu identical to cpu"
			paste -d' ' "$f.expected" "$f.gpu" | awk -v s="$set" '{n++; if ($1=="acceptable") a++; else if ($1!=$2) bad++; c[$2]++}
				END {printf "%s summary: items=%d valid=%d invalid=%d error=%d acceptable=%d wrong_vs_expected=%d\n", s, n, c["valid"], c["invalid"], c["error:"], a, bad}'
		done
	} >"$L" 2>&1
	rc=$(grep -o 'rc=[0-9]*' "$R/.rc" | cut -d= -f2 | paste -sd,)
	ok=FAIL
	[ "$(grep -c 'gpu identical to cpu' "$L")" = 2 ] && [ "$(grep -c 'wrong_vs_expected=0$' "$L")" = 2 ] && ok=PASS
	row "ecdsa-verify-$c" "$rc" $(($(date +%s) - t0)) "$ok: $(grep -o 'items=[0-9]*.*wrong_vs_expected=[0-9]*' "$L" | sed 's/ valid=.*wrong/ wrong/' | paste -sd';'), $(grep -c 'gpu identical to cpu' "$L")/2 gpu==cpu"
done

fi # smoke

# test binaries: name dir cap binary args...
runtest() {
	local name=$1 dir=$2 c=$3 bin=$4
	shift 4
	local t
	t=$(cap "$c")
	if [ "$t" -lt 15 ]; then
		row "$name" - 0 "NOT RUN (out of time)"
		return
	fi
	local t0 L=$R/$name.log
	t0=$(date +%s)
	(cd "$dir" && timeout -k 5 "$t" "$B/$bin" -test.v -test.timeout "$((t - 5))s" "$@") >"$L" 2>&1
	local rc=$?
	local top="top: pass=$(grep -c '^--- PASS' "$L") fail=$(grep -c '^--- FAIL' "$L") skip=$(grep -c '^--- SKIP' "$L")"
	local all="all: pass=$(grep -cE '^ *--- PASS' "$L") fail=$(grep -cE '^ *--- FAIL' "$L") skip=$(grep -cE '^ *--- SKIP' "$L")"
	row "$name" "$rc" $(($(date +%s) - t0)) "$top; $all; $(tail -1 "$L" | cut -c1-60)"
}

# stage: internal/gpu (all tests; the kernel-vs-CPU-twin test on 20000 items per curve)
want gpu && ECMUL_GPU_ITEMS=20000 runtest 10-test-internal-gpu internal/gpu 150 internal_gpu.test

# stage: ecmul verify on the gpu backend, one curve at a time
for c in p224 p256 secp256k1; do
	want verify || continue
	t=$(cap 170)
	if [ "$t" -lt 20 ]; then
		row "verify-$c" - 0 "NOT RUN (out of time)"
		continue
	fi
	t0=$(date +%s)
	timeout -k 5 "$t" "$E" verify --backend gpu --curve "$c" --n 300000 >"$R/20-verify-$c.log" 2>&1
	rc=$?
	row "verify-$c" "$rc" $(($(date +%s) - t0)) "$(tail -1 "$R/20-verify-$c.log" | cut -c1-120): $(grep -E '^items=' "$R/20-verify-$c.log" | cut -d' ' -f1-6)"
done

# stage: root package, GPU tests and friends
want root && runtest 11-test-root${ROOT_TAG:-} . ${ROOT_CAP:-150} root.test -test.run 'GPU|Wycheproof|Close|Base|Example' ${ROOT_SKIP:+-test.skip "$ROOT_SKIP"}
# stage: ecdsa (its tests use the cpu and rns-cpu backends only)
want ecdsa && runtest 12-test-ecdsa ecdsa 60 ecdsa.test
# stage: cmd/ecmul (its tests use cpu/rns-cpu or a fake driver; GPU-less tests skip with a driver present)
want cmd && runtest 13-test-cmd-ecmul cmd/ecmul 60 cmd_ecmul.test -test.run 'GPU|Base|ECDSA|Verify|Devices|AutoBackend'

# failures, in full
grep -hE -B2 -A25 '^ *--- FAIL|^panic:|^FAIL' "$R"/1*-test-*.log >"$R/failures.txt" 2>/dev/null
grep -h -A3 '^mismatch' "$R"/20-verify-*.log | head -50 >>"$R/failures.txt"
pack
echo
echo "total $(($(date +%s) - START))s"
cat "$SUM"
