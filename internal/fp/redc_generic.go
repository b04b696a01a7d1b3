//go:build !amd64 || purego

package fp

// Redc is Reduce5 (the same result for every input), in assembly where Mul
// is (amd64 with BMI2 and ADX).
func (f *Field) Redc(z *Element, t *[5]uint64) { f.Reduce5(z, t) }
