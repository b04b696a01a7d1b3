package ladder

import (
	"slices"

	"github.com/rnsec/ecmul/internal/fp"
)

// ChunkFinish is FinishItems for a chunk whose items several goroutines
// finish at once, in blocks, with one field inversion for the whole chunk
// (Montgomery's trick across the blocks) where FinishItems on each block
// would take one per block: Gather every block, then Invert once, then Emit
// every block. Blocks may be taken in any order and on any goroutine, but
// every Gather must return before Invert and Invert before any Emit.
type ChunkFinish struct {
	su     *Setup
	h      *hostField
	items  []Item
	out    []uint32
	stride int
	block  int
	scr    *finishScratch
}

// NewChunkFinish prepares the finish of items, whose outputs are columns
// 0 … len(items)−1 of out (a batch of stride items), in blocks of block
// items (the last one shorter). It returns nil for the paper's schedule,
// whose finish has no such split (use FinishItems). Release gives its
// memory back.
func (su *Setup) NewChunkFinish(items []Item, out []uint32, stride, block int) *ChunkFinish {
	if su.Schedule.Kind != CoZ {
		return nil
	}
	h := su.host
	c := &ChunkFinish{su: su, h: h, items: items, out: out, stride: stride, block: max(block, 1)}
	c.scr = h.scratch(len(items) * su.OutputCount())
	c.scr.coZ = slices.Grow(c.scr.coZ[:0], len(items))[:len(items)]
	nb := c.Blocks()
	c.scr.blockTot = slices.Grow(c.scr.blockTot[:0], nb)[:nb]
	c.scr.blockInv = slices.Grow(c.scr.blockInv[:0], nb)[:nb]
	return c
}

// Blocks returns how many blocks the chunk has.
func (c *ChunkFinish) Blocks() int { return (len(c.items) + c.block - 1) / c.block }

// bounds returns block b's items [lo, hi).
func (c *ChunkFinish) bounds(b int) (lo, hi int) {
	return b * c.block, min((b+1)*c.block, len(c.items))
}

// Gather reads block b's outputs into field elements (CRT) and runs the
// first pass of the inversion over them.
func (c *ChunkFinish) Gather(b int) {
	lo, hi := c.bounds(b)
	no := c.su.OutputCount()
	c.su.gatherOutputs(c.h, c.scr.pr[no*lo:no*hi], c.out[lo:], c.stride, nil)
	coZGather(c.h, itemBases(c.items), c.scr.pr, c.scr.coZ, lo, hi, &c.scr.blockTot[b])
}

// Invert inverts the product of every block's denominators, once, and
// gives each block the inverse of its own product.
func (c *ChunkFinish) Invert() {
	f := c.h.f
	tot, inv := c.scr.blockTot, c.scr.blockInv
	acc := f.One()
	for b := range tot {
		inv[b] = acc // the product of the blocks before b
		f.Mul(&acc, &acc, &tot[b])
	}
	var x fp.Element
	f.Inverse(&x, &acc)
	for b := len(tot) - 1; b >= 0; b-- {
		f.Mul(&inv[b], &x, &inv[b])
		f.Mul(&x, &x, &tot[b])
	}
}

// Emit hands block b's results to emit as FinishItems does: emit(k,
// outcome, xy) for its items k (indices into the chunk's items).
func (c *ChunkFinish) Emit(b int, emit func(k int, o Outcome, xy []byte)) {
	lo, hi := c.bounds(b)
	sink := &bytesOut{f: c.h.f, size: c.su.Curve.ByteLen(), emit: emit}
	coZEmit(c.h, itemBases(c.items), c.scr.pr, c.scr.coZ, lo, hi, c.scr.blockInv[b], sink)
}

// Release gives the finish's memory back; c is not used after.
func (c *ChunkFinish) Release() {
	c.h.scratchPool.Put(c.scr)
	c.scr = nil
}
