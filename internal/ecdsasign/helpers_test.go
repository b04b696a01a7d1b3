package ecdsasign_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"io"
	"math/big"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/ctec"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ecdsasign"
	"github.com/rnsec/ecmul/internal/textbook"
)

// ctecBase is a BaseMult on internal/ctec's constant-time comb, which
// also records every scalar it is given into seen, a call's in order.
func ctecBase(t *testing.T, c *curves.Curve, seen *[][]byte) ecdsasign.BaseMult {
	a, err := ctec.For(c)
	require.NoError(t, err)
	L := a.ScalarBytes()
	var mu sync.Mutex
	return func(_ context.Context, xs []byte, ok []bool, scalars []byte) error {
		xy := make([]byte, 2*L)
		if seen != nil {
			mu.Lock()
			for i := range ok {
				*seen = append(*seen, append([]byte(nil), scalars[i*L:(i+1)*L]...))
			}
			mu.Unlock()
		}
		for i := range ok {
			k := scalars[i*L : (i+1)*L]
			var p ctec.Point
			a.ScalarBaseMult(&p, k)
			inf, on := a.Encode(xy, &p)
			copy(xs[i*L:(i+1)*L], xy[:L])
			ok[i] = inf == 0 && on != 0
		}
		return nil
	}
}

// signAll signs the batch on ctec's comb and returns the signatures r‖s,
// one per item, and the items' errors; the batch must not fail.
func signAll(t *testing.T, c *curves.Curve, digests [][]byte, keys []byte, opt ecdsasign.Options) ([][]byte, []error) {
	t.Helper()
	s, err := ecdsasign.New(c)
	require.NoError(t, err)
	L := s.ScalarBytes()
	sigs := dirty(len(digests) * 2 * L)
	errs := make([]error, len(digests))
	require.NoError(t, s.Sign(context.Background(), sigs, errs, digests, keys, ctecBase(t, c, nil), opt))
	out := make([][]byte, len(digests))
	for i := range out {
		out[i] = sigs[2*i*L : 2*(i+1)*L]
		if errs[i] != nil {
			require.Equal(t, make([]byte, 2*L), out[i], "item %d failed: its signature is zero", i)
		}
	}
	return out, errs
}

// dirty returns n bytes that no signature is made of, as a caller's
// buffer may hold: Sign must write every item's bytes, zero for an item
// that fails.
func dirty(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xa5
	}
	return b
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// pad returns b left-padded with zeros to n bytes.
func pad(b []byte, n int) []byte {
	return append(make([]byte, n-len(b)), b...)
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }

// textbookVerify verifies the signature r‖s of digest under the private
// key's public key by SEC 1 v2 §4.1.4 in math/big, with the affine
// arithmetic of internal/textbook: no code of this package or of ctec.
func textbookVerify(c *curves.Curve, key, digest, sig []byte) bool {
	n, L := c.N(), c.ByteLen()
	r, s := new(big.Int).SetBytes(sig[:L]), new(big.Int).SetBytes(sig[L:])
	if r.Sign() == 0 || r.Cmp(n) >= 0 || s.Sign() == 0 || s.Cmp(n) >= 0 {
		return false
	}
	if len(digest) > L {
		digest = digest[:L] // bitlen(n) = 8L on these curves
	}
	e := new(big.Int).SetBytes(digest)
	w := new(big.Int).ModInverse(s, n)
	u1 := new(big.Int).Mul(e, w)
	u2 := new(big.Int).Mul(r, w)
	g := c.Generator()
	q := textbook.Mul(c, g, new(big.Int).SetBytes(key))
	R := textbook.Add(c, textbook.Mul(c, g, u1), textbook.Mul(c, q, u2))
	return R != nil && new(big.Int).Mod(R.X, n).Cmp(r) == 0
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 6979)) }

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
