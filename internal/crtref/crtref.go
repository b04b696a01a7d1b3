// Package crtref is the exact Chinese remainder reconstruction, a math/big
// reference against which the tests check the RNS conversions: valid on
// the whole range [0, M), where rns.Params.FromRNS takes values below M/4.
package crtref

import (
	"math/big"

	"github.com/rnsec/ecmul/internal/rns"
)

// Exact returns the integer x below M whose stored B residues are b, that is
// x·σ_j ≡ b_j (mod m_j) for the twist σ_j of rns.Params.Twist:
// Σ |b_j·σ_j^{-1}·M_j^{-1}|_{m_j}·M_j mod M, every inverse taken here with
// math/big rather than from the conversions' constants.
func Exact(p *rns.Params, b []uint32) *big.Int {
	x, t := new(big.Int), new(big.Int)
	for j, mod := range p.B.Moduli {
		m := big.NewInt(int64(mod.M))
		part := new(big.Int).Quo(p.B.M, m)
		t.Mul(part, big.NewInt(int64(p.Twist[j])))
		t.ModInverse(t, m)
		t.Mul(t, big.NewInt(int64(b[j])))
		t.Mod(t, m)
		x.Add(x, t.Mul(t, part))
	}
	return x.Mod(x, p.B.M)
}
