package ladder

import "github.com/rnsec/ecmul/internal/basext"

// ConstLayout is where the kernel finds its constants in
// Setup.KernelConstants, in 32-bit words, for n channels per base: the
// table of basext.Tables.Words from word 0, then elements of Element words
// (ElementRows): the curve's b at KB, addition constant i at
// AddConstAt(i), and for the comb, its table (Setup.CombTableWords) at
// CombTable. internal/kernels/gen.go writes it into
// internal/kernels/schedule_gen.cuh for every n the kernel is built for
// (Consts<N> in internal/kernels/rns.cuh).
type ConstLayout struct {
	Element  int // words of one element: ElementRows(n)
	KB       int // the curve's b, right after the basext table
	AddConst int // the first addition constant, right after KB
}

// CombAlign is the alignment, in words, of the comb's table: the kernel
// reads it as 16-byte vectors.
const CombAlign = 4

// ConstLayoutFor returns the layout of the constants for n channels per base.
func ConstLayoutFor(n int) ConstLayout {
	l := ConstLayout{Element: ElementRows(n), KB: basext.LayoutFor(n).Size}
	l.AddConst = l.KB + l.Element
	return l
}

// AddConstAt returns the offset of addition constant i; AddConstAt(adds)
// is the end of a setup's adds addition constants.
func (l ConstLayout) AddConstAt(i int) int { return l.AddConst + i*l.Element }

// CombTable returns the offset of the comb's table after adds addition
// constants: the first multiple of CombAlign words at or after their end.
func (l ConstLayout) CombTable(adds int) int {
	return (l.AddConstAt(adds) + CombAlign - 1) / CombAlign * CombAlign
}

// ConstLayout returns the layout of the setup's kernel constants.
func (su *Setup) ConstLayout() ConstLayout { return ConstLayoutFor(su.Params.N) }
