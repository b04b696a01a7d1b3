package main

import (
	"bytes"
	"fmt"
	"math/big"
	"math/rand"
	"slices"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
)

// Sign unpack vectors (-signunpack), for the unpack kernel of a signing
// batch (ecm_signunpack_*, sign.cuh), have the unpack's format (unpack.go)
// with the magic 0x53434345, on the comb: the input rows R are
// SignInputRows (the sign rows after the finish rows), and the wire input
// of the I items is SignWireInBytes each: the I private keys d, then
// (ladder's signwire.go) the I h1, of B bytes each, so that a batch of any
// count can be tiled from them. ⌈I·2B/4⌉ words more end the file: the wire
// input after the unpack, each nonce k over its key. The rows and the wire
// after the unpack are UnpackSignOnHost's.
const signUnpackMagic = 0x53434345

// Sign pack vectors (-signpack), for the pack kernel of a signing batch
// (ecm_signpack_*), hold, little-endian uint32 words: magic 0x58434345,
// version 1, n, the bytes B of a coordinate, result rows Q (ResultRows),
// input rows R (SignInputRows), items I, the kernel's block size
// (kernels.FinishThreads), constant words C; then the C finish constants,
// Q·I words of the finish's results (the pack's input in out), R·I words
// of the input buffer before the pack (random words, then the sign rows of
// each item: its nonce, key and h1), row r of item i at r·I + i, and
// ⌈I·(2B + 1)/4⌉ words of the wire output that the pack writes over the
// first input rows (PackSignOnHost): the I signatures r‖s of 2B bytes, item
// i's at byte i·2B, then the I outcome bytes, item i's at I·2B + i, zero
// bytes padding the last word, so that a batch of any count can be tiled
// from them.
const (
	signPackMagic   = 0x58434345
	signPackVersion = 1
)

// signCase is one item of a sign file: its private key d and its h1, each
// nil for a random one (d in [1, n − 1], h1 below n).
type signCase struct {
	d, h1 func(n *big.Int) *big.Int
}

// signEdges are the first items of a sign file: the edge keys 1 and n − 1
// and keys of long runs of 0x00 and 0xff bytes, and the edge h1 0 and
// n − 1, with random ones and each other; items after them are random.
var signEdges = []signCase{
	{scalarOf(0, 1), nil},
	{scalarOf(1, -1), nil},
	{nil, scalarOf(0, 0)},
	{nil, scalarOf(1, -1)},
	{scalarOf(0, 1), scalarOf(0, 0)},
	{scalarOf(1, -1), scalarOf(1, -1)},
	{scalarOf(0, 1), scalarOf(1, -1)},
	{scalarOf(1, -1), scalarOf(0, 0)},
	{bytesOf(firstByte, 0x00, 0xff), nil},
	{bytesOf(firstByte, 0xff, 0x00), scalarOf(0, 0)},
	{bytesOf(upperHalf, 0x00, 0xff), nil},
	{bytesOf(lastByte, 0xff, 0x00), scalarOf(1, -1)},
	{bytesOf(evenByte, 0x00, 0xff), bytesOf(evenByte, 0xff, 0x00)},
	{bytesOf(evenByte, 0xff, 0x00), bytesOf(upperHalf, 0x00, 0xff)},
	{bytesOf(firstByte, 0x00, 0xff), bytesOf(firstByte, 0x00, 0xff)},
}

// bytesOf returns the scalar of ByteLen bytes (n's), big-endian, whose
// byte j is a where at(j, ByteLen) and b elsewhere.
func bytesOf(at func(j, L int) bool, a, b byte) func(n *big.Int) *big.Int {
	return func(n *big.Int) *big.Int {
		s := make([]byte, (n.BitLen()+7)/8)
		for j := range s {
			s[j] = b
			if at(j, len(s)) {
				s[j] = a
			}
		}
		return new(big.Int).SetBytes(s)
	}
}

// The bytes of bytesOf's patterns.
func firstByte(j, _ int) bool { return j == 0 }
func lastByte(j, L int) bool  { return j == L-1 }
func upperHalf(j, L int) bool { return j < L/2 }
func evenByte(j, _ int) bool  { return j%2 == 0 }

// signCases returns the cases of a sign file of items items: signEdges,
// then random ones.
func signCases(items int) []signCase {
	cases := make([]signCase, items)
	copy(cases, signEdges)
	return cases
}

