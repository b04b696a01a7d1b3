// Package basext implements RNS Montgomery multiplication (Type II, version 2
// of Antão, Bajard and Sousa) with its two base extensions: the first, B → B̃,
// left uncorrected (an offset of at most n·p in the result), the second,
// B̃ → B, exact by Shenoy's redundant channel or by Kawamura's truncated sum.
// The constant tables are computed here from first principles and laid out
// exactly as the CUDA kernel reads them (see Tables.Words).
package basext

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/rnsec/ecmul/internal/rns"
)

// Variant selects how the exact extension B̃ → B finds α.
type Variant int

const (
	// Shenoy carries every value in a redundant channel m_e = 2^k and gets α from it.
	Shenoy Variant = iota
	// Kawamura estimates α from the q high bits of each ξ̃ plus a corrective Φ.
	Kawamura
)

// Variants lists every base-extension variant.
var Variants = []Variant{Shenoy, Kawamura}

// VariantsFor lists the variants the RNS p supports: Kawamura's needs
// 16-bit channels (rns.Params.Kawamura).
func VariantsFor(p *rns.Params) []Variant {
	if p.Kawamura() {
		return Variants
	}
	return []Variant{Shenoy}
}

// Supports reports whether the RNS p supports variant v.
func Supports(p *rns.Params, v Variant) bool { return v == Shenoy || v == Kawamura && p.Kawamura() }

func (v Variant) String() string {
	switch v {
	case Shenoy:
		return "shenoy"
	case Kawamura:
		return "kawamura"
	}
	return fmt.Sprintf("Variant(%d)", int(v))
}

// ParseVariant accepts "shenoy" or "kawamura" (any case).
func ParseVariant(s string) (Variant, error) {
	for _, v := range Variants {
		if strings.EqualFold(s, v.String()) {
			return v, nil
		}
	}
	return 0, fmt.Errorf("basext: unknown base extension %q (want shenoy or kawamura)", s)
}

// Tables holds every constant of the multiplication for one rns.Params.
// Indices j run over the channels of the basis named; Ext1 and Ext2 are
// row-major with the target channel as row.
type Tables struct {
	Params *rns.Params

	NegR   []uint32 // B:  |−(p·M_j)^{-1}·σ_j^{-2}|_{m_j}, so q_j·|M_j^{-1}| = x̂_j·ŷ_j·NegR_j; 1 on twisted systems
	S      []uint32 // B̃: |p·M̃_j^{-2}|_{m̃_j}
	T      []uint32 // B̃: |M^{-1}·M̃_j|_{m̃_j}
	NegMtB []uint32 // B:  |−M̃·σ_j|_{m_j}, the α correction of the second extension
	Ext1   []uint32 // n×n: Ext1[j·n+k] = |M_k|_{m̃_j}, B → B̃
	Ext2   []uint32 // n×n: Ext2[j·n+k] = |M̃_k·σ_j|_{m_j}, B̃ → B, into stored form

	Ext1E  []uint32 // n: |M_k|_{m_e}
	Ext2E  []uint32 // n: |M̃_k|_{m_e}
	PE     uint32   // |p|_{m_e}
	MInvE  uint32   // |M^{-1}|_{m_e}
	MtInvE uint32   // |M̃^{-1}|_{m_e}; 0 on wide systems, whose α is not Shenoy's
}

func mod(x *big.Int, m uint32) uint32 {
	return uint32(new(big.Int).Mod(x, big.NewInt(int64(m))).Uint64())
}

func inv(x *big.Int, m uint32) uint32 {
	return uint32(new(big.Int).ModInverse(x, big.NewInt(int64(m))).Uint64())
}

// NewTables computes the constants of p with math/big.
func NewTables(p *rns.Params) *Tables {
	n := p.N
	t := &Tables{Params: p}
	me := p.Me()
	partsB := make([]*big.Int, n)
	partsBT := make([]*big.Int, n)
	for k := range n {
		partsB[k] = new(big.Int).Quo(p.B.M, big.NewInt(int64(p.B.Moduli[k].M)))
		partsBT[k] = new(big.Int).Quo(p.BT.M, big.NewInt(int64(p.BT.Moduli[k].M)))
	}
	scale, _ := p.ResidueScales()
	for j := range n {
		m, mt := p.B.Moduli[j].M, p.BT.Moduli[j].M
		sigma := big.NewInt(int64(scale[j]))
		sigmaInv := big.NewInt(int64(inv(sigma, m)))
		t.NegR = append(t.NegR, mod(new(big.Int).Mul(big.NewInt(int64(p.NegR(j))), new(big.Int).Mul(sigmaInv, sigmaInv)), m))
		mtjInv := big.NewInt(int64(inv(partsBT[j], mt)))
		t.S = append(t.S, mod(new(big.Int).Mul(p.P, new(big.Int).Mul(mtjInv, mtjInv)), mt))
		t.T = append(t.T, mod(new(big.Int).Mul(big.NewInt(int64(inv(p.B.M, mt))), partsBT[j]), mt))
		t.NegMtB = append(t.NegMtB, mod(new(big.Int).Mul(new(big.Int).Neg(p.BT.M), sigma), m))
		for k := range n {
			t.Ext1 = append(t.Ext1, mod(partsB[k], mt))
		}
		for k := range n {
			t.Ext2 = append(t.Ext2, mod(new(big.Int).Mul(partsBT[k], sigma), m))
		}
	}
	for k := range n {
		t.Ext1E = append(t.Ext1E, mod(partsB[k], me))
		t.Ext2E = append(t.Ext2E, mod(partsBT[k], me))
	}
	t.PE = mod(p.P, me)
	t.MInvE = inv(p.B.M, me)
	if !p.Wide() { // a wide M̃ is even (B̃ ends with 2^30): α comes from the ξ̃ there
		t.MtInvE = inv(p.BT.M, me)
	}
	return t
}

