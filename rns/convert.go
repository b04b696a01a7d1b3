package rns

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

// Element is one value in the RNS: its residues x mod m_j in B, its B̃
// residues stored as ξ̃_j = x·|M̃_j^{-1}|_{m̃_j} mod m̃_j (the form the
// multiplication reads, which saves one product per channel), and x mod m_e.
// Every residue is canonical: below its modulus.
type Element struct {
	B  []uint32
	BT []uint32
	E  uint32
}

// NewElement returns a zero element sized for p.
func (p *Params) NewElement() Element {
	return Element{B: make([]uint32, p.N), BT: make([]uint32, p.N)}
}

// Set copies x into z.
func (z *Element) Set(x *Element) {
	copy(z.B, x.B)
	copy(z.BT, x.BT)
	z.E = x.E
}

// Equal reports whether two elements have the same residues.
func (z *Element) Equal(x *Element) bool {
	if z.E != x.E || len(z.B) != len(x.B) || len(z.BT) != len(x.BT) {
		return false
	}
	for j := range z.B {
		if z.B[j] != x.B[j] || z.BT[j] != x.BT[j] {
			return false
		}
	}
	return true
}

// crt holds the constants of binary ↔ RNS conversion and of the Montgomery domain.
type crt struct {
	bInv   []uint32   // |M_j^{-1}|_{m_j}: residue → CRT coefficient ξ_j in B
	btInv  []uint32   // |M̃_j^{-1}|_{m̃_j}: residue → stored ξ̃_j in B̃
	bPart  []*big.Int // M_j = M/m_j
	mont   *big.Int   // M mod p: Montgomery form of 1
	montIn *big.Int   // M^{-1} mod p
}

func newCRT(p *Params) *crt {
	c := &crt{}
	for _, mod := range p.B.Moduli {
		mj := big.NewInt(int64(mod.M))
		part := new(big.Int).Quo(p.B.M, mj)
		c.bPart = append(c.bPart, part)
		c.bInv = append(c.bInv, uint32(new(big.Int).ModInverse(part, mj).Uint64()))
	}
	for _, mod := range p.BT.Moduli {
		mj := big.NewInt(int64(mod.M))
		part := new(big.Int).Quo(p.BT.M, mj)
		c.btInv = append(c.btInv, uint32(new(big.Int).ModInverse(part, mj).Uint64()))
	}
	c.mont = new(big.Int).Mod(p.B.M, p.P)
	c.montIn = new(big.Int).ModInverse(c.mont, p.P)
	return c
}

func (p *Params) conversions() *crt { return p.crt }

// modSmall returns x mod m for a non-negative x, word by word.
func modSmall(words []big.Word, m uint32) uint32 {
	var r uint64
	for i := len(words) - 1; i >= 0; i-- {
		w := uint64(words[i])
		if bits.UintSize == 64 {
			r = ((r<<32 | w>>32) % uint64(m))
			r = ((r<<32 | w&0xffffffff) % uint64(m))
		} else {
			r = (r<<32 | w) % uint64(m)
		}
	}
	return uint32(r)
}

// ToRNS sets z to the RNS form of x, 0 <= x < min(M, M̃). It returns an
// error, leaving z unchanged, for x outside that range.
func (p *Params) ToRNS(z *Element, x *big.Int) error {
	if x.Sign() < 0 || x.Cmp(p.B.M) >= 0 || x.Cmp(p.BT.M) >= 0 {
		return fmt.Errorf("rns: %d-bit value outside the dynamic range", x.BitLen())
	}
	c := p.conversions()
	w := x.Bits()
	for j, mod := range p.B.Moduli {
		z.B[j] = modSmall(w, mod.M)
	}
	for j, mod := range p.BT.Moduli {
		z.BT[j] = uint32(uint64(modSmall(w, mod.M)) * uint64(c.btInv[j]) % uint64(mod.M))
	}
	z.E = modSmall(w, p.Me())
	return nil
}

// FromRNS returns the integer whose B residues are b, provided it is below
// M/4: every value the ladder produces is below 9u, and Verify proves
// 4·9u < M. X = Σ ξ_j·M_j − α·M with ξ_j = |b_j·M_j^{-1}|_{m_j} and
// α = ⌊Σ ξ_j/m_j + 1/4⌋: since Σ ξ_j/m_j = α + X/M with X/M < 1/4, and
// float64, summing the n products ξ_j·Recip(m_j) (each below 1), errs by
// less than 3n²·2^-53, the estimate is exact.
func (p *Params) FromRNS(b []uint32) *big.Int {
	c := p.conversions()
	x := new(big.Int)
	t := new(big.Int)
	var frac float64
	for j, mod := range p.B.Moduli {
		xi := uint64(b[j]) * uint64(c.bInv[j]) % uint64(mod.M)
		frac += float64(xi) * mod.Recip()
		t.SetUint64(xi)
		x.Add(x, t.Mul(t, c.bPart[j]))
	}
	alpha := int64(math.Floor(frac + 0.25))
	return x.Sub(x, t.Mul(big.NewInt(alpha), p.B.M))
}

// FromRNSExact returns the integer below M whose B residues are b, by the
// CRT with a full reduction mod M: slower than FromRNS, valid on the whole range.
func (p *Params) FromRNSExact(b []uint32) *big.Int {
	c := p.conversions()
	x, t := new(big.Int), new(big.Int)
	for j, mod := range p.B.Moduli {
		t.SetUint64(uint64(b[j]) * uint64(c.bInv[j]) % uint64(mod.M))
		x.Add(x, t.Mul(t, c.bPart[j]))
	}
	return x.Mod(x, p.B.M)
}

// ToMont returns x·M mod p, the Montgomery form of x (x taken mod p).
func (p *Params) ToMont(x *big.Int) *big.Int {
	z := new(big.Int).Mul(x, p.conversions().mont)
	return z.Mod(z, p.P)
}

// FromMont returns x·M^{-1} mod p: the value whose Montgomery form is x.
func (p *Params) FromMont(x *big.Int) *big.Int {
	z := new(big.Int).Mul(x, p.conversions().montIn)
	return z.Mod(z, p.P)
}
