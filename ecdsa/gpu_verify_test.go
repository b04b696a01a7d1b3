package ecdsa_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/ecdsa"
	"github.com/rnsec/ecmul/internal/curves"
	internalengine "github.com/rnsec/ecmul/internal/engine"
)

// deviceEngine returns an engine of c on a real GPU, closed when t ends;
// it skips t where there is none.
func deviceEngine(t *testing.T, c *curves.Curve) *ecmul.Engine {
	t.Helper()
	e, err := ecmul.New(publicCurve(c), ecmul.Options{Backend: ecmul.GPU})
	if errors.Is(err, ecmul.ErrNoDevice) {
		t.Skip("no GPU")
	}
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	return e
}

// TestGPUVerifyKernel verifies a batch of 40,000 signatures, large enough
// for a verify batch as bytes, on the gpu backend where there is a GPU:
// signed on the engine, a fifth of them left valid and the others spoiled
// (another digest, another r, a key off the curve, a key of another
// prefix). The verify kernel's verdicts and the host's sums' must both be
// the ones expected, item by item, with u1·G computed in the verify
// kernel's chunks (never on the host) and on its own.
func TestGPUVerifyKernel(t *testing.T) {
	const count = 40000
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			e := deviceEngine(t, c)
			digests, sigs, keys, want := spoiledBatch(t, e, c, count)
			require.True(t, internalengine.Unwrap[*ecmul.Engine](e).VerifiesWithBase(count, 1+2*c.ByteLen()),
				"u1·G computed in the verify kernel's chunks")
			for _, v := range []struct{ kernel, withBase bool }{{true, true}, {true, false}, {false, true}} {
				restore, restoreBase := ecdsa.SetGPUVerify(v.kernel), ecdsa.SetGPUWithBase(v.withBase)
				verdicts := make([]ecdsa.Verdict, count)
				err := ecdsa.Verify(context.Background(), e, verdicts, digests, sigs, keys)
				restore()
				restoreBase()
				require.NoError(t, err)
				for i := range want {
					require.Equal(t, want[i], verdicts[i], "verify kernel %v, u1·G in its chunks %v, item %d", v.kernel, v.withBase, i)
				}
			}
		})
	}
}

// randomSecrets returns count private keys of c in [1, n − 1], L bytes
// each, from a generator seeded with seed.
func randomSecrets(c *curves.Curve, count int, seed uint64) []byte {
	L := c.ByteLen()
	rng := rand.New(rand.NewPCG(seed, 67))
	secrets := make([]byte, count*L)
	nm1 := new(big.Int).Sub(c.N(), big.NewInt(1))
	wide := make([]byte, L+8)
	for i := range count {
		for j := range wide {
			wide[j] = byte(rng.Uint32())
		}
		k := new(big.Int).SetBytes(wide)
		k.Mod(k, nm1).Add(k, big.NewInt(1)).FillBytes(secrets[i*L : (i+1)*L])
	}
	return secrets
}

// spoiledBatch signs count random digests under random keys on e and
// spoils four items in five, returning the batch and each item's verdict.
func spoiledBatch(t *testing.T, e *ecmul.Engine, c *curves.Curve, count int) (digests [][]byte, sigs, keys []byte, want []ecdsa.Verdict) {
	ctx := context.Background()
	L, size := c.ByteLen(), 1+2*c.ByteLen()
	rng := rand.New(rand.NewPCG(62, 67))
	secrets := randomSecrets(c, count, 61)
	keys = make([]byte, count*size)
	status := make([]ecmul.Status, count)
	require.NoError(t, e.ScalarBaseMultBytes(ctx, keys, status, secrets))
	digests = make([][]byte, count)
	for i := range digests {
		digests[i] = make([]byte, 32)
		for j := range digests[i] {
			digests[i][j] = byte(rng.Uint32())
		}
	}
	sigs = make([]byte, count*2*L)
	errs := make([]error, count)
	require.NoError(t, ecdsa.Sign(ctx, e, sigs, errs, digests, secrets, ecdsa.SignOptions{}))
	want = make([]ecdsa.Verdict, count)
	for i := range count {
		require.NoError(t, errs[i], "item %d", i)
		key, sig := keys[i*size:(i+1)*size], sigs[i*2*L:(i+1)*2*L]
		switch i % 5 {
		case 0:
			want[i] = ecdsa.Valid
		case 1:
			digests[i][0] ^= 1
			want[i] = ecdsa.Invalid
		case 2:
			r := new(big.Int).SetBytes(sig[:L])
			r.Add(r, big.NewInt(1)).Mod(r, c.N()).FillBytes(sig[:L])
			want[i] = ecdsa.Invalid
		case 3:
			key[size-1] ^= 1
			want[i] = ecdsa.KeyNotOnCurve
		default:
			key[0] = 5
			want[i] = ecdsa.KeyBadEncoding
		}
	}
	return digests, sigs, keys, want
}

// TestGPUSign signs 40,000 SHA-256 digests, a batch large enough for the
// signing batch's wire kernels, on the gpu backend where there is a GPU:
// signed on the GPU, nonces included, the signatures are the ones the
// host's DRBG and finish give on the same engine, byte for byte, and every
// hundredth verifies with another implementation.
func TestGPUSign(t *testing.T) {
	const count = 40000
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			e := deviceEngine(t, c)
			L, size := c.ByteLen(), 1+2*c.ByteLen()
			secrets, digests := randomSecrets(c, count, 89), make([][]byte, count)
			for i := range digests {
				d := sha256.Sum256(secrets[i*L : (i+1)*L])
				digests[i] = d[:]
			}
			var sigs [2][]byte
			for j, gpu := range []bool{true, false} {
				restore := ecdsa.SetGPUSign(gpu)
				sigs[j] = make([]byte, count*2*L)
				errs := make([]error, count)
				require.NoError(t, ecdsa.Sign(context.Background(), e, sigs[j], errs, digests, secrets, ecdsa.SignOptions{}))
				restore()
				for i, err := range errs {
					require.NoError(t, err, "signed on the GPU %v, item %d", gpu, i)
				}
			}
			require.Equal(t, sigs[1], sigs[0], "the host's DRBG's signatures")
			pubs := make([]byte, count*size)
			require.NoError(t, e.ScalarBaseMultBytes(context.Background(), pubs, make([]ecmul.Status, count), secrets))
			for i := 0; i < count; i += 100 {
				require.True(t, otherVerify(t, c, pubs[i*size:(i+1)*size], digests[i], sigs[0][i*2*L:(i+1)*2*L]), "item %d", i)
			}
		})
	}
}
