package ecdsasign_test

import (
	"context"
	"crypto/sha256"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ecdsasign"
	"github.com/rnsec/ecmul/internal/ladder"
)

// TestFirstSign: with a FirstSign (here the sign kernels' arithmetic in
// math/big, its nonces from ladder.Nonce6979), a batch of SHA-256 digests
// is signed as the host alone signs it, byte for byte, with and without
// the low-s rule, also where FirstSign refuses a candidate (the host signs
// the item itself) or does not run; an item FirstSign gives no point fails
// with ErrNoPoint, and one whose r it gives as 0 goes round again with the
// DRBG's next nonce and verifies. A batch with another hash never calls it.
func TestFirstSign(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			const count = 15
			keys := randomKeys(newRand(83), c, count)
			digests := make([][]byte, count)
			for i := range digests {
				d := sha256.Sum256(keys[i*c.ByteLen() : (i+1)*c.ByteLen()])
				digests[i] = d[:]
			}
			for _, lowS := range []bool{false, true} {
				want, errs := signAll(t, c, digests, keys, ecdsasign.Options{LowS: lowS})
				for i, err := range errs {
					require.NoError(t, err, "item %d", i)
				}
				for _, run := range []bool{true, false} {
					calls := 0
					got, errs := signAll(t, c, digests, keys, ecdsasign.Options{LowS: lowS, FirstSign: fakeFirstSign(c, run, &calls)})
					require.Equal(t, 1, calls, "FirstSign runs %v", run)
					for i := range count {
						checkFirstSigned(t, c, run, i, keys, digests[i], want[i], got[i], errs[i])
					}
				}
			}
			calls := 0
			long := make([][]byte, count)
			for i := range long {
				long[i] = append(append([]byte(nil), digests[i]...), digests[i]...)
			}
			_, errs := signAll(t, c, long, keys, ecdsasign.Options{FirstSign: fakeFirstSign(c, true, &calls)})
			require.Zero(t, calls, "SHA-512's digests")
			for i, err := range errs {
				require.NoError(t, err, "item %d", i)
			}
		})
	}
}

// checkFirstSigned checks item i of TestFirstSign against the host's
// signature want (fakeFirstSign says what each item gets).
func checkFirstSigned(t *testing.T, c *curves.Curve, run bool, i int, keys, digest, want, got []byte, err error) {
	L := c.ByteLen()
	switch {
	case run && i%5 == 2:
		require.ErrorIs(t, err, ecdsasign.ErrNoPoint, "item %d", i)
	case run && i%5 == 3:
		require.NoError(t, err, "item %d", i)
		require.NotEqual(t, want, got, "item %d: r = 0 takes the next nonce", i)
		require.True(t, textbookVerify(c, keys[i*L:(i+1)*L], digest, got), "item %d", i)
	default:
		require.NoError(t, err, "item %d", i)
		require.Equal(t, want, got, "FirstSign runs %v, item %d", run, i)
	}
}

// fakeFirstSign signs each item as the sign kernels do, in math/big, with
// its nonce from ladder.Nonce6979 and k·G from the curve's reference, but
// of every five items it refuses the second's candidate, gives the third
// no point and the fourth r = 0; where run is false it does nothing and
// says so. It counts its calls.
func fakeFirstSign(c *curves.Curve, run bool, calls *int) ecdsasign.FirstSign {
	L, n := c.ByteLen(), c.N()
	return func(ctx context.Context, sigs []byte, out []ecdsasign.FirstOutcome, keys, h1s []byte) (bool, error) {
		*calls++
		if !run {
			return false, nil
		}
		for i := range out {
			d, h1 := keys[i*L:(i+1)*L], h1s[i*L:(i+1)*L]
			k := new(big.Int).SetBytes(ladder.Nonce6979(d, h1))
			x, _, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), k)
			if err != nil {
				return true, err
			}
			r := x.Mod(x, n)
			s := new(big.Int).Mul(r, new(big.Int).SetBytes(d))
			s.Add(s, new(big.Int).SetBytes(h1))
			s.Mul(s, new(big.Int).ModInverse(k, n)).Mod(s, n)
			r.FillBytes(sigs[2*i*L : (2*i+1)*L])
			s.FillBytes(sigs[(2*i+1)*L : 2*(i+1)*L])
			out[i] = []ecdsasign.FirstOutcome{ecdsasign.FirstSigned, ecdsasign.FirstRefused, ecdsasign.FirstNoPoint, ecdsasign.FirstSigned, ecdsasign.FirstSigned}[i%5]
			if i%5 == 3 {
				clear(sigs[2*i*L : (2*i+1)*L])
			}
		}
		return true, nil
	}
}
