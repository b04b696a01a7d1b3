package rns

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

// Element is one value in the RNS: its B residues stored as x·σ_j mod m_j
// (Params.Twist: σ_j = 1 but on twisted systems), its B̃ residues stored as
// ξ̃_j = x·|M̃_j^{-1}|_{m̃_j} mod m̃_j (the forms the multiplication reads,
// each saving one product per channel), and x mod m_e (ResidueScales).
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
	bScale []uint32   // σ_j: x mod m_j → stored residue in B
	bInv   []uint32   // |(σ_j·M_j)^{-1}|_{m_j}: stored residue → CRT coefficient ξ_j in B
	bFrac  []float64  // |(σ_j·M_j)^{-1}|_{m_j}/m_j rounded: a residue's weight in FromRNS's estimate
	bLift  []*big.Int // |(σ_j·M_j)^{-1}|_{m_j}·M_j: a residue's weight in FromRNS's sum
	btInv  []uint32   // |M̃_j^{-1}|_{m̃_j}: x mod m̃_j → stored ξ̃_j in B̃
	bPart  []*big.Int // M_j = M/m_j
	mont   *big.Int   // M mod p: Montgomery form of 1
	montIn *big.Int   // M^{-1} mod p
}

func newCRT(p *Params) *crt {
	c := &crt{}
	for j, mod := range p.B.Moduli {
		mj := big.NewInt(int64(mod.M))
		part := new(big.Int).Quo(p.B.M, mj)
		scale := uint32(1)
		if len(p.Twist) == len(p.B.Moduli) {
			scale = p.Twist[j]
		}
		c.bScale = append(c.bScale, scale)
		inv := new(big.Int).ModInverse(new(big.Int).Mul(part, big.NewInt(int64(scale))), mj)
		c.bPart = append(c.bPart, part)
		c.bInv = append(c.bInv, uint32(inv.Uint64()))
		c.bFrac = append(c.bFrac, float64(inv.Uint64())/float64(mod.M))
		c.bLift = append(c.bLift, inv.Mul(inv, part))
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
		z.B[j] = uint32(uint64(modSmall(w, mod.M)) * uint64(c.bScale[j]) % uint64(mod.M))
	}
	for j, mod := range p.BT.Moduli {
		z.BT[j] = uint32(uint64(modSmall(w, mod.M)) * uint64(c.btInv[j]) % uint64(mod.M))
	}
	z.E = modSmall(w, p.Me())
	return nil
}

// FromRNS returns the integer whose stored B residues are b, provided it is
// below M/4: every value the ladder produces is below 9u, and Verify proves
// 4·9u < M. It sums whole words, with no reduction per channel:
// X = Σ b_j·λ_j − β·M with λ_j = γ_j·M_j (CRTLift), γ_j = |(σ_j·M_j)^{-1}|_{m_j},
// and β = ⌊Σ b_j·f_j + 1/4⌋, f_j = γ_j/m_j rounded (CRTFraction).
// Writing b_j·γ_j = ξ_j + q_j·m_j, Σ b_j·λ_j = X + (α + Σ q_j)·M
// and Σ b_j·γ_j/m_j = α + Σ q_j + X/M with 0 <= X/M < 1/4.
// The float64 sum errs by less than n·(n+2)·2^-21 (each product, below
// 2^32, by 2^-20 with f_j's own rounding; each partial sum, below n·2^32, by
// n·2^-21), below 1/4 as Verify proves ("CRT β float error"), so
// β = α + Σ q_j exactly. For any words b_j < 2^32
// FromRNS returns this formula's value, and the host's conversions compute
// the same one.
func (p *Params) FromRNS(b []uint32) *big.Int {
	c := p.conversions()
	x := new(big.Int)
	t := new(big.Int)
	var frac float64
	for j := range p.B.Moduli {
		frac += float64(b[j]) * c.bFrac[j]
		t.SetUint64(uint64(b[j]))
		x.Add(x, t.Mul(t, c.bLift[j]))
	}
	beta := int64(math.Floor(frac + 0.25))
	return x.Sub(x, t.Mul(big.NewInt(beta), p.B.M))
}

// CRTFraction returns f_j = |(σ_j·M_j)^{-1}|_{m_j}/m_j rounded to float64,
// the weight of channel j's stored residue in the estimate of FromRNS.
func (p *Params) CRTFraction(j int) float64 { return p.conversions().bFrac[j] }

// CRTLift returns λ_j = |(σ_j·M_j)^{-1}|_{m_j}·M_j, the weight of channel
// j's stored residue in the sum of FromRNS.
func (p *Params) CRTLift(j int) *big.Int { return new(big.Int).Set(p.conversions().bLift[j]) }

// ResidueScales returns the factors an Element's residues are stored times:
// σ_j in B (Params.Twist), |M̃_j^{-1}|_{m̃_j} in B̃.
func (p *Params) ResidueScales() (b, bt []uint32) {
	c := p.conversions()
	return append([]uint32{}, c.bScale...), append([]uint32{}, c.btInv...)
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
