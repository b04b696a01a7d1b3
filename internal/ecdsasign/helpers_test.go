package ecdsasign_test

import (
	"context"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/ctec"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ecdsasign"
)

// ctecBase is a BaseMult on internal/ctec's constant-time comb, which
// also records every scalar it is given, in order, into seen.
func ctecBase(t *testing.T, c *curves.Curve, seen *[][]byte) ecdsasign.BaseMult {
	a, err := ctec.For(c)
	require.NoError(t, err)
	L := a.ScalarBytes()
	return func(_ context.Context, xs []byte, ok []bool, scalars []byte) error {
		xy := make([]byte, 2*L)
		for i := range ok {
			k := scalars[i*L : (i+1)*L]
			if seen != nil {
				*seen = append(*seen, append([]byte(nil), k...))
			}
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
	sigs := make([]byte, len(digests)*2*L)
	errs := make([]error, len(digests))
	require.NoError(t, s.Sign(context.Background(), sigs, errs, digests, keys, ctecBase(t, c, nil), opt))
	out := make([][]byte, len(digests))
	for i := range out {
		out[i] = sigs[2*i*L : 2*(i+1)*L]
	}
	return out, errs
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
