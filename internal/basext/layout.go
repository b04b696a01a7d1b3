package basext

import "github.com/rnsec/ecmul/internal/rns"

// Layout gives the offset, in 32-bit words, of each table inside Words for
// n channels per base. The kernel computes the same offsets from n
// (Layout<N> in internal/kernels/rns.cuh) from the sizes that
// internal/kernels/gen.go writes from LayoutFor (ECM_BASEXT_LAYOUT in
// internal/kernels/schedule_gen.cuh).
type Layout struct {
	ModB, CB, ModBT, CBT, NegR, S, T, NegMtB, Ext1, Ext2, Ext1E, Ext2E int
	MeMask, PE, MInvE, MtInvE, Phi, KawMask                            int
	Size                                                               int
}

// LayoutFor returns the table offsets for n channels per base: eight vectors
// of n words, the two n×n extension matrices, the two m_e rows, then six scalars.
func LayoutFor(n int) Layout {
	var l Layout
	off := 0
	next := func(size int) int { o := off; off += size; return o }
	l.ModB, l.CB, l.ModBT, l.CBT = next(n), next(n), next(n), next(n)
	l.NegR, l.S, l.T, l.NegMtB = next(n), next(n), next(n), next(n)
	l.Ext1, l.Ext2 = next(n*n), next(n*n)
	l.Ext1E, l.Ext2E = next(n), next(n)
	l.MeMask, l.PE, l.MInvE, l.MtInvE, l.Phi, l.KawMask = next(1), next(1), next(1), next(1), next(1), next(1)
	l.Size = off
	return l
}

// Words returns every constant as one flat array in the order of LayoutFor:
// the moduli and their c for B and B̃, NegR, S, T, NegMtB, Ext1, Ext2,
// Ext1E, Ext2E, then m_e − 1, |p|_{m_e}, |M^{-1}|_{m_e}, |M̃^{-1}|_{m_e}, Φ
// and the Kawamura mask.
func (t *Tables) Words() []uint32 {
	p := t.Params
	l := LayoutFor(p.N)
	w := make([]uint32, l.Size)
	for j := range p.N {
		w[l.ModB+j], w[l.CB+j] = p.B.Moduli[j].M, p.B.Moduli[j].C
		w[l.ModBT+j], w[l.CBT+j] = p.BT.Moduli[j].M, p.BT.Moduli[j].C
	}
	copy(w[l.NegR:], t.NegR)
	copy(w[l.S:], t.S)
	copy(w[l.T:], t.T)
	copy(w[l.NegMtB:], t.NegMtB)
	copy(w[l.Ext1:], t.Ext1)
	copy(w[l.Ext2:], t.Ext2)
	copy(w[l.Ext1E:], t.Ext1E)
	copy(w[l.Ext2E:], t.Ext2E)
	w[l.MeMask] = p.Me() - 1
	w[l.PE], w[l.MInvE], w[l.MtInvE] = t.PE, t.MInvE, t.MtInvE
	w[l.Phi], w[l.KawMask] = p.Phi, rns.KawamuraMask()
	return w
}
