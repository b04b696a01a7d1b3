package ecdsasign_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ecdsasign"
)

// pyVector is one line of testdata/rfc6979/secp256k1.txt, made by
// python-ecdsa (gen_secp256k1.py beside it).
type pyVector struct {
	hash                 string
	key, digest, extra   []byte
	k, r, s, sLow, kNext string
}

func loadPyVectors(t *testing.T) []pyVector {
	f, err := os.Open("../../testdata/rfc6979/secp256k1.txt")
	require.NoError(t, err)
	defer f.Close()
	var vs []pyVector
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		x := strings.Fields(sc.Text())
		require.Len(t, x, 9, sc.Text())
		v := pyVector{hash: x[0], key: unhex(t, x[1]), digest: unhex(t, x[2]), k: x[4], r: x[5], s: x[6], sLow: x[7], kNext: x[8]}
		if x[3] != "-" {
			v.extra = unhex(t, x[3])
		}
		vs = append(vs, v)
	}
	require.NoError(t, sc.Err())
	require.Len(t, vs, 40)
	return vs
}

// TestSecp256k1Python signs python-ecdsa's items on secp256k1, the
// deterministic ones in one batch and the hedged ones in another whose
// randomness is their additional data back to back: the nonces and the
// signatures are python-ecdsa's, and so is s under the low-s rule.
func TestSecp256k1Python(t *testing.T) {
	vs := loadPyVectors(t)
	c := curves.Secp256k1()
	s, err := ecdsasign.New(c)
	require.NoError(t, err)
	for _, hedged := range []bool{false, true} {
		for _, lowS := range []bool{false, true} {
			var items []pyVector
			var digests [][]byte
			var keys, extra []byte
			for _, v := range vs {
				if (v.extra != nil) == hedged {
					items = append(items, v)
					digests = append(digests, v.digest)
					keys = append(keys, v.key...)
					extra = append(extra, v.extra...)
				}
			}
			opt := ecdsasign.Options{LowS: lowS}
			if hedged {
				opt.Randomness = bytes.NewReader(extra)
			}
			var seen [][]byte
			sigs := make([]byte, len(items)*64)
			errs := make([]error, len(items))
			require.NoError(t, s.Sign(context.Background(), sigs, errs, digests, keys, ctecBase(t, c, &seen), opt))
			require.Len(t, seen, len(items))
			for i, v := range items {
				require.NoError(t, errs[i])
				want := v.r + v.s
				if lowS {
					want = v.r + v.sLow
				}
				require.Equal(t, v.k, hexOf(seen[i]), "%s item %d: k", v.hash, i)
				require.Equal(t, want, hexOf(sigs[i*64:(i+1)*64]), "%s item %d", v.hash, i)
			}
		}
	}
}

// TestRetry gives r = 0 for every item's first nonce (x = 0 from k·G):
// each item goes round again with its DRBG's next nonce, python-ecdsa's
// retry_gen=1, and gets a signature of that nonce that verifies.
func TestRetry(t *testing.T) {
	var vs []pyVector
	for _, v := range loadPyVectors(t) {
		if v.extra == nil {
			vs = append(vs, v)
		}
	}
	vs = vs[:8]
	c := curves.Secp256k1()
	s, err := ecdsasign.New(c)
	require.NoError(t, err)
	var digests [][]byte
	var keys []byte
	for _, v := range vs {
		digests = append(digests, v.digest)
		keys = append(keys, v.key...)
	}
	var first, second [][]byte
	real := ctecBase(t, c, &second)
	calls := 0
	base := func(ctx context.Context, xs []byte, ok []bool, scalars []byte) error {
		calls++
		if calls > 1 {
			return real(ctx, xs, ok, scalars)
		}
		for i := range ok {
			first = append(first, append([]byte(nil), scalars[i*32:(i+1)*32]...))
			ok[i] = true
		}
		clear(xs)
		return nil
	}
	sigs := make([]byte, len(vs)*64)
	errs := make([]error, len(vs))
	require.NoError(t, s.Sign(context.Background(), sigs, errs, digests, keys, base, ecdsasign.Options{}))
	require.Equal(t, 2, calls)
	require.Len(t, second, len(vs))
	for i, v := range vs {
		require.NoError(t, errs[i])
		require.Equal(t, v.k, hexOf(first[i]), "item %d: first nonce", i)
		require.Equal(t, v.kNext, hexOf(second[i]), "item %d: next nonce", i)
		require.True(t, textbookVerify(c, v.key, v.digest, sigs[i*64:(i+1)*64]), "item %d", i)
	}
}
