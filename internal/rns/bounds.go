package rns

import (
	"fmt"
	"math/big"
)

// Bound is one inequality the algorithm relies on, evaluated with math/big:
// Left Rel Right, where Rel is "<" or "<=".
type Bound struct {
	Name  string
	Why   string
	Left  *big.Int
	Rel   string
	Right *big.Int
}

// Holds reports whether the inequality is true.
func (b Bound) Holds() bool {
	c := b.Left.Cmp(b.Right)
	if b.Rel == "<" {
		return c < 0
	}
	return c <= 0
}

func lt(name, why string, l, r *big.Int) Bound  { return Bound{name, why, l, "<", r} }
func lte(name, why string, l, r *big.Int) Bound { return Bound{name, why, l, "<=", r} }

func bigU(v uint64) *big.Int { return new(big.Int).SetUint64(v) }

// Bounds returns every inequality of the algorithm, each computed from the
// actual moduli and p. Verify fails when any of them does not hold.
func (p *Params) Bounds() []Bound {
	n := big.NewInt(int64(p.N))
	typeII := typeIIBound(p.P, p.N)
	var bs []Bound

	// Structure of the system.
	bs = append(bs,
		lt("Type II range of B", "M > (9(n+2))^2·p: inputs below 9u give outputs below u", typeII, p.B.M),
		lt("Type II range of B̃", "M̃ > (9(n+2))^2·p", typeII, p.BT.M),
	)
	// Û < ((9u)^2 + n·p·M)/M; the output bound u needs (9u)^2 + n·p·M <= u·M.
	lhs := new(big.Int).Mul(p.AddBound, p.AddBound)
	lhs.Add(lhs, new(big.Int).Mul(new(big.Int).Mul(n, p.P), p.B.M))
	bs = append(bs,
		lte("multiplication output below u", "(9u)^2 + n·p·M <= u·M, u = (n+2)·p, the lazy first extension adds < n·p", lhs, new(big.Int).Mul(p.U, p.B.M)),
		lte("inputs fit B", "9u <= M", p.AddBound, p.B.M),
		lte("inputs fit B̃", "9u <= M̃", p.AddBound, p.BT.M),
	)
	if !p.Wide() { // wide systems find α from the ξ̃ ("pair α …"): their M̃ is even
		bs = append(bs, lte("Shenoy: m_e covers α", "n <= m_e, since 0 <= α < n", n, big.NewInt(int64(p.Me()))))
	}
	if p.Kawamura() {
		bs = append(bs, p.kawamuraBounds()...)
	}
	if p.Wide() {
		// Wide channels: a base extension sums n products and one more term
		// (P̃_j·T_j, or α·|−M̃|), each below m², in one 64-bit accumulator.
		sq := new(big.Int).SetUint64(uint64(p.maxModulus() - 1))
		sq.Mul(sq, sq)
		bs = append(bs, lt("64-bit extension sums", "(n+1)·(m_max − 1)^2 < 2^64: a sum of n + 1 products of residues fits 64 bits",
			sq.Mul(sq, big.NewInt(int64(p.N+1))), new(big.Int).Lsh(big.NewInt(1), 64)))
		bs = append(bs, p.wideFoldBound())
		if p.Twisted() {
			bs = append(bs, p.twistBound())
		}
		bs = append(bs, mmaBounds(p.N, p.maxModulus(), p.Me())...)
		bs = append(bs, pairBounds(p.N)...)
		bs = append(bs, p.pairFoldBound())
		bs = append(bs, p.pairAlphaBounds()...)
	} else {
		bs = append(bs, p.tensorBounds()...)
	}
	// FromRNS (and the host's CRT) estimates β in float64: exact when every
	// converted X < 9u has X/M < 1/4 and the float error E < n·(n+2)·2^-21
	// (n products of 2^-20 each, n sums below n·2^32 of n·2^-21 each) stays
	// below 1/4.
	bs = append(bs, lt("CRT β estimate", "4·9u < M", new(big.Int).Lsh(p.AddBound, 2), p.B.M))
	bs = append(bs, lt("CRT β float error", "n·(n+2) < 2^19: the float64 sum errs by less than 1/4",
		big.NewInt(int64(p.N*(p.N+2))), big.NewInt(1<<19)))
	// Fold reduction: after MaxFolds folds every input of the reduction (a
	// 32-bit value, or c'·hi + lo of a 64-bit one for wide channels) is below 2m.
	what := "32 bits"
	if p.Wide() {
		what = "64 bits"
	}
	for _, basis := range []struct {
		name string
		b    Basis
	}{{"B", p.B}, {"B̃", p.BT}} {
		worst, worstM := uint64(0), uint64(0)
		for _, mod := range basis.b.Moduli {
			v := mod.reductionInput()
			for range basis.b.MaxFolds() {
				v = mod.foldBound(v)
			}
			// compare v < 2m through the ratio v/(2m): keep the modulus closest to failing
			if worstM == 0 || v*worstM > worst*2*uint64(mod.M) {
				worst, worstM = v, 2*uint64(mod.M)
			}
		}
		bs = append(bs, lt(fmt.Sprintf("%d folds reduce %s in %s", basis.b.MaxFolds(), what, basis.name),
			"the largest value after the folds, for the modulus closest to failing, is below 2m",
			bigU(worst), bigU(worstM)))
	}
	return bs
}

