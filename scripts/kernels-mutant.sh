#!/usr/bin/env bash
# kernels-mutant.sh shows that scripts/kernels-check.sh catches wrong
# arithmetic: for each mutant below it copies the kernel sources and the
# emulator to a temporary folder, makes one small wrong edit there, builds
# the emulator from the copy and runs the check on it. A mutant must make
# the check fail with a mismatch (or, for the guards of require_wide_base,
# with a refused base run); one that passes (or whose edit no longer
# matches the source exactly once, or that does not build) fails this script.
#
#   scripts/kernels-mutant.sh [-n ITEMS] [NAME...]   (default: every mutant, 32 items: two warps of
#   the pair mapping, whose second half of each warp, items 8 to 15, 8 items leave out)
set -euo pipefail
cd "$(dirname "$0")/.."

# name | file under internal/kernels/ | text | the wrong text (\n: a line break)
mutants=(
  "fold-shift|rns.cuh|z + (z >> 16) * neg|z + (z >> 15) * neg"
  "wide-fold-modulus|rns.cuh|uint32_t(s) + uint32_t(s >> 30) * neg|uint32_t(s) + uint32_t(s >> 30) * c"
  "shenoy-alpha-operands|ecmul.cu|return (sum - ze) * mtInv & mask;|return (ze - sum) * mtInv & mask;"
  "me-z-product|ecmul.cu|((sum & mask) * pe + te)|((sum & mask) * pe)"
  "c16-q-negr|rns.cuh|reduce(reduce(xy) * negR)|reduce(xy)"
  "kawamura-alpha-shift|ecmul.cu|alpha = g >> 16;|alpha = g >> 15;"
  "wide-product-operand|ecmul.cu|mad_wide(x.b, y.b, 0)|mad_wide(x.b, x.b, 0)"
  "tile-alpha-row|ecmul.cu|k.me.alpha(tile_pow2(ex.get(i, N)), e.ze)|k.me.alpha(tile_pow2(ex.get(i, ex.lane)), e.ze)"
  "alpha-barrier|ecmul.cu|alpha[i] = a[i];\n      }\n      __syncthreads();|alpha[i] = a[i];\n      }"
  "wide-narrow-fold-modulus|rns.cuh|z + (z >> 30) * neg|z + (z >> 30) * c"
  "wide-fold-negated-modulus|rns.cuh|c << 2, opaque(0u - m)}|c << 2, opaque(1u - m)}"
  "wide-twisted-q|ecmul.cu|const uint32_t q = k.mB.reduce(xy);|const uint32_t q = k.mB.reduce(uint32_t(xy));"
  "frag-twisted-q|ecmul.cu|r.q[s] = k.mB[c].reduce(xy);|r.q[s] = k.mT[c].reduce(xy);"
  "mma-mid-weight|ecmul.cu|mad_wide(mid, 1u << 16,|mad_wide(mid, 1u << 8,"
  "mma-row-halves|ecmul.cu|a[1] = __byte_perm(v[0], v[1], 0x7632);|a[1] = __byte_perm(v[0], v[1], 0x7610);"
  "mma-alpha-partner|ecmul.cu|t += __shfl_sync(~0u, t, k.quad[1], kWarpLanes);|t += __shfl_sync(~0u, t, k.quad[0], kWarpLanes);"
  "mma-alpha-slots|ecmul.cu|for (int s = 0; s < S; ++s) sum += v[s];|for (int s = 0; s < 2; ++s) sum += v[s];"
  "wide-alpha-phi|ecmul.cu|(sum[3] >> 24) + phi) >> 6|(sum[3] >> 24)) >> 6"
  "wide-alpha-shift|ecmul.cu|return ((sum[0] >> 24) + (sum[1] >> 24)|return ((sum[0] >> 25) + (sum[1] >> 24)"
  "pair-channel8-row|ecmul.cu|a16[1] = N > 8 ? v4 & k.k16Lane[1] : 0u;|a16[1] = N > 8 ? v4 & k.k16Lane[0] : 0u;"
  "pair-alpha-phi|ecmul.cu|phi2 = phi * 0x10001u;|phi2 = 0;"
  "pair-alpha-item|ecmul.cu|alphaSel[1] = opaque(t == 3 ? 0x0006u|alphaSel[1] = opaque(t == 3 ? 0x0004u"
  "pair-alpha-partner|ecmul.cu|quad[1] = l ^ 2;|quad[1] = l ^ 1;"
  "pair-alpha-row|ecmul.cu|if (ext == 2 && t >= 2 && o < N)|if (ext == 2 && t >= 3 && o < N)"
  "pair-lazy-constant|ecmul.cu|return Residue{kc.x + term<uint32_t, C1>(s1.b, mB.m)|return Residue{term<uint32_t, C1>(s1.b, mB.m)"
  "pair-split-shift|ecmul.cu|(hi + (lo >> 16)) >> 14|(hi + (lo >> 16)) >> 15"
  "pair-slot4-row|ecmul.cu|select(k.odd, d[2], d[0])|d[0]"
  "pair-top-slot-t|ecmul.cu|uint32_t(st.pt[s]) * k.tj[F::const_slot(s)]) & (ECM_WIDE_TOP - 1)|uint32_t(st.pt[s])) & (ECM_WIDE_TOP - 1)"
  "wide-base-top-guard|ecmul.cu|if (k[L::ModBT + N - 1] != ECM_WIDE_TOP) __trap();|"
  "wide-base-twist-guard|ecmul.cu|if (k[L::NegR + j] != 1) __trap();|(void)j;"
  "pair-pt-high-constant|ecmul.cu|uint64_t(h < 4 ? tj[p] : tj32[p])|uint64_t(tj[p])"
  "pair-pt-diagonal|ecmul.cu|h < 8 && c >> 1 == t|h < 8 && c >> 1 >= t"
  "pair-pt-item|ecmul.cu|uint32_t(pt[p]), uint32_t(pt[p + 2]), uint32_t(pt[p] >> 32)|uint32_t(pt[p]), uint32_t(pt[p]), uint32_t(pt[p] >> 32)"
  "pair-pt-fold-modulus|ecmul.cu|z.s[s].t = k.mT[F::const_slot(s)].fold_split(a[s]);|z.s[s].t = k.mB[F::const_slot(s)].fold_split(a[s]);"
  "pair-top-slot-mask|ecmul.cu|& (ECM_WIDE_TOP - 1);|& (ECM_WIDE_TOP / 2 - 1);"
  "pair-comb-slot-digit|ecmul.cu|slot_word(dOf, s)|slot_word(dOf, 0)"
  "pair-comb-commit|ecmul.cu|Sched::commit(c.r, per_slot(c, keep), per_slot(c, start));|Sched::commit(c.r, keep[0], start[0]);"
  "comb-first-window|ecmul.cu|if (i > 0) run_steps(c, typename Sched::Loop{});|if (i > 1) run_steps(c, typename Sched::Loop{});"
  "finish-crt-beta|finish.cuh|mul_add_word<0>(s, negM.w, uint32_t(beta));|"
  "finish-crt-beta-high|finish.cuh|mul_add_word<1>(s, negM.w, uint32_t(beta >> 32));|"
  "field-top-carry|field.cuh|uint32_t((uint64_t(t[kFeWords]) - borrow) >> 32)|(0u - borrow)"
  "field-pow-digit|field.cuh|if (digit != 0) acc = mul(acc, table[digit]);|if (digit != 0) acc = mul(acc, table[digit ^ 1]);"
  "field-pow-squares|field.cuh|for (int b = 0; b < kPowWindowBits; ++b) acc = mul(acc, acc);|for (int b = 1; b < kPowWindowBits; ++b) acc = mul(acc, acc);"
  "finish-byte-order|finish.cuh|__byte_perm(c.w[k] & keep, 0, 0x0123)|__byte_perm(c.w[k] & keep, 0, 0x3210)"
  "finish-neg-base-x|finish.cuh|x = fe_select(neg |x = fe_select(0u "
  "finish-unit-y|finish.cuh|if (consts[ECM_FINISH_UNIT_Y] == 0)|if (consts[ECM_FINISH_UNIT_Y] != 0)"
  "finish-zero-den|finish.cuh|replace = fe_zero_mask(den)|replace = 0u"
  "finish-off-curve-bytes|finish.cuh|keep = ok & ~off & accepted;|keep = ok & accepted;"
  "finish-rejected-bytes|finish.cuh|keep = ok & ~off & accepted;|keep = ok & ~off;"
  "finish-shared-inverse|finish.cuh|const Fe invDen = f.mul(inv, pre[k]);|const Fe invDen = inv;"
  "prepare-off-curve-flag|prepare.cuh|(~on & ECM_FIXED_OFF_CURVE)|(0u & ECM_FIXED_OFF_CURVE)"
  "prepare-first-reduction|prepare.cuh|s = barrett_reduce(s, m, recip);|"
  "prepare-barrett-subtraction|prepare.cuh|return umin32(r, r - m);|return r;"
  "prepare-me-mask|prepare.cuh|v.w[0] & consts[ECM_PREPARE_ME_MASK]|v.w[0] & consts[ECM_PREPARE_ME_MASK] >> 1"
  "prepare-input-form|prepare.cuh|const Fe v = f.mul(x, |const Fe v = f.mul(X, "
  "prepare-y-form|prepare.cuh|Y = f.mul(y, r2)|Y = y"
  "unpack-scalar-reduction|wire.cuh|k = scalar_select(below, k, d);|k = scalar_select(~0u, k, d);"
  "unpack-high|wire.cuh|scalar_load(consts + ECM_PREPARE_HIGH)|scalar_load(consts + ECM_PREPARE_ORDER_LESS1)"
  "unpack-neg-base|wire.cuh|(negOne & ECM_FIXED_NEG_BASE)|(0u & ECM_FIXED_NEG_BASE)"
  "unpack-y-range|wire.cuh|below_p_mask(x, prime) & below_p_mask(y, prime)|below_p_mask(x, prime)"
  "unpack-rejected-outcome|wire.cuh|reject << ECM_FIXED_REJECTED_SHIFT|reject << (ECM_FIXED_REJECTED_SHIFT - 1)"
  "unpack-points-at|wire.cuh|size_t(count) * L + size_t(i) * (1 + 2 * L)|size_t(stride) * L + size_t(i) * (1 + 2 * L)"
  "pack-byte-order|wire.cuh|uint8_t(v >> (8 * b))|uint8_t(v >> (24 - 8 * b))"
  "pack-mask|wire.cuh|out[size_t(r) * stride + i] & keep;|out[size_t(r) * stride + i];"
  "pack-prefix|wire.cuh|rec[0] = uint8_t(4 & keep);|rec[0] = uint8_t(4);"
  "verify-b3|verify.cuh|b3 = f.add(f.add(b, b), b);|b3 = f.add(b, b);"
  "verify-a3-step29|verify.cuh|  y3 = fe_sub(f, y3, t0);                 // 29|"
  "verify-u1-form|verify.cuh|const Fe x1 = f.mul(fe_load(rows + size_t(ECM_VERIFY_X1) * stride, stride), r2);|const Fe x1 = fe_load(rows + size_t(ECM_VERIFY_X1) * stride, stride);"
  "verify-u1-infinity|verify.cuh|sum.x = fe_select(u1Inf, q.x, sum.x);|"
  "verify-y-unit|verify.cuh|if (consts[ECM_FINISH_UNIT_Y] == 0) q.y = f.mul(q.y, g.yg);|"
  "verify-neg-base|verify.cuh|q.y = fe_select(inf, one, fe_select(neg, f.neg(g.yg), q.y));|q.y = fe_select(inf, one, fe_select(neg, g.yg, q.y));"
  "verify-rn|verify.cuh|(rnOk & x_is(|(0u & x_is("
  "verify-check|verify.cuh|& on_curve_projective(f, q, a, b));|& ~0u);"
  "verify-x-plain|verify.cuh|fe_equal_mask(f.mul(p.x, Fe{{1}}), f.mul(v, p.z))|fe_equal_mask(p.x, f.mul(v, p.z))"
  "verifyunpack-r-at|verify.cuh|rest + size_t(count) * 2 * L + size_t(i) * L,|rest + size_t(stride) * 2 * L + size_t(i) * L,"
  "verifypack-byte|verify.cuh|[i] = uint8_t(out[i]);|[i] = uint8_t(out[i] >> 8);"
  "signunpack-sha-k|sign.cuh|0x428a2f98, 0x71374491|0x428a2f99, 0x71374491"
  "signunpack-separator|sign.cuh|msg_byte(m, 32, uint32_t(sep));|msg_byte(m, 32, 0u);"
  "signunpack-bit-length|sign.cuh|uint32_t(64 + len) * 8;|uint32_t(len) * 8;"
  "signunpack-h1-at|sign.cuh|wire + size_t(count) * L + size_t(i) * L);|wire + size_t(stride) * L + size_t(i) * L);"
  "signunpack-k-over-d|sign.cuh|for (int t = 0; t < L / 4; ++t) scalar[t] = __byte_perm(k[t], 0, 0x0123);|"
  "signunpack-row-order|sign.cuh|w < L / 4 ? v[L / 4 - 1 - w] : 0;|w < L / 4 ? v[w] : 0;"
  "signunpack-first-key|sign.cuh|constexpr uint32_t zero[8] = {};|constexpr uint32_t zero[8] = {1};"
  "signunpack-load-order|sign.cuh|v[t] = t < L / 4 ? __byte_perm(w[t], 0, 0x0123) : 0;|v[t] = t < L / 4 ? w[t] : 0;"
  "signpack-r-mask|sign.cuh|rec[j] = uint8_t((r.w[w] & keep) >> shift);|rec[j] = uint8_t(r.w[w] >> shift);"
  "signpack-byte-order|sign.cuh|shift = 8 * ((L - 1 - j) & 3);|shift = 8 * (j & 3);"
  "signpack-r-reduce|sign.cuh|const Fe r = nf.canonical(x);|const Fe r = fe_load(x, 1);"
  "signpack-inverse-exp|sign.cuh|consts + ECM_FINISH_ORDER_EXP|consts + ECM_FINISH_EXP"
  "signpack-rd-form|sign.cuh|nf.mul(r, nf.mul(d, r2))|nf.mul(r, d)"
  "signpack-refused-zero|sign.cuh|return fe_zero_mask(k) |return 0u "
  "signpack-refused-n|sign.cuh|~fe_less_mask(k, nf.p); }|0u; }"
  "signpack-refused-one|sign.cuh|return fe_select(refused_mask(nf, k), one, nf.mul(k, r2));|return nf.mul(k, r2);"
  "signpack-shared-inverse|sign.cuh|const Fe kInv = nf.mul(inv, pre[j]);|const Fe kInv = inv;"
)

