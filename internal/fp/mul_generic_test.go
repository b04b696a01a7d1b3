//go:build !amd64 || purego

package fp

// asmMontMul reports that this build has no assembly Mul.
func asmMontMul() (func(z, x, y *Element, p *[Limbs]uint64, pInv uint64), bool) {
	return nil, false
}
