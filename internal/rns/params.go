// Package rns holds the Residue Number System of ecmul: the choice of
// moduli 2^16 − c (the paper's) or 2^30 − c (wide channels, B̃ ending with
// 2^30: WideTop), the bases B and B̃ and the redundant modulus m_e, channel
// arithmetic, binary ↔ RNS conversion and the Montgomery domain, and Params,
// which derives every bound the RNS Montgomery ladder relies on and proves it
// with math/big for the prime at hand.
package rns

import (
	"fmt"
	"math/big"
)

// AddBoundFactor is the bound on addition-set outputs in units of u = (n+2)·p:
// the ladder's worst addition, X_P = A + 8(u − B), stays below 9u.
const AddBoundFactor = 9

// KawamuraBits is q, the number of high bits of each ξ̃ that the Kawamura
// estimate of α keeps (the paper's choice).
const KawamuraBits = 9

// maxChannels bounds the search for n; 2^w − c has plenty of coprime values.
const maxChannels = 64

// Basis is one RNS base: n moduli and their product.
type Basis struct {
	Moduli []Modulus
	M      *big.Int // the dynamic range: product of the moduli
}

// Params is the RNS system for one prime p, with every bound the algorithm
// uses derived from the actual moduli. Build it with NewParams; Verify re-proves it.
type Params struct {
	P    *big.Int // the field prime
	Bits int      // the channel width: moduli 2^Bits − c
	N    int      // channels per base
	B    Basis    // the base of the Montgomery reduction (dynamic range M)
	BT   Basis    // the second base B̃ (dynamic range M̃)

	MeBits int    // the Shenoy redundant modulus is m_e = 2^MeBits (its α on 16-bit channels only: a wide M̃ is even)
	Phi    uint32 // Kawamura's Φ = ⌈2^16·Δ⌉, β = Φ/2^16, on 16-bit channels; the pair mapping's ⌈2^6·Δ⌉ on wide ones (pairalpha.go)

	U        *big.Int // u = (n+2)·p: every multiplication output is below u
	AddBound *big.Int // 9u: every multiplication input is below 9u

	// Twist holds σ_j for every channel of B: B residues are stored as
	// x·σ_j mod m_j, σ_j² ≡ NegR_j, on twisted (wide) systems, so that the
	// product of two stored residues is the first step's q_j (twist.go); all
	// ones otherwise.
	Twist []uint32

	kawamuraDelta *big.Rat // Δ: the largest total error of the truncated sum; nil for wide channels

	crt *crt // conversion constants, computed once by derive
}

// Me returns the Shenoy redundant modulus m_e = 2^MeBits.
func (p *Params) Me() uint32 { return 1 << p.MeBits }

// CandidateModuli returns the first count moduli 2^16 − c, c odd and
// ascending from 1, each kept only when coprime with every modulus kept before it.
func CandidateModuli(count int) ([]Modulus, error) { return CandidateModuliBits(ChannelBits, count) }

// CandidateModuliBits is CandidateModuli for moduli 2^bits − c.
func CandidateModuliBits(bits, count int) ([]Modulus, error) {
	var kept []Modulus
	for c := uint32(1); len(kept) < count; c += 2 {
		if c >= 1<<(ChannelBits-1) {
			return nil, fmt.Errorf("rns: ran out of moduli 2^%d − c after %d", bits, len(kept))
		}
		m := uint32(1)<<bits - c
		coprime := true
		for _, k := range kept {
			if gcd(m, k.M) != 1 {
				coprime = false
				break
			}
		}
		if !coprime {
			continue
		}
		mod, err := NewModulusBits(bits, c)
		if err != nil {
			return nil, err
		}
		kept = append(kept, mod)
	}
	return kept, nil
}

func gcd(a, b uint32) uint32 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// typeIIBound returns (9(n+2))^2·p, the least dynamic range of Type II.
func typeIIBound(p *big.Int, n int) *big.Int {
	k := big.NewInt(int64(AddBoundFactor * (n + 2)))
	k.Mul(k, k)
	return k.Mul(k, p)
}

func newBasis(mods []Modulus) Basis {
	m := big.NewInt(1)
	for _, mod := range mods {
		m.Mul(m, big.NewInt(int64(mod.M)))
	}
	return Basis{Moduli: mods, M: m}
}

// NewParams builds the RNS system of 16-bit channels for the odd prime p
// (NewParamsBits).
func NewParams(p *big.Int) (*Params, error) { return NewParamsBits(p, ChannelBits) }