// signWire returns a signing batch's wire input of cases, drawn from rng:
// the keys, then the h1. Every key must be in [1, n − 1] and every h1
// below n, as the host leaves them.
func signWire(c *curves.Curve, cases []signCase, rng *rand.Rand) ([]byte, error) {
	I, L, n := len(cases), c.ByteLen(), c.N()
	wire := make([]byte, 2*I*L)
	for i, cs := range cases {
		d := new(big.Int).Rand(rng, new(big.Int).Sub(n, big.NewInt(1)))
		d.Add(d, big.NewInt(1))
		if cs.d != nil {
			d = cs.d(n)
		}
		h1 := new(big.Int).Rand(rng, n)
		if cs.h1 != nil {
			h1 = cs.h1(n)
		}
		if d.Sign() <= 0 || d.Cmp(n) >= 0 || h1.Cmp(n) >= 0 {
			return nil, fmt.Errorf("item %d: the key %#x or h1 %#x out of range", i, d, h1)
		}
		d.FillBytes(wire[i*L : (i+1)*L])
		h1.FillBytes(wire[(I+i)*L : (I+i+1)*L])
	}
	return wire, nil
}

// signNonces returns the nonces of the I items of a signing batch's wire
// input, ByteLen bytes each: Nonce6979 of each key and h1.
func signNonces(L int, wire []byte) []byte {
	I := len(wire) / (2 * L)
	nonces := make([]byte, I*L)
	for i := range I {
		copy(nonces[i*L:], ladder.Nonce6979(wire[i*L:(i+1)*L], wire[(I+i)*L:(I+i+1)*L]))
	}
	return nonces
}

// makeSignUnpack builds a sign unpack file's parts for items items drawn
// from rng: the wire input of their keys and h1 (signEdges, then random
// ones), random input and scalar rows, and the host's twin of the kernel
// on copies of them, the wire included. It checks the twin (checkSignUnpack).
func makeSignUnpack(su *ladder.Setup, c *curves.Curve, items int, rng *rand.Rand) (*unpackVectors, error) {
	if su.Schedule.Kind != ladder.Comb {
		return nil, fmt.Errorf("a signing batch runs on the comb, not %s", su.Schedule.Kind)
	}
	I := items
	wire, err := signWire(c, signCases(I), rng)
	if err != nil {
		return nil, err
	}
	v := &unpackVectors{consts: su.PrepareConstants(), wire: wordsOf(wire), in: randomWords(su.SignInputRows()*I, rng),
		sc: randomWords(su.ScalarWords()*I, rng)}
	v.inWant, v.scWant = slices.Clone(v.in), slices.Clone(v.sc)
	after := slices.Clone(wire)
	su.UnpackSignOnHost(after, v.inWant, v.scWant, I, I)
	v.wireWant = wordsOf(after)
	if err := checkSignUnpack(su, wire, after, v); err != nil {
		return nil, err
	}
	return v, nil
}

// checkSignUnpack checks the twin's wire and rows in v (see
// makeSignUnpack): each key replaced by its nonce k, the h1 kept, the
// finish and scalar rows the comb's UnpackOnHost of a wire of the nonces,
// and the sign rows the words of k, d and h1, least significant first.
func checkSignUnpack(su *ladder.Setup, wire, after []byte, v *unpackVectors) error {
	L := su.Curve.ByteLen()
	I, at := len(wire)/(2*L), su.SignRowAt()
	nonces := signNonces(L, wire)
	if !bytes.Equal(after[:I*L], nonces) || !bytes.Equal(after[I*L:], wire[I*L:]) {
		return fmt.Errorf("UnpackSignOnHost leaves a wire input other than the nonces, then the h1")
	}
	ref, refSc := slices.Clone(v.in), slices.Clone(v.sc)
	su.UnpackOnHost(nonces, ref, refSc, I, I)
	if !slices.Equal(v.inWant[:at*I], ref[:at*I]) || !slices.Equal(v.scWant, refSc) {
		return fmt.Errorf("the finish and scalar rows are not UnpackOnHost's of the nonces")
	}
	for i := range I {
		for _, row := range []struct {
			name string
			at   int
			v    []byte
		}{{"k", ladder.SignRowNonce, nonces[i*L : (i+1)*L]}, {"d", ladder.SignRowKey, wire[i*L : (i+1)*L]}, {"h1", ladder.SignRowH1, wire[(I+i)*L : (I+i+1)*L]}} {
			x := new(big.Int).SetBytes(row.v)
			for w := range 8 {
				want := uint32(new(big.Int).Rsh(x, uint(32*w)).Uint64())
				if got := v.inWant[(at+row.at+w)*I+i]; got != want {
					return fmt.Errorf("item %d: sign row %d is %#x, %s's word %d %#x", i, row.at+w, got, row.name, w, want)
				}
			}
		}
	}
	if su.SignInputRows()-at != ladder.SignRows {
		return fmt.Errorf("%d sign rows, not k, d and h1's %d", su.SignInputRows()-at, ladder.SignRows)
	}
	return nil
}