// wideFoldBound: a wide channel's fold c·(z >> Bits) + (z mod 2^Bits) equals
// z − (z >> Bits)·m, so the kernel (and Modulus.Reduce64) computes it in
// 32-bit words as lo32(z) − (z >> Bits)·m, which is exact when both z >> Bits
// and the fold are below 2^32. The first fold, from the largest input of the
// reduction, is the largest of either.
func (p *Params) wideFoldBound() Bound {
	var worst uint64
	for _, mod := range append(append([]Modulus{}, p.B.Moduli...), p.BT.Moduli...) {
		v := mod.reductionInput()
		worst = max(worst, v>>mod.Bits, mod.foldBound(v))
	}
	return lt("wide fold in 32-bit words", "max(z >> 30, c·(z >> 30) + z mod 2^30) < 2^32 for the largest input z of the reduction: the fold is lo32(z) − (z >> 30)·m",
		bigU(worst), bigU(1<<32))
}

// wideTopAt reports whether position i of B followed by B̃ is B̃'s last on
// a wide system, the one place 2^30 may stand (twistedBases).
func (p *Params) wideTopAt(i int) bool { return p.Wide() && i == 2*p.N-1 }

// Verify re-checks the whole system with math/big: the moduli are of the
// form 2^Bits − c, pairwise coprime and coprime with p, the bases are as large
// as the algorithm needs, and every inequality of Bounds holds. The error
// names the first property that fails.
func (p *Params) Verify() error {
	all := append(append([]Modulus{}, p.B.Moduli...), p.BT.Moduli...)
	if len(p.B.Moduli) != p.N || len(p.BT.Moduli) != p.N {
		return fmt.Errorf("rns: bases hold %d and %d moduli, want n = %d", len(p.B.Moduli), len(p.BT.Moduli), p.N)
	}
	for i, a := range all {
		form := a.C%2 == 1 // 2^Bits − c, c odd; B̃'s last on a wide system is 2^30 itself
		if p.wideTopAt(i) {
			form = a.PowerOfTwo()
		}
		if a.Bits != p.Bits || uint64(a.M)+uint64(a.C) != 1<<p.Bits || !form {
			return fmt.Errorf("rns: modulus %d is not 2^%d − c with c odd (B̃ of 30-bit channels ending with 2^30)", a.M, p.Bits)
		}
		if new(big.Int).Mod(p.P, big.NewInt(int64(a.M))).Sign() == 0 {
			return fmt.Errorf("rns: modulus %d divides p", a.M)
		}
		for _, b := range all[:i] {
			if gcd(a.M, b.M) != 1 {
				return fmt.Errorf("rns: moduli %d and %d are not coprime", a.M, b.M)
			}
		}
	}
	for _, bnd := range p.Bounds() {
		if !bnd.Holds() {
			return fmt.Errorf("rns: bound %q fails: %s (%d-bit left side %s %d-bit right side)",
				bnd.Name, bnd.Why, bnd.Left.BitLen(), bnd.Rel, bnd.Right.BitLen())
		}
	}
	return nil
}

// kawamuraBounds: Δ <= β = Φ/2^16 < 1 and u <= (1 − β)·M̃.
func (p *Params) kawamuraBounds() []Bound {
	_, delta := p.KawamuraBeta()
	two16 := big.NewInt(1 << ChannelBits)
	deltaScaled := ceilRat(new(big.Rat).Mul(delta, new(big.Rat).SetInt(two16)))
	return []Bound{
		lte("Kawamura: Φ covers Δ", "⌈2^16·Δ⌉ <= Φ, Δ the exhaustive worst error of the truncated sum", deltaScaled, big.NewInt(int64(p.Phi))),
		lt("Kawamura: β < 1", "Φ < 2^16", big.NewInt(int64(p.Phi)), two16),
		lte("Kawamura: X < (1−β)·M̃", "2^16·u <= (2^16 − Φ)·M̃ for every extended value X < u",
			new(big.Int).Mul(p.U, two16), new(big.Int).Mul(big.NewInt(int64(1<<ChannelBits-p.Phi)), p.BT.M)),
	}
}

