//go:build !amd64 || purego

package fp

const useCRTAsm = false

func crtSumADX(s *[5]uint64, r *uint32, strideBytes uintptr, first, last *CRTTerm, beta *[Limbs]uint64) {
	panic("fp: no assembly CRT")
}