// NewParamsBits builds the RNS system of bits-wide channels (16 or 30) for
// the odd prime p: n is the smallest channel count for which both dynamic
// ranges exceed (9(n+2))^2·p. For 16-bit channels the candidate moduli
// alternate between B (even positions) and B̃ (odd ones); wide systems are
// twisted, B drawn from the prime candidates (twistedBases). The result has
// passed Verify.
func NewParamsBits(p *big.Int, bits int) (*Params, error) {
	if bits != ChannelBits && bits != WideChannelBits {
		return nil, fmt.Errorf("rns: %d-bit channels: want %d or %d", bits, ChannelBits, WideChannelBits)
	}
	if p == nil || p.Sign() <= 0 || p.Bit(0) == 0 || p.BitLen() <= bits || !p.ProbablyPrime(20) {
		return nil, fmt.Errorf("rns: p must be an odd prime above 2^%d", bits)
	}
	cands, err := CandidateModuliBits(bits, 2*maxChannels)
	if err != nil {
		return nil, err
	}
	need := func(B, BT Basis, n int) bool {
		least := typeIIBound(p, n)
		return B.M.Cmp(least) > 0 && BT.M.Cmp(least) > 0
	}
	for n := 1; n <= maxChannels; n++ {
		var b, bt []Modulus
		for i := range 2 * n {
			if i%2 == 0 {
				b = append(b, cands[i])
			} else {
				bt = append(bt, cands[i])
			}
		}
		if !need(newBasis(b), newBasis(bt), n) {
			continue
		}
		if bits == WideChannelBits {
			var ok bool
			if b, bt, ok = twistedBases(p, cands, n); !ok || !need(newBasis(b), newBasis(bt), n) {
				continue
			}
		}
		B, BT := newBasis(b), newBasis(bt)
		par := &Params{P: new(big.Int).Set(p), Bits: bits, N: n, B: B, BT: BT}
		par.derive()
		if err := par.Verify(); err != nil {
			return nil, err
		}
		return par, nil
	}
	return nil, fmt.Errorf("rns: no channel count up to %d satisfies the Type II bound for a %d-bit prime", maxChannels, p.BitLen())
}

// derive fills in the quantities that follow from p and the bases.
func (p *Params) derive() {
	p.U = new(big.Int).Mul(big.NewInt(int64(p.N+2)), p.P)
	p.AddBound = new(big.Int).Mul(big.NewInt(AddBoundFactor), p.U)
	p.MeBits = 0
	for 1<<p.MeBits < p.N {
		p.MeBits++
	}
	p.Phi, p.kawamuraDelta = 0, nil
	if p.Kawamura() {
		p.kawamuraDelta = kawamuraDelta(p.BT)
		phi := new(big.Rat).Mul(p.kawamuraDelta, new(big.Rat).SetInt64(1<<ChannelBits))
		p.Phi = uint32(ceilRat(phi).Uint64())
	}
	if p.Wide() {
		p.Phi = pairAlphaPhi(p.BT)
	}
	p.Twist, _ = twists(p.P, p.B, p.Twisted()) // nil on failure, which Verify reports
	p.crt = newCRT(p)
}

// Kawamura reports whether the system supports Kawamura's extension: only
// 16-bit channels, whose worst truncation error Δ is found by trying every
// residue (2^30 per wide channel would be too many).
func (p *Params) Kawamura() bool { return p.Bits == ChannelBits }

// Wide reports whether the channels are WideChannelBits wide.
func (p *Params) Wide() bool { return p.Bits == WideChannelBits }

// KawamuraMask keeps the q high bits of a 16-bit ξ̃ (trunc in the paper).
func KawamuraMask() uint32 { return (1<<ChannelBits - 1) &^ (1<<(ChannelBits-KawamuraBits) - 1) }

// kawamuraDelta returns Δ = Σ_j max_ξ (ξ/m̃_j − trunc(ξ)/2^16) over the
// basis, maximised exhaustively over every ξ in [0, m̃_j): the exact worst
// error of estimating Σ ξ_j/m̃_j by Σ trunc(ξ_j)/2^16.
func kawamuraDelta(bt Basis) *big.Rat {
	mask := KawamuraMask()
	delta := new(big.Rat)
	for _, mod := range bt.Moduli {
		m := int64(mod.M)
		// error(ξ) = (ξ·2^16 − trunc(ξ)·m) / (m·2^16); maximise the numerator.
		var worst int64
		for xi := range m {
			num := xi<<ChannelBits - int64(uint32(xi)&mask)*m
			worst = max(worst, num)
		}
		delta.Add(delta, big.NewRat(worst, m<<ChannelBits))
	}
	return delta
}

func ceilRat(r *big.Rat) *big.Int {
	q, rem := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if rem.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// KawamuraBeta returns β = Φ/2^16 and the exact worst-case error Δ it
// covers; both zero when the system has no Kawamura extension.
func (p *Params) KawamuraBeta() (beta, delta *big.Rat) {
	if !p.Kawamura() {
		return new(big.Rat), new(big.Rat)
	}
	return big.NewRat(int64(p.Phi), 1<<ChannelBits), new(big.Rat).Set(p.kawamuraDelta)
}

// MaxFolds returns the largest fold count among the basis moduli: the number
// of folds a kernel must apply to every channel of that basis (after the
// first step of Reduce64, for wide channels).
func (b Basis) MaxFolds() int {
	f := 0
	for _, m := range b.Moduli {
		f = max(f, m.Folds)
	}
	return f
}

// Cs returns the c of every modulus 2^w − c of the basis, in order.
func (b Basis) Cs() []uint32 {
	cs := make([]uint32, len(b.Moduli))
	for i, m := range b.Moduli {
		cs[i] = m.C
	}
	return cs
}