// tensorBounds: on the tensor cores (tile mapping, 16-bit channels) each sum
// of byte products is exact in s32, and the recombination
// D00 + 2^8·(D01 + D10) + c·D11 fits 32 bits.
func (p *Params) tensorBounds() []Bound {
	byteSum := new(big.Int).Mul(big.NewInt(int64(p.N)), big.NewInt(255*255))
	maxC := int64(0)
	for _, mod := range append(append([]Modulus{}, p.B.Moduli...), p.BT.Moduli...) {
		maxC = max(maxC, int64(mod.C))
	}
	return []Bound{
		lt("tensor-core sums exact", "n·255² < 2^31: a sum of n products of bytes fits an s32 accumulator", byteSum, new(big.Int).Lsh(big.NewInt(1), 31)),
		lt("tensor-core recombination", "n·255²·(1 + 2·2^8 + c_max) < 2^32: the four byte sums recombine mod m in 32 bits",
			new(big.Int).Mul(byteSum, big.NewInt(1+2*256+maxC)), new(big.Int).Lsh(big.NewInt(1), 32)),
	}
}

// mmaBounds: on the tensor cores (mma mapping, wide channels) an extension's
// output Σ_k v_k·e_k is eight sums of byte products,
// D_r[g] = Σ_k Σ_{h∈{0,1}} byte_{h+2r}(v_k)·byte_g(e'_{k,h}) with
// e'_{k,h} ≡ 2^(8h)·e_k, each of 2n terms of at most 255² in an s32 accumulator;
// they recombine into the 32-bit words lo = D_0[0] + 2^8·D_0[1],
// mid = (D_0[2] + D_1[0]) + 2^8·(D_0[3] + D_1[1]) and hi = D_1[2] + 2^8·D_1[3],
// and s = hi·2^32 + lo + 2^16·mid plus the extension's one more term
// (P̃_j·T_j below (m_max − 1)², or α·|−M̃|_{m_j} with α < m_e) must fit 64
// bits (basext.FragmentSum is the model). Every byte is taken up to 255, so
// the bounds hold for any 32-bit residues and constants, those of m_e included.
func mmaBounds(n int, mMax, me uint32) []Bound {
	byteSum := new(big.Int).Mul(big.NewInt(int64(2*n)), big.NewInt(255*255))
	lo := new(big.Int).Mul(byteSum, big.NewInt(1+1<<8))
	mid := new(big.Int).Lsh(lo, 1)
	hi := new(big.Int).Set(lo)
	s := new(big.Int).Lsh(hi, 32)
	s.Add(s, lo)
	s.Add(s, new(big.Int).Lsh(mid, 16))
	s.Add(s, extraTerm(mMax, me))
	two32 := new(big.Int).Lsh(big.NewInt(1), 32)
	return []Bound{
		lt("mma byte sums exact", "2n·255² < 2^31: each D_r[g], a sum of 2n products of bytes, fits an s32 accumulator", byteSum, new(big.Int).Lsh(big.NewInt(1), 31)),
		lt("mma lo fits 32 bits", "2n·255²·(1 + 2^8) < 2^32: lo = D_0[0] + 2^8·D_0[1]", lo, two32),
		lt("mma mid fits 32 bits", "2·2n·255²·(1 + 2^8) < 2^32: mid = (D_0[2] + D_1[0]) + 2^8·(D_0[3] + D_1[1])", mid, two32),
		lt("mma hi fits 32 bits", "2n·255²·(1 + 2^8) < 2^32: hi = D_1[2] + 2^8·D_1[3]", hi, two32),
		lt("mma 64-bit sum", "hi·2^32 + lo + 2^16·mid + the larger of (2^32 − 1)·(m_max − 1) + ⌊(m_max − 1)²/2^32⌋·(m_max − 1) (P̃_j·T_j, P̃_j unreduced) and (m_max − 1)·max(m_max − 1, m_e − 1) (α·|−M̃|) < 2^64: the recombined sum and the extension's one more term fit 64 bits",
			s, new(big.Int).Lsh(big.NewInt(1), 64)),
	}
}