items=32
while getopts "n:" opt; do
  case $opt in
    n) items=$OPTARG ;;
    *) sed -n '9,10p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
want=" $* "

CXX=${CXX:-g++}
cxxflags=(-std=c++20 -O2 -fno-strict-aliasing -Wno-unknown-pragmas -pthread)  # the Makefile's
[[ $(uname -m) == x86_64 ]] && cxxflags+=(-fcf-protection=none)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
killed=0 survived=0 broken=0
for m in "${mutants[@]}"; do
  IFS='|' read -r name file from to <<<"$m"
  [[ $# -gt 0 && $want != *" $name "* ]] && continue
  src=$tmp/$name/kernels
  mkdir -p "$src/harness"
  cp internal/kernels/*.cu internal/kernels/*.cuh "$src/"
  cp internal/kernels/harness/emulate.cpp internal/kernels/harness/vectors.h "$src/harness/"
  export FROM=${from//\\n/$'\n'} TO=${to//\\n/$'\n'}
  n=$(perl -0ne 'print scalar(() = /\Q$ENV{FROM}\E/g)' "$src/$file")
  if [[ $n != 1 ]]; then
    echo "mutant $name: '$from' is $n times in internal/kernels/$file, want once (update the mutant)"
    broken=$((broken + 1))
    continue
  fi
  line=$(perl -0ne '/\Q$ENV{FROM}\E/ and print 1 + (() = substr($_, 0, $-[0]) =~ /\n/g)' "$src/$file")
  perl -0pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/' "$src/$file"
  echo "mutant $name: internal/kernels/$file line $line: '$from' -> '$to'"
  if ! $CXX "${cxxflags[@]}" -o "$src/harness/emulate" "$src/harness/emulate.cpp" 2>"$tmp/$name.build"; then
    echo "  does not build:"; head -5 "$tmp/$name.build" | sed 's/^/    /'
    broken=$((broken + 1))
    continue
  fi
  if scripts/kernels-check.sh -q -n "$items" -e "$src/harness/emulate" -o "$tmp/$name/check" >"$tmp/$name.log" 2>&1; then
    echo "  SURVIVED: kernels-check passed"
    survived=$((survived + 1))
  elif grep -q "NOT REFUSED" "$tmp/$name/check/emulate.log"; then
    echo "  killed: $(grep -m1 "NOT REFUSED" "$tmp/$name/check/emulate.log")"
    killed=$((killed + 1))
  elif grep -q "MISMATCH" "$tmp/$name/check/emulate.log"; then
    echo "  killed: $(grep -m1 -E '^ecm_(ladder|unpack|prepare|finish|verify|pack|verifyunpack|verifypack|signunpack|signpack)_.*MISMATCH$' "$tmp/$name/check/emulate.log" | sed -E 's/ +threads +([0-9]+).*/ (\1 threads)/') mismatched"
    grep -m1 '^  MISMATCH' "$tmp/$name/check/emulate.log" | sed 's/^ */    /'
    killed=$((killed + 1))
  else
    echo "  kernels-check failed without a mismatch:"; tail -5 "$tmp/$name.log" | sed 's/^/    /'
    broken=$((broken + 1))
  fi
done
echo "kernels-mutant: $killed killed, $survived survived, $broken broken, in $(($(date +%s) - start)) s"
[[ $killed -gt 0 && $survived -eq 0 && $broken -eq 0 ]]
