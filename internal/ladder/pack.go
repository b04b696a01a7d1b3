package ladder

import (
	"math/big"
	"math/bits"

	"github.com/rnsec/ecmul/internal/rns"
)

// The kernel's data, all little-endian 32-bit words, channel-major so that
// the threads of a warp read consecutive words (row r of item i at r·stride + i):
//
//	constants: basext.Tables.Words(), then the KB element, then every
//	           AddConsts element; an element is B[n], ξ̃ B̃[n], then m_e
//	           and for the comb, from the next multiple of CombAlign
//	           words, its table (Setup.CombTableWords): ConstLayout
//	inputs:    InputRows() rows: the base's x in RNS Montgomery form (none
//	           for the comb, whose base is in its table)
//	scalars:   ScalarWords() rows: the ladder scalar, least significant word first
//	outputs:   OutputRows() rows: B residues of each Schedule.Out register

// ElementRows returns the words of one element: n in B, n in B̃, one for m_e.
func ElementRows(n int) int { return 2*n + 1 }

// InputRows returns the rows of the kernel's input per item: ElementRows,
// or none for the comb.
func (su *Setup) InputRows() int {
	if su.comb != nil {
		return 0
	}
	return ElementRows(su.Params.N)
}

// OutputCount returns the number of values the kernel returns per item.
func (su *Setup) OutputCount() int { return len(su.Schedule.Out) }

// OutputRows returns the rows the kernel writes per item.
func (su *Setup) OutputRows() int { return su.OutputCount() * su.Params.N }

// ScalarWords returns the 32-bit words of a ladder scalar (t+1 bits).
func (su *Setup) ScalarWords() int { return (su.Bits + 1 + 31) / 32 }

// putElement writes e at the start of w: its B residues, its B̃ residues,
// then its m_e residue.
func putElement(w []uint32, e *rns.Element) {
	n := copy(w, e.B)
	n += copy(w[n:], e.BT)
	w[n] = e.E
}

// KernelConstants returns every constant the kernel reads, where
// Setup.ConstLayout puts them.
func (su *Setup) KernelConstants() []uint32 {
	l := su.ConstLayout()
	adds := len(su.AddConsts)
	size, table := l.AddConstAt(adds), su.CombTableWords()
	if table != nil {
		size = l.CombTable(adds) + len(table)
	}
	w := make([]uint32, size)
	if copy(w, su.Tables.Words()) != l.KB {
		panic("ladder: the basext table is not ConstLayout.KB words long")
	}
	putElement(w[l.KB:], &su.KB)
	for i := range su.AddConsts {
		putElement(w[l.AddConstAt(i):], &su.AddConsts[i])
	}
	if table != nil {
		copy(w[l.CombTable(adds):], table)
	}
	return w
}

// PackInput writes item i of a batch of stride items: its x element into in
// and its ladder scalar into scalars. It allocates nothing.
func (su *Setup) PackInput(in, scalars []uint32, stride, i int, j Job) {
	n := su.Params.N
	if su.InputRows() == 0 {
		// the comb: no input rows
	} else if h := su.host; n <= maxInline {
		var buf [2*maxInline + 1]uint32
		v := h.montInput(su.Params, j.X)
		h.residues(buf[:], &v)
		for r, w := range buf[:2*n+1] {
			in[r*stride+i] = w
		}
	} else {
		x := su.InputElement(j)
		for r := range n {
			in[r*stride+i] = x.B[r]
			in[(n+r)*stride+i] = x.BT[r]
		}
		in[2*n*stride+i] = x.E
	}
	words := j.Scalar.Bits()
	for w := range su.ScalarWords() {
		scalars[w*stride+i] = scalarWord(words, w)
	}
}

// scalarWord returns 32-bit word w of a big.Int's magnitude.
func scalarWord(words []big.Word, w int) uint32 {
	if bits.UintSize == 32 {
		if w < len(words) {
			return uint32(words[w])
		}
		return 0
	}
	if w/2 < len(words) {
		return uint32(uint64(words[w/2]) >> (32 * (w % 2)))
	}
	return 0
}

// UnpackOutput reads item i of a batch of stride items from the kernel's outputs.
func (su *Setup) UnpackOutput(out []uint32, stride, i int) Channels {
	n := su.Params.N
	ch := make(Channels, su.OutputCount())
	for v := range ch {
		ch[v] = make([]uint32, n)
		for j := range n {
			ch[v][j] = out[(v*n+j)*stride+i]
		}
	}
	return ch
}
