#!/usr/bin/env bash
# rates.sh builds the instruction-rate microbenchmark
# (internal/kernels/harness/rates.cu), runs it on the GPU, and checks that
# the timed loop of every one of its kernels issues the instruction form it
# claims to measure: it dumps the SASS
# (cuobjdump), finds each kernel rate_kernel<Op, Chains> and its timed loop
# (the longest backward branch, as sass_loop.py does), counts the loop's
# opcodes and compares them with what rates.json says each op issues
# (steps × chains × per op, once or a whole number of times if ptxas
# unrolled the loop, plus at most a few instructions of loop overhead). A
# "pure" form must hold nothing else but loop overhead, NOPs and the
# instructions its pass() adds; a "composite" one (a sequence such as
# the wide channel's reduce, or a form ptxas splits) only the counts of its listed opcodes.
#
#   internal/kernels/harness/rates.sh OUTDIR [OP]      OP: only the forms whose op name contains it
#
# OUTDIR gets: rates (the binary), build.log (ptxas registers per kernel),
# device.txt, rates.txt (the table), rates.json, rates.sass and
# sass-check.txt (per kernel: OK or MISMATCH and the loop's opcode histogram).
# Exits non-zero if the build, the run or any check fails.
set -u -o pipefail
out=${1:?output folder}
only=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-nvcc}
ARCH=${ARCH:-sm_90}
mkdir -p "$out"

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  "$NVCC" --version | tail -2
} >"$out/device.txt" 2>&1

if ! "$NVCC" -std=c++17 -O3 -arch="$ARCH" -Xptxas -v -o "$out/rates" "$here/rates.cu" >"$out/build.log" 2>&1; then
  tail -40 "$out/build.log"
  exit 1
fi
cuobjdump -sass "$out/rates" >"$out/rates.sass" 2>&1 || { echo "rates.sh: cuobjdump failed"; exit 1; }

status=0
"$out/rates" "$out/rates.json" ${only:+"$only"} | tee "$out/rates.txt" || status=1
[ -s "$out/rates.json" ] || exit 1

echo
python3 - "$out/rates.json" "$out/rates.sass" "$here" <<'EOF' | tee "$out/sass-check.txt" || status=1
import json
import re
import sys
from collections import Counter

sys.path.insert(0, sys.argv[3])
from sass_loop import loop_body  # noqa: E402  the loop rule of sass_loop.py

# Loop overhead allowed beside the ops: the counter's add, compare, branch.
SLACK = 4
KERNEL = re.compile(r'_Z11rate_kernelI(\d+)')


def functions(path):
    name, lines = None, []
    for line in open(path):
        m = re.search(r'Function : (\S+)', line)
        if m:
            if name:
                yield name, lines
            name, lines = m.group(1), []
        elif name:
            lines.append(line)
    if name:
        yield name, lines


def kernel_key(name):
    """(Op, Chains) of a mangled rate_kernel<Op, Chains>, or None."""
    m = KERNEL.match(name)
    if not m:
        return None
    n = int(m.group(1))
    op = name[m.end():m.end() + n]
    c = re.match(r'Li(\d+)E', name[m.end() + n:])
    return (op, int(c.group(1))) if c else None


report = json.load(open(sys.argv[1]))
loops = {}
for name, lines in functions(sys.argv[2]):
    key = kernel_key(name)
    if key:
        loops[key] = loop_body(lines)

bad = 0
for form in report['forms']:
    for chains in (report['throughput_chains'], report['latency_chains']):
        label = f"{form['op']}<{chains}>"
        body = loops.get((form['op'], chains))
        if body is None:
            print(f'{label:20} MISMATCH no kernel or no loop found in the SASS')
            bad += 1
            continue
        hist = Counter(body)
        times, ok = set(), True
        steps = form['steps_per_pass']
        for opcode, per_op in form['sass'].items():
            want = per_op * steps * chains
            got = hist.get(opcode, 0)
            k = got // want
            times.add(k)
            ok = ok and k >= 1 and got - k * want <= SLACK
        ok = ok and len(times) == 1
        k = min(times)
        kind = 'composite'
        if form['pure'] and ok:
            # nothing else in the loop but its overhead, pass() and NOPs
            listed = sum(hist.get(o, 0) for o in form['sass'])
            others = len(body) - listed - hist.get('NOP', 0)
            ok = others <= k * (SLACK + form['extra_per_pass'])
            kind = 'pure'
        bad += not ok
        expect = ', '.join(f"{o} {n * steps * chains}" for o, n in form['sass'].items())
        unrolled = f', loop unrolled {k}x' if ok and k > 1 else ''
        print(f"{label:20} {'OK' if ok else 'MISMATCH'} ({kind}{unrolled}): expect {expect} per pass; "
              f"loop of {len(body)}: " + ', '.join(f'{o} {n}' for o, n in hist.most_common()))
print(f'{bad} kernel(s) do not issue what they claim' if bad else 'every kernel issues what it claims')
sys.exit(1 if bad else 0)
EOF

echo
grep -E "Compiling entry|registers" "$out/build.log" | sed -E 's/^ptxas info *: *//' | paste - - | \
  sed -E "s/Compiling entry function '([^']*)' for 'sm_[0-9a-z]+'/\1/" >"$out/registers.txt" || true
exit $status
