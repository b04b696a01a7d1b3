//go:build amd64 && !purego

package fp

import "golang.org/x/sys/cpu"

// useCRTAsm selects crtSumADX, which needs MULX and SSE4.1's ROUNDSD.
var useCRTAsm = useADX && cpu.X86.HasSSE41

// crtSumADX is crtSumGeneric for the terms first … last (40 bytes apart),
// residue j at r + j·strideBytes.
//
//go:noescape
func crtSumADX(s *[5]uint64, r *uint32, strideBytes uintptr, first, last *CRTTerm, beta *[Limbs]uint64)