// Multiplier computes RNS Montgomery products with the constants of one
// Tables. It holds scratch space: use one Multiplier per goroutine.
type Multiplier struct {
	t  *Tables
	v  Variant
	q  []uint32 // q_j·|M_j^{-1}|, the B digits of Q
	xi []uint32 // ξ̃ of the result, the B̃ digits of Û
}

// NewMultiplier returns a multiplier for variant v, which the RNS must
// support (Supports); asking for another is a programming error and panics.
func (t *Tables) NewMultiplier(v Variant) *Multiplier {
	if !Supports(t.Params, v) {
		panic(fmt.Sprintf("basext: %d-bit channels have no %v extension", t.Params.Bits, v))
	}
	return &Multiplier{t: t, v: v, q: make([]uint32, t.Params.N), xi: make([]uint32, t.Params.N)}
}

// Variant returns the base extension the multiplier uses.
func (mu *Multiplier) Variant() Variant { return mu.v }

// Mul sets z to Û ≡ x·y·M^{-1} (mod p) and returns z. For x, y below 9u
// (rns.Params.AddBound), Û is below u = (n+2)·p, as rns.Params.Verify proves.
// z may alias x or y. Every residue of z is canonical; the channel-by-channel
// results are exactly those of the kernel.
func (mu *Multiplier) Mul(z, x, y *rns.Element) *rns.Element {
	t, p := mu.t, mu.t.Params
	n := p.N
	meMask := p.Me() - 1

	// Step 1, in B: q_j·|M_j^{-1}| = −x_j·y_j·(p·M_j)^{-1} mod m_j, with
	// x̂_j·ŷ_j = x_j·y_j·σ_j² from the stored residues (NegR_j = 1 when twisted).
	q, xi := mu.q[:n], mu.xi[:n]
	xb, yb, negR := x.B[:n], y.B[:n], t.NegR[:n]
	for j, m := range p.B.Moduli[:n] {
		q[j] = m.Mul(m.Mul(xb[j], yb[j]), negR[j])
	}
	te := x.E * y.E & meMask

	// Step 2, B → B̃ without correction: Q̂ = Σ q_k·M_k = Q + α₁·M, then
	// ξ̃_j = (q̂_j·s_j + ξ̃x_j·ξ̃y_j)·t_j.
	xt, yt, ts, tt := x.BT[:n], y.BT[:n], t.S[:n], t.T[:n]
	for j, m := range p.BT.Moduli[:n] {
		row := t.Ext1[j*n : (j+1)*n : (j+1)*n]
		row = row[:len(q)]
		var acc uint64
		for k, qk := range q {
			acc += uint64(qk) * uint64(row[k])
		}
		qh := m.Reduce64(acc)
		xi[j] = m.Mul(m.Add(m.Mul(qh, ts[j]), m.Mul(xt[j], yt[j])), tt[j])
	}
	var qe uint32
	for k, qk := range mu.q {
		qe += qk * t.Ext1E[k]
	}
	ze := ((qe&meMask)*t.PE + te) * t.MInvE & meMask

	// Step 3, α of Û = Σ ξ̃_k·M̃_k − α·M̃: on wide systems from the ξ̃'s top
	// bits, as every wide mapping finds it (rns.Params.PairAlpha, exact).
	var alpha uint32
	switch {
	case p.Wide():
		alpha = p.PairAlpha(mu.xi, 0)
	case mu.v == Shenoy:
		var s uint32
		for k, xk := range mu.xi {
			s += xk * t.Ext2E[k]
		}
		alpha = (s - ze) * t.MtInvE & meMask
	case mu.v == Kawamura:
		mask := rns.KawamuraMask()
		g := p.Phi
		for _, xk := range mu.xi {
			g += xk & mask
		}
		alpha = g >> rns.ChannelBits
	}

	// Step 4, B̃ → B exactly, into stored form:
	// ẑ_j = (Σ ξ̃_k·|M̃_k|_{m_j} + α·|−M̃|_{m_j})·σ_j.
	zb, negMt := z.B[:n], t.NegMtB[:n]
	for j, m := range p.B.Moduli[:n] {
		row := t.Ext2[j*n : (j+1)*n : (j+1)*n]
		row = row[:len(xi)]
		acc := uint64(alpha) * uint64(negMt[j])
		for k, xk := range xi {
			acc += uint64(xk) * uint64(row[k])
		}
		zb[j] = m.Reduce64(acc)
	}
	copy(z.BT, mu.xi)
	z.E = ze
	return z
}
