package main

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"math/rand"
	"slices"
	"testing"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
)

// bytesOfWords returns the little-endian bytes of w.
func bytesOfWords(w []uint32) []byte {
	b := make([]byte, 4*len(w))
	for i, v := range w {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

// TestMakeSignUnpack holds the sign unpack vectors to what their items
// are for: the edge keys and h1 on the wire, each key replaced by a nonce
// and the h1 kept, the finish, sign and scalar rows rewritten, and the
// header of the file, its last part the wire after the unpack.
func TestMakeSignUnpack(t *testing.T) {
	I := len(signEdges) + 2
	forKindsVectors(t, []ladder.Kind{ladder.Comb}, I, []int{16, 30}, makeSignUnpack,
		func(t *testing.T, su *ladder.Setup, _ int, v *unpackVectors) {
			L, R, n := su.Curve.ByteLen(), su.SignInputRows(), su.Curve.N()
			wire, after := bytesOfWords(v.wire)[:2*I*L], bytesOfWords(v.wireWant)[:2*I*L]
			edges := map[string]bool{}
			for i := range I {
				d, h1 := new(big.Int).SetBytes(wire[i*L:(i+1)*L]), new(big.Int).SetBytes(wire[(I+i)*L:(I+i+1)*L])
				edges["d "+d.Text(16)], edges["h1 "+h1.Text(16)] = true, true
				if bytes.Equal(after[i*L:(i+1)*L], wire[i*L:(i+1)*L]) {
					t.Errorf("item %d: the key was kept", i)
				}
				for r := range R {
					if v.inWant[r*I+i] == v.in[r*I+i] && v.inWant[r*I+i] != 0 {
						t.Errorf("item %d: row %d kept its random word %#x", i, r, v.in[r*I+i])
					}
				}
			}
			nm1 := new(big.Int).Sub(n, big.NewInt(1)).Text(16)
			for _, e := range []string{"d 1", "d " + nm1, "h1 0", "h1 " + nm1} {
				if !edges[e] {
					t.Errorf("no item has %s", e)
				}
			}
			if !bytes.Equal(after[I*L:], wire[I*L:]) {
				t.Errorf("the unpack changed the h1")
			}
			words := signUnpackWords(su, I, v)
			hdr := []uint32{signUnpackMagic, unpackVersion, uint32(su.Params.N), uint32(R), 0, uint32(su.ScalarWords()),
				uint32(L), uint32(I), kernels.FinishThreads, uint32(len(v.consts))}
			if w := (I*su.SignWireInBytes() + 3) / 4; !slices.Equal(words[0], hdr) || len(words[3]) != R*I ||
				len(words) != 8 || len(words[2]) != w || len(words[7]) != w {
				t.Errorf("header %v, want %v", words[0], hdr)
			}
		})
	su, err := ladder.NewSetupBits(curves.P224(), ladder.CoZ, 30)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := makeSignUnpack(su, su.Curve, I, rand.New(rand.NewSource(1))); err == nil {
		t.Errorf("sign unpack vectors on the co-Z ladder")
	}
}

// TestMakeSignPack holds the sign pack vectors to what their items are
// for: points and failures, bases off the curve and rejected points among
// the results, random words in the x‖y of all but points, refused nonces
// and x of n or more among the items, a wire output of signatures r‖s with
// r = x mod n and s·k ≡ h1 + r·d (mod n) from the sign rows (zero bytes
// and OutRefused for a refused nonce, zero bytes and the finish's outcome
// for the others) that ends before the sign rows, and the header of the
// file.
func TestMakeSignPack(t *testing.T) {
	I := 2 * len(signPackEdits)
	forKindsVectors(t, []ladder.Kind{ladder.Comb}, I, []int{30}, makeSignPack,
		func(t *testing.T, su *ladder.Setup, _ int, v *signPackVectors) {
			L, Q, R, at, n := su.Curve.ByteLen(), su.ResultRows(), su.SignInputRows(), su.SignRowAt(), su.Curve.N()
			out := bytesOfWords(v.want)
			seen := map[ladder.Outcome]bool{}
			xAboveN := 0
			row := func(i, r int) *big.Int {
				b := make([]byte, 32)
				for w := range 8 {
					binary.BigEndian.PutUint32(b[32-4*(w+1):], v.in[(at+r+w)*I+i])
				}
				return new(big.Int).SetBytes(b)
			}
			for i := range I {
				xy := make([]byte, 2*L)
				o := su.ReadResult(v.results, I, i, xy)
				k, d, h1 := row(i, ladder.SignRowNonce), row(i, ladder.SignRowKey), row(i, ladder.SignRowH1)
				x := new(big.Int).SetBytes(xy[:L])
				switch {
				case k.Sign() == 0 || k.Cmp(n) >= 0:
					o = ladder.OutRefused
				case o != ladder.OutPoint && x.Sign() == 0:
					t.Errorf("item %d (outcome %d): zero x, want random words", i, o)
				}
				seen[o] = true
				want := make([]byte, 2*L)
				if o == ladder.OutPoint {
					if x.Cmp(n) >= 0 {
						xAboveN++
					}
					r := new(big.Int).Mod(x, n)
					s := new(big.Int).Mul(r, d)
					s.Add(s, h1).Mul(s, new(big.Int).ModInverse(k, n)).Mod(s, n)
					r.FillBytes(want[:L])
					s.FillBytes(want[L:])
				}
				if got := out[i*2*L : (i+1)*2*L]; !bytes.Equal(got, want) || out[2*I*L+i] != byte(o) {
					t.Errorf("item %d (outcome %d): wire %x and outcome %d, want %x", i, o, got, out[2*I*L+i], want)
				}
			}
			if xAboveN < 2 {
				t.Errorf("%d points with x ≥ n, want 2", xAboveN)
			}
			for _, o := range []ladder.Outcome{ladder.OutPoint, ladder.OutFailed, ladder.OutOffCurve, ladder.OutBadEncoding, ladder.OutRefused} {
				if !seen[o] {
					t.Errorf("no item has the outcome %d", o)
				}
			}
			words := signPackWords(su, I, v)
			hdr := []uint32{signPackMagic, signPackVersion, uint32(su.Params.N), uint32(L), uint32(Q), uint32(R), uint32(I),
				kernels.FinishThreads, uint32(len(v.consts))}
			if n := (I*su.SignWireOutBytes() + 3) / 4; !slices.Equal(words[0], hdr) || len(words[2]) != Q*I ||
				len(words[3]) != R*I || len(words[4]) != n || n > at*I {
				t.Errorf("header %v, want %v", words[0], hdr)
			}
		})
}