// extraTerm returns the largest one more term of a wide extension's sum:
// α·|−M̃|_{m_j} (α < m_e) after the second extension, and after the first
// P̃_j·T_j with P̃_j = x̃·ỹ < (m−1)² left unreduced, as
// hi·(2^32·T_j mod m̃_j) + lo·T_j: hi <= (m−1)²/2^32, lo < 2^32.
func extraTerm(mMax, me uint32) *big.Int {
	m1 := uint64(mMax - 1)
	split := bigU(m1 * m1 >> 32 * m1)
	split.Add(split, new(big.Int).Mul(bigU(1<<32-1), bigU(m1)))
	if extra := bigU(m1 * uint64(max(mMax, me)-1)); extra.Cmp(split) > 0 {
		return extra
	}
	return split
}

// pairBounds: the pair mapping's extensions (basext.PairSum and
// basext.PairSecondSum are the models) take A's rows as items and each
// residue's four bytes in one row, so an output Σ_k v_k·e_k is four sums of
// byte products, D_g = Σ_k Σ_{h<4} byte_h(v_k)·byte_g(e'_{k,h}) with
// e'_{k,h} ≡ 2^(8h)·e_k, in an s32 accumulator. The first extension's one
// more term P̃_j·T_j joins them as the eight bytes of P̃_j against
// 2^(8h)·T_j (P̃_j, a product of lazy residues below 2^32, is below 2^64),
// the second's α·|−M̃·σ_j| as one byte: each D_g has at most 4n + 8 terms of
// at most 255². They recombine into lo = D_0 + 2^8·D_1 and hi = D_2 + 2^8·D_3
// in 32 bits, whose sum lo + 2^16·hi the kernel forms as two words from
// 32-bit operations, the high one hi + ⌊lo/2^16⌋ shifted right. Every byte is
// taken up to 255.
func pairBounds(n int) []Bound {
	byteSum := pairByteSum(n)
	word := new(big.Int).Mul(byteSum, big.NewInt(1+1<<8))
	high := new(big.Int).Add(word, new(big.Int).Rsh(word, 16))
	two32 := new(big.Int).Lsh(big.NewInt(1), 32)
	return []Bound{
		lt("pair byte sums exact", "(4n + 8)·255² < 2^31: each D_g, a sum of at most 4n + 8 products of bytes, fits an s32 accumulator", byteSum, new(big.Int).Lsh(big.NewInt(1), 31)),
		lt("pair lo and hi fit 32 bits", "(4n + 8)·255²·(1 + 2^8) < 2^32: lo = D_0 + 2^8·D_1, hi = D_2 + 2^8·D_3", word, two32),
		lt("pair high word", "hi + ⌊lo/2^16⌋ < 2^32: the sum's high word, (hi + ⌊lo/2^16⌋)/2^16, from a 32-bit sum that does not wrap", high, two32),
	}
}

// pairByteSum is the largest D_g of the pair mapping: 4n + 8 products of
// bytes (the first extension's 4n and P̃_j's eight).
func pairByteSum(n int) *big.Int {
	return new(big.Int).Mul(big.NewInt(int64(4*n+8)), big.NewInt(255*255))
}

// pairFoldBound: the pair mapping reduces both extensions' sums s = lo +
// 2^16·hi, below 2^47, from the low word and s >> 30 as lo32(s) − (s >> 30)·m
// = (s mod 2^30) + c·(s >> 30), which one unsigned min makes canonical when
// it is below 2m = 2^31 − 2c: for every m of B (the second extension's
// outputs) and of B̃ (the first's; its 2^30 takes the low word alone),
// 2^30 − 1 + c·q < 2^31 − 2c with q = s_max >> 30, that is c·(q + 2) < 2^30 + 1.
func (p *Params) pairFoldBound() Bound {
	word := new(big.Int).Mul(pairByteSum(p.N), big.NewInt(1+1<<8))
	s := new(big.Int).Add(word, new(big.Int).Lsh(word, 16))
	q := new(big.Int).Rsh(s, WideChannelBits)
	var cMax uint32
	for _, mod := range append(p.B.Moduli[:len(p.B.Moduli):len(p.B.Moduli)], p.BT.Moduli...) {
		cMax = max(cMax, mod.C)
	}
	return lt("pair extensions in 32 bits", "c_max·((s_max >> 30) + 2) < 2^30 + 1, c_max of B and B̃, s_max = (4n + 8)·255²·(1 + 2^8)·(1 + 2^16): (s mod 2^30) + c·(s >> 30) < 2m, so one fold and one min reduce the sum",
		new(big.Int).Mul(bigU(uint64(cMax)), q.Add(q, big.NewInt(2))), bigU(1<<WideChannelBits+1))
}

// maxModulus returns the largest modulus of B and B̃.
func (p *Params) maxModulus() uint32 {
	var m uint32
	for _, mod := range append(append([]Modulus{}, p.B.Moduli...), p.BT.Moduli...) {
		m = max(m, mod.M)
	}
	return m
}
