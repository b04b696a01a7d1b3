//go:build amd64 && !purego

package fp

// asmMontMul returns the assembly Mul and whether this machine runs it.
func asmMontMul() (func(z, x, y *Element, p *[Limbs]uint64, pInv uint64), bool) {
	return montMulADX, useADX
}
