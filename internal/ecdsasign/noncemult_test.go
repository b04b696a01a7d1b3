package ecdsasign_test

import (
	"context"
	"crypto/sha256"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ecdsasign"
	"github.com/rnsec/ecmul/internal/ladder"
)

// TestNonceMult: with a NonceMult (here the sign unpack kernel's twin,
// ladder.Nonce6979, with ctec's comb), a batch of SHA-256 digests is
// signed as the host's DRBG alone signs it, byte for byte, also where
// NonceMult gives a refused candidate (0 or n: the host's DRBG then takes
// the next) or does not run; a batch with another hash never calls it.
func TestNonceMult(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			const count = 12
			L := c.ByteLen()
			rng := newRand(83)
			keys := make([]byte, count*L)
			digests := make([][]byte, count)
			for i := range count {
				k := make([]byte, L)
				for j := range k {
					k[j] = byte(rng.Uint32())
				}
				k[0] &= 0x7f // below n
				copy(keys[i*L:], k)
				d := sha256.Sum256(k)
				digests[i] = d[:]
			}
			want, errs := signAll(t, c, digests, keys, ecdsasign.Options{})
			for i, err := range errs {
				require.NoError(t, err, "item %d", i)
			}
			for _, run := range []bool{true, false} {
				calls := 0
				opt := ecdsasign.Options{NonceMult: fakeNonceMult(t, c, run, &calls)}
				got, errs := signAll(t, c, digests, keys, opt)
				for i := range count {
					require.NoError(t, errs[i], "item %d", i)
					require.Equal(t, want[i], got[i], "NonceMult runs %v, item %d", run, i)
				}
				require.Equal(t, 1, calls, "NonceMult runs %v", run)
			}
			calls := 0
			long := make([][]byte, count)
			for i := range long {
				long[i] = append(append([]byte(nil), digests[i]...), digests[i]...)
			}
			_, errs = signAll(t, c, long, keys, ecdsasign.Options{NonceMult: fakeNonceMult(t, c, true, &calls)})
			require.Zero(t, calls, "SHA-512's digests")
		})
	}
}

// fakeNonceMult derives each nonce with ladder.Nonce6979 and its k·G on
// ctec's comb, but gives 0 for every fourth item and n for the next ones
// after it; where run is false it does nothing and says so. It counts its
// calls.
func fakeNonceMult(t *testing.T, c *curves.Curve, run bool, calls *int) ecdsasign.NonceMult {
	base := ctecBase(t, c, nil)
	L := c.ByteLen()
	n := c.N().FillBytes(make([]byte, L))
	return func(ctx context.Context, xs, ks []byte, ok []bool, keys, h1s []byte) (bool, error) {
		*calls++
		if !run {
			return false, nil
		}
		for i := range ok {
			k := ks[i*L : (i+1)*L]
			copy(k, ladder.Nonce6979(keys[i*L:(i+1)*L], h1s[i*L:(i+1)*L]))
		}
		if err := base(ctx, xs, ok, ks); err != nil {
			return true, err
		}
		for i := range ok {
			switch i % 4 {
			case 1:
				clear(ks[i*L : (i+1)*L])
			case 2:
				copy(ks[i*L:(i+1)*L], n)
			}
		}
		return true, nil
	}
}
