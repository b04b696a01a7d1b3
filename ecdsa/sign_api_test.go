package ecdsa_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto"
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"encoding/hex"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/ecdsa"
	"github.com/rnsec/ecmul/internal/curves"
)

// stdCurves are crypto/ecdsa's curves of the NIST curves.
var stdCurves = map[*curves.Curve]elliptic.Curve{curves.P224(): elliptic.P224(), curves.P256(): elliptic.P256()}

// signBatch calls Sign, on a signature buffer that holds other bytes
// before (as a caller's reused one does), and returns its signatures and
// item errors.
func signBatch(t *testing.T, e *ecmul.Engine, digests [][]byte, keys []byte, opts ecdsa.SignOptions) ([]byte, []error) {
	t.Helper()
	sigs := bytes.Repeat([]byte{0xa5}, len(digests)*2*e.Curve().ByteLen())
	errs := make([]error, len(digests))
	require.NoError(t, ecdsa.Sign(context.Background(), e, sigs, errs, digests, keys, opts))
	return sigs, errs
}

// TestSignAPI signs random digests of every hash size with random keys on
// every curve, k·G on the cpu and rns-cpu backends, among items that must
// fail (a key of 0, a key of n, a digest of 31 bytes): each bad item gets
// its own error, naming it and matching its sentinel, and a zero
// signature; every other signature verifies with Verify on the same
// backend and, on P-224 and P-256, with crypto/ecdsa, where it is also
// crypto/ecdsa's deterministic signature byte for byte. s is low on
// secp256k1 by default and with LowSOn everywhere; hedged signatures
// verify and differ from the deterministic ones.
func TestSignAPI(t *testing.T) {
	for _, c := range curves.All() {
		for _, b := range backends {
			t.Run(c.Name()+"/backend="+b.String(), func(t *testing.T) { signAPI(t, c, b) })
		}
	}
}

func signAPI(t *testing.T, c *curves.Curve, b ecmul.Backend) {
	const count = 10
	e := engine(t, publicCurve(c), b)
	L := c.ByteLen()
	keys, pubs, digests := signItems(c, count)
	// the bad items: 3 (key 0), 5 (key n), 7 (a digest of 31 bytes)
	bad := map[int]error{3: ecdsa.ErrPrivateKey, 5: ecdsa.ErrPrivateKey, 7: ecdsa.ErrDigestLength}
	clear(keys[3*L : 4*L])
	c.N().FillBytes(keys[5*L : 6*L])
	digests[7] = digests[7][:31]
	half := new(big.Int).Rsh(c.N(), 1)
	for _, opts := range []ecdsa.SignOptions{{}, {LowS: ecdsa.LowSOn}, {LowS: ecdsa.LowSOff}, {Hedged: true}, {Hash: crypto.SHA512, LowS: ecdsa.LowSOff}} {
		sigs, errs := signBatch(t, e, digests, keys, opts)
		verdicts := make([]ecdsa.Verdict, count)
		require.NoError(t, ecdsa.Verify(context.Background(), e, verdicts, digests, sigs, pubs))
		highS := 0
		for i := range count {
			sig := sigs[i*2*L : (i+1)*2*L]
			want := bad[i]
			if opts.Hash == crypto.SHA512 && len(digests[i]) != 64 {
				want = ecdsa.ErrDigestLength
			}
			if want != nil {
				require.ErrorIs(t, errs[i], want, "item %d, %+v", i, opts)
				require.True(t, strings.HasPrefix(errs[i].Error(), fmt.Sprintf("ecdsa: item %d: ", i)), "%v", errs[i])
				require.Equal(t, make([]byte, 2*L), sig, "item %d", i)
				continue
			}
			require.NoError(t, errs[i], "item %d, %+v", i, opts)
			require.Equal(t, ecdsa.Valid, verdicts[i], "item %d, %+v", i, opts)
			s := new(big.Int).SetBytes(sig[L:])
			if s.Cmp(half) > 0 {
				highS++
			}
			lowS := opts.LowS == ecdsa.LowSOn || opts.LowS == ecdsa.LowSDefault && c == curves.Secp256k1()
			require.False(t, lowS && s.Cmp(half) > 0, "item %d: s above n/2, %+v", i, opts)
			if std, ok := stdCurves[c]; ok {
				pk, err := stdecdsa.ParseUncompressedPublicKey(std, pubs[i*(1+2*L):(i+1)*(1+2*L)])
				require.NoError(t, err)
				der, err := ecdsa.AppendDER(nil, sig, publicCurve(c))
				require.NoError(t, err)
				require.True(t, stdecdsa.VerifyASN1(pk, digests[i], der), "item %d, %+v", i, opts)
				if !opts.Hedged && opts.LowS != ecdsa.LowSOn {
					priv, err := stdecdsa.ParseRawPrivateKey(std, keys[i*L:(i+1)*L])
					require.NoError(t, err)
					h := opts.Hash
					if h == 0 {
						h = map[int]crypto.Hash{20: crypto.SHA1, 28: crypto.SHA224, 32: crypto.SHA256, 48: crypto.SHA384, 64: crypto.SHA512}[len(digests[i])]
					}
					want, err := priv.Sign(nil, digests[i], h)
					require.NoError(t, err)
					require.Equal(t, want, der, "item %d, %+v: crypto/ecdsa's deterministic signature", i, opts)
				}
			}
		}
		if opts.LowS == ecdsa.LowSOff {
			require.Positive(t, highS, "%+v: the seeded items have a high s, which LowSOff keeps", opts)
		}
	}
	det, _ := signBatch(t, e, digests, keys, ecdsa.SignOptions{})
	hedged, _ := signBatch(t, e, digests, keys, ecdsa.SignOptions{Hedged: true})
	require.NotEqual(t, det[:2*L], hedged[:2*L])
}

