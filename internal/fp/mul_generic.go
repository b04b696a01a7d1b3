//go:build !amd64 || purego

package fp

func montMul(z, x, y *Element, p *[Limbs]uint64, pInv uint64) {
	montMulGeneric(z, x, y, p, pInv)
}