// signUnpackWords returns a sign unpack file's words: its header and
// parts, then the wire input after the unpack.
func signUnpackWords(su *ladder.Setup, items int, v *unpackVectors) [][]uint32 {
	return append(wireInWords(su, signUnpackMagic, su.SignInputRows(), items, v), v.wireWant)
}

// signPackVectors holds the parts of a sign pack file.
type signPackVectors struct {
	consts, results, in, want []uint32
}

// signPackEdits are the edits of a sign pack file's items, in turn: the
// finish's failures, a base flagged off the curve and a rejected point
// among the points, whose x the pack must not copy.
var signPackEdits = []finishEdit{editNone, editZeroDen, editNone, editOffCurve, editNone, editBadEncoding, editNone, editBreakX}

// makeSignPack builds a sign pack file's parts for items items drawn from
// rng: the nonces k of a sign unpack file's keys and h1, the comb's finish
// of k·G (makeFinishCases, with signPackEdits) as results, random words in
// place of the zero x‖y of every outcome but OutPoint (packResults), and
// random input rows with the sign rows UnpackSignOnHost leaves, but for the
// items of signPackRefused, whose nonce rows are replaced by a refused
// candidate. It checks the twin's bytes (checkSignPack) and that they end
// before the sign rows.
func makeSignPack(su *ladder.Setup, c *curves.Curve, items int, rng *rand.Rand) (*signPackVectors, error) {
	if su.Schedule.Kind != ladder.Comb {
		return nil, fmt.Errorf("a signing batch runs on the comb, not %s", su.Schedule.Kind)
	}
	I, L, R, at := items, c.ByteLen(), su.SignInputRows(), su.SignRowAt()
	wire, err := signWire(c, signCases(I), rng)
	if err != nil {
		return nil, err
	}
	nonces := signNonces(L, wire)
	cases := make([]finishCase, I)
	for i := range cases {
		k := new(big.Int).SetBytes(nonces[i*L : (i+1)*L])
		cases[i] = finishCase{func(*big.Int) *big.Int { return k }, signPackEdits[i%len(signPackEdits)]}
	}
	f, err := makeFinishCases(su, c, cases, rng)
	if err != nil {
		return nil, err
	}
	results, outcomes, _ := packResults(su, f, I, rng)
	xs := signPackXs(c.N())
	for i, x := range xs {
		if i < I && x != nil {
			if outcomes[i] != ladder.OutPoint {
				return nil, fmt.Errorf("item %d: an x edge on outcome %d", i, outcomes[i])
			}
			putResultX(results, I, i, x, L)
		}
	}
	v := &signPackVectors{consts: su.FinishConstants(), results: results, in: randomWords(R*I, rng)}
	signed := slices.Clone(v.in)
	su.UnpackSignOnHost(slices.Clone(wire), signed, make([]uint32, su.ScalarWords()*I), I, I)
	copy(v.in[at*I:], signed[at*I:])
	for i, k := range signPackRefused(c.N(), L) {
		if i < I && k != nil {
			putRowWords(v.in[(at+ladder.SignRowNonce)*I:], I, i, k)
			k.FillBytes(nonces[i*L : (i+1)*L])
		}
	}
	out := make([]byte, I*su.SignWireOutBytes())
	if len(out) > 4*at*I {
		return nil, fmt.Errorf("%d bytes of wire output, past the sign rows at byte %d", len(out), 4*at*I)
	}
	su.PackSignOnHost(v.results, v.in, I, I, out)
	v.want = wordsOf(out)
	if err := checkSignPack(c, wire, nonces, xs, outcomes, out); err != nil {
		return nil, err
	}
	return v, nil
}