// TestSignSecp256k1Python: Sign's deterministic signatures on secp256k1
// are python-ecdsa's (testdata/rfc6979), s low by default and as computed
// with LowSOff, on the cpu and rns-cpu backends.
func TestSignSecp256k1Python(t *testing.T) {
	f, err := os.Open("../testdata/rfc6979/secp256k1.txt")
	require.NoError(t, err)
	defer f.Close()
	var digests [][]byte
	var keys, low, high []byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		x := strings.Fields(sc.Text())
		if len(x) != 9 || x[3] != "-" {
			continue // the comment, and hedged items
		}
		d, _ := hex.DecodeString(x[2])
		k, _ := hex.DecodeString(x[1])
		r, _ := hex.DecodeString(x[5])
		s, _ := hex.DecodeString(x[6])
		sl, _ := hex.DecodeString(x[7])
		digests = append(digests, d)
		keys = append(keys, k...)
		high = append(append(high, r...), s...)
		low = append(append(low, r...), sl...)
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, digests)
	require.NotEqual(t, low, high)
	for _, b := range backends {
		e := engine(t, ecmul.Secp256k1(), b)
		sigs, errs := signBatch(t, e, digests, keys, ecdsa.SignOptions{})
		require.Equal(t, make([]error, len(digests)), errs)
		require.Equal(t, low, sigs, "backend %s, low s", b)
		sigs, _ = signBatch(t, e, digests, keys, ecdsa.SignOptions{LowS: ecdsa.LowSOff})
		require.Equal(t, high, sigs, "backend %s, s as computed", b)
	}
}

// TestSignBatchErrors: a call that fails as a whole returns its error,
// leaves every signature zero and every item an error.
func TestSignBatchErrors(t *testing.T) {
	e := engine(t, ecmul.P256(), ecmul.CPU)
	keys, _, digests := signItems(curves.P256(), 2)
	sigs := make([]byte, 2*64)
	errs := make([]error, 2)
	ctx := context.Background()
	require.ErrorIs(t, ecdsa.Sign(ctx, e, sigs[:64], errs, digests, keys, ecdsa.SignOptions{}), ecmul.ErrBatchLayout)
	require.ErrorIs(t, ecdsa.Sign(ctx, e, sigs, errs[:1], digests, keys, ecdsa.SignOptions{}), ecmul.ErrBatchLayout)
	require.ErrorIs(t, ecdsa.Sign(ctx, e, sigs, errs, digests, keys[1:], ecdsa.SignOptions{}), ecmul.ErrBatchLayout)
	require.ErrorContains(t, ecdsa.Sign(ctx, e, sigs, errs, digests, keys, ecdsa.SignOptions{Hash: crypto.MD5}), "ecdsa: unsupported hash")
	require.ErrorContains(t, ecdsa.Sign(ctx, e, sigs, errs, digests, keys, ecdsa.SignOptions{LowS: 9}), "ecdsa: unknown LowS")
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	require.ErrorIs(t, ecdsa.Sign(canceled, e, sigs, errs, digests, keys, ecdsa.SignOptions{}), context.Canceled)
	require.Equal(t, make([]byte, len(sigs)), sigs)
	for i, err := range errs {
		require.ErrorContains(t, err, fmt.Sprintf("ecdsa: item %d: not signed", i))
	}
	require.NoError(t, ecdsa.Sign(ctx, e, nil, nil, nil, nil, ecdsa.SignOptions{}))
	closed := engine(t, ecmul.P256(), ecmul.CPU)
	closed.Close()
	require.ErrorIs(t, ecdsa.Sign(ctx, closed, sigs, errs, digests, keys, ecdsa.SignOptions{}), ecmul.ErrClosed)
	require.ErrorIs(t, ecdsa.Sign(ctx, closed, nil, nil, nil, nil, ecdsa.SignOptions{}), ecmul.ErrClosed)
}

// TestAppendDER: AppendDER is ParseDER's inverse on Sign's r‖s, minimal
// DER for leading zero bytes and high bits, and refuses a sig of another
// length.
func TestAppendDER(t *testing.T) {
	c := ecmul.P224()
	for _, sig := range [][]byte{
		append(make([]byte, 27), append([]byte{1}, append(make([]byte, 27), 2)...)...),
		bytes.Repeat([]byte{0xff}, 56),
		append(bytes.Repeat([]byte{0x7f}, 28), bytes.Repeat([]byte{0x80}, 28)...),
	} {
		der, err := ecdsa.AppendDER([]byte{9}, sig, c)
		require.NoError(t, err)
		require.Equal(t, byte(9), der[0])
		rs, err := ecdsa.ParseDER(der[1:], c)
		require.NoError(t, err)
		require.Equal(t, sig, rs)
	}
	_, err := ecdsa.AppendDER(nil, make([]byte, 64), c)
	require.ErrorIs(t, err, ecdsa.ErrInvalidSignature)
}
