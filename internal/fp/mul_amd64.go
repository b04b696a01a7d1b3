//go:build amd64 && !purego

package fp

import "golang.org/x/sys/cpu"

// useADX selects the assembly multiplication, which needs MULX (BMI2) and
// the two carry flags' additions ADCX and ADOX (ADX).
var useADX = cpu.X86.HasADX && cpu.X86.HasBMI2

// montMulADX is montMulGeneric in assembly with two carry chains; it has no
// branch and no address that depends on the values.
//
//go:noescape
func montMulADX(z, x, y *Element, p *[Limbs]uint64, pInv uint64)

func montMul(z, x, y *Element, p *[Limbs]uint64, pInv uint64) {
	if useADX {
		montMulADX(z, x, y, p, pInv)
		return
	}
	montMulGeneric(z, x, y, p, pInv)
}