// signPackRefused are the nonces the first items of a sign pack file get
// in place of theirs, by item: refused candidates 0, n and 2^(8L) − 1, L
// the curve's ByteLen, with nil for the items between that keep theirs.
func signPackRefused(n *big.Int, L int) []*big.Int {
	top := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(8*L)), big.NewInt(1))
	return []*big.Int{nil, big.NewInt(0), nil, nil, new(big.Int).Set(n), nil, top}
}

// signPackXs are the x(k·G) the first items of a sign pack file get in
// place of theirs, by item: x = n + 5 and x = n, below p on every curve
// here, whose r is x − n; nil for the items that keep theirs.
func signPackXs(n *big.Int) []*big.Int {
	xs := make([]*big.Int, 11)
	xs[2], xs[10] = new(big.Int).Add(n, big.NewInt(5)), new(big.Int).Set(n)
	return xs
}

// putResultX writes x as item i's x in the finish's result rows of a batch
// of stride items: byte 4r + b of x, big-endian in L bytes, is byte b of
// row r.
func putResultX(results []uint32, stride, i int, x *big.Int, L int) {
	b := x.FillBytes(make([]byte, L))
	for r := range L / 4 {
		results[r*stride+i] = uint32(b[4*r]) | uint32(b[4*r+1])<<8 | uint32(b[4*r+2])<<16 | uint32(b[4*r+3])<<24
	}
}

// putRowWords writes x's eight words, least significant first, into column
// i of the rows from rows[0] of a batch of stride items.
func putRowWords(rows []uint32, stride, i int, x *big.Int) {
	for w := range 8 {
		rows[w*stride+i] = uint32(new(big.Int).Rsh(x, uint(32*w)).Uint64())
	}
}

// checkSignPack checks the twin's wire output of the items of a signing
// batch's wire input and nonces (see makeSignPack), against math/big and
// the reference k·G (or the x of xs, where not nil): OutRefused and zero
// bytes for a k outside [1, n − 1]; for a point, r = x mod n and s =
// k⁻¹·(h1 + r·d) mod n; zero bytes and the finish's outcome otherwise.
func checkSignPack(c *curves.Curve, wire, nonces []byte, xs []*big.Int, outcomes []ladder.Outcome, out []byte) error {
	I, L, n := len(outcomes), c.ByteLen(), c.N()
	for i, o := range outcomes {
		k := new(big.Int).SetBytes(nonces[i*L : (i+1)*L])
		want := make([]byte, 2*L)
		switch {
		case k.Sign() == 0 || k.Cmp(n) >= 0:
			o = ladder.OutRefused
		case o == ladder.OutPoint:
			x, _, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), k)
			if err != nil {
				return err
			}
			if i < len(xs) && xs[i] != nil {
				x.Set(xs[i])
			}
			r := x.Mod(x, n)
			s := new(big.Int).Mul(r, new(big.Int).SetBytes(wire[i*L:(i+1)*L]))
			s.Add(s, new(big.Int).SetBytes(wire[(I+i)*L:(I+i+1)*L]))
			s.Mul(s, new(big.Int).ModInverse(k, n)).Mod(s, n)
			r.FillBytes(want[:L])
			s.FillBytes(want[L:])
		}
		if got := out[i*2*L : (i+1)*2*L]; !bytes.Equal(got, want) {
			return fmt.Errorf("item %d (outcome %d): PackSignOnHost writes %x, want %x", i, o, got, want)
		}
		if got := out[I*2*L+i]; got != byte(o) {
			return fmt.Errorf("item %d: PackSignOnHost writes the outcome %d, want %d", i, got, o)
		}
	}
	return nil
}

// signPackWords returns a sign pack file's words: its header and parts.
func signPackWords(su *ladder.Setup, items int, v *signPackVectors) [][]uint32 {
	hdr := []uint32{signPackMagic, signPackVersion, uint32(su.Params.N), uint32(su.Curve.ByteLen()),
		uint32(su.ResultRows()), uint32(su.SignInputRows()), uint32(items), kernels.FinishThreads, uint32(len(v.consts))}
	return [][]uint32{hdr, v.consts, v.results, v.in, v.want}
}
