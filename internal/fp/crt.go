package fp

import (
	"math"
	"math/bits"
)

// CRTTerm is one channel's weights in CRT: Frac for the float estimate of
// the correction β, W (four limbs, any value below 2^256) for the sum.
type CRTTerm struct {
	Frac float64
	W    [Limbs]uint64
}

// CRT sets z to Redc(S) for
//
//	S = Σ_j r_j·terms[j].W + β·beta,   β = ⌊Σ_j r_j·terms[j].Frac + 1/4⌋
//
// with r_j = rows[j·stride], j < len(terms): the RNS → GF(p) conversion of
// the ladder's host (internal/ladder, crtToField), whose weights make S a
// Montgomery form. The float sum runs in the order of j, each term's
// product rounded and then added, so that β is the one that Go code doing
// the same gives; S must be below 2^320 (each r_j below 2^32 and β below
// 2^40 keep it there for the channel counts in use). On amd64 with ADX the
// sum runs in assembly by limb column, four independent carry chains; it
// has no branch and no address that depends on the residues.
func (f *Field) CRT(z *Element, rows []uint32, stride int, terms []CRTTerm, beta *[Limbs]uint64) {
	n := len(terms)
	if n == 0 {
		panic("fp: CRT with no terms")
	}
	_ = rows[(n-1)*stride]
	var s [5]uint64
	if useCRTAsm {
		crtSumADX(&s, &rows[0], uintptr(4*stride), &terms[0], &terms[n-1], beta)
	} else {
		crtSumGeneric(&s, rows, stride, terms, beta)
	}
	f.Redc(z, &s)
}

// crtSumGeneric is CRT's sum in Go, a running five-limb sum: the
// reference of the assembly.
func crtSumGeneric(s *[5]uint64, rows []uint32, stride int, terms []CRTTerm, beta *[Limbs]uint64) {
	n := len(terms)
	var s0, s1, s2, s3, s4, c uint64
	var frac float64
	for j := 0; j <= n; j++ {
		var d uint64
		var w *[Limbs]uint64
		if j < n {
			t := &terms[j]
			rj := rows[j*stride]
			d = uint64(rj)
			frac += float64(rj) * t.Frac
			w = &t.W
		} else {
			d = uint64(int64(math.Floor(frac + 0.25)))
			w = beta
		}
		h0, l0 := bits.Mul64(d, w[0])
		h1, l1 := bits.Mul64(d, w[1])
		h2, l2 := bits.Mul64(d, w[2])
		h3, l3 := bits.Mul64(d, w[3])
		s0, c = bits.Add64(s0, l0, 0)
		s1, c = bits.Add64(s1, l1, c)
		s2, c = bits.Add64(s2, l2, c)
		s3, c = bits.Add64(s3, l3, c)
		s4 += c
		s1, c = bits.Add64(s1, h0, 0)
		s2, c = bits.Add64(s2, h1, c)
		s3, c = bits.Add64(s3, h2, c)
		s4 += h3 + c
	}
	*s = [5]uint64{s0, s1, s2, s3, s4}
}
