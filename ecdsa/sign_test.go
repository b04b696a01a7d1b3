package ecdsa_test

import (
	"context"
	"crypto"
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"math/big"
	"math/rand/v2"
	"testing"

	gnarkecdsa "github.com/consensys/gnark-crypto/ecc/secp256k1/ecdsa"
	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/ecdsa"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/textbook"
)

// TestSignVerifies signs random digests of every hash size with random
// keys through Sign, s low and as computed, with k·G on the cpu and
// rns-cpu backends' combs:
// every signature verifies with Verify on the cpu backend, with
// crypto/ecdsa on P-224 and P-256, and the low-s ones with gnark-crypto
// on secp256k1 (which refuses a high s).
func TestSignVerifies(t *testing.T) {
	for _, c := range curves.All() {
		for _, b := range backends {
			t.Run(c.Name()+"/backend="+b.String(), func(t *testing.T) { signVerifies(t, c, b) })
		}
	}
}

func signVerifies(t *testing.T, c *curves.Curve, b ecmul.Backend) {
	const count = 20
	e := engine(t, publicCurve(c), b)
	v := engine(t, publicCurve(c), ecmul.CPU)
	keys, pubs, digests := signItems(c, count)
	L := c.ByteLen()
	for _, lowS := range []bool{false, true} {
		sigs := make([]byte, count*2*L)
		errs := make([]error, count)
		rule := map[bool]ecdsa.LowS{false: ecdsa.LowSOff, true: ecdsa.LowSOn}[lowS]
		require.NoError(t, ecdsa.Sign(context.Background(), e, sigs, errs, digests, keys, ecdsa.SignOptions{LowS: rule}))
		for i := range count {
			require.NoError(t, errs[i])
		}
		verdicts := make([]ecdsa.Verdict, count)
		require.NoError(t, ecdsa.Verify(context.Background(), v, verdicts, digests, sigs, pubs))
		for i, vd := range verdicts {
			require.Equal(t, ecdsa.Valid, vd, "item %d, low s %v", i, lowS)
			if c == curves.Secp256k1() && !lowS {
				continue // gnark-crypto refuses high s
			}
			require.True(t, otherVerify(t, c, pubs[i*(1+2*L):(i+1)*(1+2*L)], digests[i], sigs[i*2*L:(i+1)*2*L]), "item %d", i)
		}
	}
}

// signItems returns count random private keys in [1, n − 1], their
// public keys (uncompressed SEC1, from internal/textbook) and digests of
// the five hashes' sizes in turn.
func signItems(c *curves.Curve, count int) (keys, pubs []byte, digests [][]byte) {
	hashes := []crypto.Hash{crypto.SHA1, crypto.SHA224, crypto.SHA256, crypto.SHA384, crypto.SHA512}
	rng := rand.New(rand.NewPCG(41, uint64(c.ByteLen())))
	L, n := c.ByteLen(), c.N()
	digests = make([][]byte, count)
	for i := range count {
		b := make([]byte, L+8)
		cryptoRand{rng}.Read(b)
		d := new(big.Int).Mod(new(big.Int).SetBytes(b), new(big.Int).Sub(n, big.NewInt(1)))
		d.Add(d, big.NewInt(1))
		keys = append(keys, d.FillBytes(make([]byte, L))...)
		pubs = append(pubs, c.EncodeSEC1(textbook.Mul(c, c.Generator(), d), false)...)
		h := hashes[i%len(hashes)].New()
		h.Write(b)
		digests[i] = h.Sum(nil)
	}
	return keys, pubs, digests
}

// otherVerify verifies r‖s with crypto/ecdsa (NIST curves, from its DER
// form) or gnark-crypto (secp256k1).
func otherVerify(t *testing.T, c *curves.Curve, pub, digest, sig []byte) bool {
	switch c {
	case curves.Secp256k1():
		var pk gnarkecdsa.PublicKey
		_, err := pk.SetBytes(pub[1:])
		require.NoError(t, err)
		if len(digest) > 32 {
			digest = digest[:32] // gnark-crypto takes the message as the digest, whole
		}
		ok, err := pk.Verify(sig, digest, nil)
		require.NoError(t, err)
		return ok
	}
	std := map[*curves.Curve]elliptic.Curve{curves.P224(): elliptic.P224(), curves.P256(): elliptic.P256()}[c]
	pk, err := stdecdsa.ParseUncompressedPublicKey(std, pub)
	require.NoError(t, err)
	der, err := ecdsa.AppendDER(nil, sig, publicCurve(c))
	require.NoError(t, err)
	return stdecdsa.VerifyASN1(pk, digest, der)
}
