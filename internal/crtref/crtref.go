// Package crtref is the exact Chinese remainder reconstruction, a math/big
// reference against which the tests check the RNS conversions: valid on
// the whole range [0, M), where rns.Params.FromRNS takes values below M/4.
package crtref

import (
	"math/big"

	"github.com/rnsec/ecmul/internal/rns"
)

// Exact returns the integer below M whose B residues are b: Σ b_j·λ_j mod M,
// λ_j = |M_j^{-1}|_{m_j}·M_j (rns.Params.CRTLift).
func Exact(p *rns.Params, b []uint32) *big.Int {
	x, t := new(big.Int), new(big.Int)
	for j := range p.B.Moduli {
		t.SetUint64(uint64(b[j]))
		x.Add(x, t.Mul(t, p.CRTLift(j)))
	}
	return x.Mod(x, p.B.M)
}
