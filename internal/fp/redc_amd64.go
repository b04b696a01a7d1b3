//go:build amd64 && !purego

package fp

// redc5ADX is Reduce5 in assembly with the carry chains of montMulADX; it
// has no branch and no address that depends on the values.
//
//go:noescape
func redc5ADX(z *Element, t *[5]uint64, p *[Limbs]uint64, pInv uint64)

// Redc is Reduce5 (the same result for every input), in assembly where Mul
// is (amd64 with BMI2 and ADX).
func (f *Field) Redc(z *Element, t *[5]uint64) {
	if useADX {
		redc5ADX(z, t, &f.p, f.pInv)
		return
	}
	f.Reduce5(z, t)
}
