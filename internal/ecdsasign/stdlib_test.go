package ecdsasign_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ecdsasign"
)

var stdCurves = map[*curves.Curve]elliptic.Curve{
	curves.P224(): elliptic.P224(),
	curves.P256(): elliptic.P256(),
}

var allHashes = []crypto.Hash{crypto.SHA1, crypto.SHA224, crypto.SHA256, crypto.SHA384, crypto.SHA512}

// randomKeys returns count private keys in [1, n − 1], L bytes each: 1,
// n − 1 and n − 2 first, then random ones.
func randomKeys(rng *rand.Rand, c *curves.Curve, count int) []byte {
	n, L := c.N(), c.ByteLen()
	keys := make([]byte, 0, count*L)
	for i := range count {
		var d *big.Int
		switch i {
		case 0:
			d = big.NewInt(1)
		case 1:
			d = new(big.Int).Sub(n, big.NewInt(1))
		case 2:
			d = new(big.Int).Sub(n, big.NewInt(2))
		default:
			b := make([]byte, L+8)
			for j := range b {
				b[j] = byte(rng.Uint32())
			}
			d = new(big.Int).SetBytes(b)
			d.Mod(d, new(big.Int).Sub(n, big.NewInt(1)))
			d.Add(d, big.NewInt(1))
		}
		keys = append(keys, d.FillBytes(make([]byte, L))...)
	}
	return keys
}

// randomDigests returns count digests, hash hs[i mod len(hs)] of a random
// message for item i, and those hashes.
func randomDigests(rng *rand.Rand, count int, hs []crypto.Hash) ([][]byte, []crypto.Hash) {
	digests := make([][]byte, count)
	used := make([]crypto.Hash, count)
	for i := range digests {
		h := hs[i%len(hs)].New()
		msg := make([]byte, 16)
		for j := range msg {
			msg[j] = byte(rng.Uint32())
		}
		h.Write(msg)
		digests[i] = h.Sum(nil)
		used[i] = hs[i%len(hs)]
	}
	return digests, used
}

// TestMatchesGo signs random digests of every hash with random and edge
// keys on P-224 and P-256: every DER signature is byte for byte the one
// of crypto/ecdsa's deterministic Sign (a nil random source: RFC 6979
// with the hash of its options), and verifies with crypto/ecdsa.
func TestMatchesGo(t *testing.T) {
	count := 60
	if testing.Short() {
		count = 20
	}
	for c, sc := range stdCurves {
		t.Run(c.Name(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(c.ByteLen())))
			keys := randomKeys(rng, c, count)
			digests, hs := randomDigests(rng, count, allHashes)
			sigs, errs := signAll(t, c, digests, keys, ecdsasign.Options{})
			L := c.ByteLen()
			for i := range count {
				require.NoError(t, errs[i])
				priv, err := ecdsa.ParseRawPrivateKey(sc, keys[i*L:(i+1)*L])
				require.NoError(t, err)
				want, err := priv.Sign(nil, digests[i], hs[i])
				require.NoError(t, err)
				got, err := ecdsasign.AppendDER(nil, sigs[i])
				require.NoError(t, err)
				require.Equal(t, hexOf(want), hexOf(got), "item %d, %v", i, hs[i])
				require.True(t, ecdsa.VerifyASN1(&priv.PublicKey, digests[i], got), "item %d", i)
			}
		})
	}
}

// TestLowSAndHedgedVerify signs random digests with low-s and with hedged
// nonces on P-224 and P-256: every signature verifies with crypto/ecdsa,
// every low-s one has s <= (n − 1)/2 and is the plain one's s or n − s,
// and a hedged one differs from the deterministic one.
func TestLowSAndHedgedVerify(t *testing.T) {
	const count = 20
	for c, sc := range stdCurves {
		t.Run(c.Name(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(2, uint64(c.ByteLen())))
			keys := randomKeys(rng, c, count)
			digests, _ := randomDigests(rng, count, allHashes)
			plain, _ := signAll(t, c, digests, keys, ecdsasign.Options{})
			low, _ := signAll(t, c, digests, keys, ecdsasign.Options{LowS: true})
			hedged, _ := signAll(t, c, digests, keys, ecdsasign.Options{Randomness: rngReader{rng}})
			L, n := c.ByteLen(), c.N()
			half := new(big.Int).Rsh(n, 1)
			for i := range count {
				priv, err := ecdsa.ParseRawPrivateKey(sc, keys[i*L:(i+1)*L])
				require.NoError(t, err)
				for _, sig := range [][]byte{low[i], hedged[i]} {
					der, err := ecdsasign.AppendDER(nil, sig)
					require.NoError(t, err)
					require.True(t, ecdsa.VerifyASN1(&priv.PublicKey, digests[i], der), "item %d", i)
				}
				s, ls := new(big.Int).SetBytes(plain[i][L:]), new(big.Int).SetBytes(low[i][L:])
				require.LessOrEqual(t, ls.Cmp(half), 0, "item %d: low s", i)
				if s.Cmp(half) > 0 {
					s.Sub(n, s)
				}
				require.Equal(t, s, ls, "item %d", i)
				require.Equal(t, plain[i][:L], low[i][:L], "item %d: r", i)
				require.NotEqual(t, plain[i], hedged[i], "item %d", i)
			}
		})
	}
}

// rngReader reads a math/rand source's bytes.
type rngReader struct{ r *rand.Rand }

func (r rngReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r.r.Uint32())
	}
	return len(p), nil
}
