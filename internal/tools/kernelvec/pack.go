package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"slices"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
)

// Pack vectors (-pack) hold, little-endian uint32 words: magic 0x4b434345,
// version 1, n, the bytes B of a coordinate (Curve.ByteLen), result rows Q
// (ladder.Setup.ResultRows: x‖y in 2B/4 words, then the Outcome), items I,
// the kernel's block size (kernels.FinishThreads), constant words C; then
// the C finish constants (ladder.Setup.FinishConstants), Q·I words of the
// finish's results (the pack's input, row r of item i at r·I + i), and
// ⌈I·(2 + 2B)/4⌉ words of the wire output of a chunk of the I items before
// the pack (random bytes) and as many after it (PackOnHost): the I results
// of 1 + 2B bytes, item i's at byte i·(1 + 2B), then the I outcome bytes,
// item i's at I·(1 + 2B) + i, zero bytes padding the last word, so that a
// batch of any count can be tiled from them.
const (
	packMagic   = 0x4b434345
	packVersion = 1
)

// packVectors holds the parts of a pack file.
type packVectors struct {
	consts, results, wire, want []uint32
}

// makePack builds a pack file's parts for items items drawn from rng: the
// results of a finish file's items (makeFinish: points, the point at
// infinity, failures, bases off the curve and rejected points), random
// words in place of the zero x‖y of every outcome but OutPoint, which the
// kernel must not copy, and the host's twin of the kernel on random wire
// bytes. It checks the twin's bytes: 0x04‖x‖y, x‖y the finish's, for a
// point, zero bytes otherwise, and the outcome.
func makePack(su *ladder.Setup, c *curves.Curve, items int, rng *rand.Rand) (*packVectors, error) {
	f, err := makeFinish(su, c, items, rng)
	if err != nil {
		return nil, err
	}
	I, B := items, c.ByteLen()
	results, outcomes, xys := packResults(su, f, I, rng)
	v := &packVectors{consts: su.FinishConstants(), results: results}
	wire := make([]byte, I*su.WireOutBytes())
	rng.Read(wire)
	v.wire = wordsOf(wire)
	su.PackOnHost(v.results, I, I, wire)
	v.want = wordsOf(wire)

	rec := 1 + 2*B
	for i, o := range outcomes {
		want := make([]byte, rec)
		if o == ladder.OutPoint {
			want[0] = 4
			copy(want[1:], xys[i])
		}
		if got := wire[i*rec : (i+1)*rec]; !bytes.Equal(got, want) {
			return nil, fmt.Errorf("item %d (outcome %d): PackOnHost writes %x, want %x", i, o, got, want)
		}
		if got := wire[I*rec+i]; got != byte(o) {
			return nil, fmt.Errorf("item %d: PackOnHost writes the outcome %d, want %d", i, got, o)
		}
	}
	return v, nil
}

// packResults returns the result rows of the I items of a finish file
// after its finish, random words in place of the zero x‖y of every outcome
// but OutPoint, which the pack kernels must not copy; and each item's
// outcome and x‖y as the finish left them.
func packResults(su *ladder.Setup, f *finishVectors, I int, rng *rand.Rand) ([]uint32, []ladder.Outcome, [][]byte) {
	Q := su.ResultRows()
	results := slices.Clone(f.want[:Q*I])
	outcomes := make([]ladder.Outcome, I)
	xys := make([][]byte, I)
	for i := range I {
		xys[i] = make([]byte, 2*su.Curve.ByteLen())
		outcomes[i] = su.ReadResult(results, I, i, xys[i])
		if outcomes[i] == ladder.OutPoint {
			continue
		}
		for r := range Q - 1 {
			results[r*I+i] = rng.Uint32()
		}
	}
	return results, outcomes, xys
}

// packWords returns a pack file's words: its header and parts.
func packWords(su *ladder.Setup, items int, v *packVectors) [][]uint32 {
	hdr := []uint32{packMagic, packVersion, uint32(su.Params.N), uint32(su.Curve.ByteLen()), uint32(su.ResultRows()),
		uint32(items), kernels.FinishThreads, uint32(len(v.consts))}
	return [][]uint32{hdr, v.consts, v.results, v.wire, v.want}
}
