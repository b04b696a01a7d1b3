#!/usr/bin/env python3
"""sass_loop.py counts the instructions of an entry point's ladder loop.

    cuobjdump -sass -arch sm_90 -fun ENTRY ecmul.fatbin | sass_loop.py ITEMS_PER_WARP BITS [--hist]

The ladder loop is the longest backward branch of the function (one pass
per scalar bit). It prints the loop's instruction count, its IMAD class
(every IMAD* opcode: products, sums, and the moves the compiler issues on
the IMAD pipe) and the IMAD.WIDE among them, then the two floors they imply
on an H200 (132 SMs, 4 schedulers each, 1.98 GHz): one instruction issued
per scheduler cycle, and the IMAD pipe's 2 cycles a warp per IMAD and 4 per
IMAD.WIDE (a 64-bit result). --hist adds the loop's opcodes by count.
"""
import re
import sys

SCHEDULERS, CLOCK = 132 * 4, 1.98e9

INSTR = re.compile(r'\s*/\*([0-9a-f]+)\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);')


def loop_body(lines):
    """The opcodes of the longest backward branch's loop in SASS lines, or None."""
    instrs, at, branches = [], {}, []
    for line in lines:
        m = INSTR.match(line)
        if not m:
            continue
        at[int(m.group(1), 16)] = len(instrs)
        op = m.group(3)
        instrs.append(op)
        t = re.match(r'\s*(0x[0-9a-f]+)\s*$', m.group(4))
        if op.startswith('BRA') and t:
            branches.append((len(instrs) - 1, int(t.group(1), 16)))
    loops = [(i - at[a] + 1, at[a], i) for i, a in branches if a in at and at[a] <= i]
    if not loops:
        return None
    _, lo, hi = max(loops)
    return instrs[lo:hi + 1]


def main():
    items_per_warp, bits = float(sys.argv[1]), int(sys.argv[2])
    body = loop_body(sys.stdin)
    if body is None:
        sys.exit('sass_loop: no backward branch')
    imad = [op for op in body if op.startswith('IMAD')]
    wide = [op for op in imad if op.startswith('IMAD.WIDE')]
    per_bit = lambda cycles: SCHEDULERS * CLOCK / (cycles * bits) * items_per_warp
    imad_cycles = 4 * len(wide) + 2 * (len(imad) - len(wide))
    print(f'instructions {len(body)} imad {len(imad)} imad_wide {len(wide)} '
          f'floor_imad {per_bit(imad_cycles) / 1e6:.2f}M floor_issue {per_bit(len(body)) / 1e6:.2f}M')
    if '--hist' in sys.argv[3:]:
        counts = {}
        for op in body:
            counts[op] = counts.get(op, 0) + 1
        print(' '.join(f'{op}:{c}' for op, c in sorted(counts.items(), key=lambda x: -x[1])))

if __name__ == '__main__':
    main()
