package ecdsa_test

import (
	"context"
	"crypto/sha256"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/ecdsa"
	"github.com/rnsec/ecmul/internal/curves"
	internalengine "github.com/rnsec/ecmul/internal/engine"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
)

// TestSignNeverRunsVarTimeComb signs a batch on the gpu backend, its
// kernel emulated on a fake driver, and records the kernels launched: k·G
// runs on the constant-time comb ("_comb_"), never on the variable-time
// one ("_combvt_"), which reads a row at the secret digit's address.
// Verify on the same engine launches the variable-time comb, so the
// recording would see it.
func TestSignNeverRunsVarTimeComb(t *testing.T) {
	d := fakecuda.New()
	names := recordLaunches(d)
	t.Cleanup(internalengine.UseGPUDriver(d, []byte("fatbin")))
	c := curves.P256()
	e, err := ecmul.New(publicCurve(c), ecmul.Options{Backend: ecmul.GPU})
	require.NoError(t, err)
	defer e.Close()

	const count = 4
	keys, pubs, digests := signItems(c, count)
	L := c.ByteLen()
	sigs := make([]byte, count*2*L)
	errs := make([]error, count)
	require.NoError(t, ecdsa.Sign(context.Background(), e, sigs, errs, digests, keys, ecdsa.SignOptions{}))
	for i, err := range errs {
		require.NoError(t, err, "item %d", i)
	}
	require.NotEmpty(t, names("_comb_"), "Sign's k·G on the constant-time comb")
	require.Empty(t, names("_combvt_"), "Sign launched the variable-time comb")

	verdicts := make([]ecdsa.Verdict, count)
	require.NoError(t, ecdsa.Verify(context.Background(), e, verdicts, digests, sigs, pubs))
	for i, v := range verdicts {
		require.Equal(t, ecdsa.Valid, v, "item %d", i)
	}
	require.NotEmpty(t, names("_combvt_"), "Verify's u1·G on the variable-time comb")
}

// TestSignGPU signs batches on the gpu backend of a fake driver, every
// batch large enough for the signing batch's wire kernels
// (internalengine.ItemKernelsFrom), which derive the nonces and make the
// signatures (their twins): with SHA-256 digests the signatures are the
// cpu backend's, byte for byte (RFC 6979 is deterministic), low-s on
// secp256k1 as there; a batch with other digests, or hedged, derives its
// nonces on the host and still verifies. The test fails unless the sign
// unpack kernel ran.
func TestSignGPU(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			t.Cleanup(internalengine.ItemKernelsFrom(1))
			e := fakeGPU(t, publicCurve(c), "ecm_signunpack_", 0)
			cpu := engine(t, publicCurve(c), ecmul.CPU)
			const count = 11
			keys, pubs, mixed := signItems(c, count)
			L := c.ByteLen()
			digests := make([][]byte, count) // SHA-256's length: nonces on the GPU
			for i := range digests {
				d := sha256.Sum256(mixed[i])
				digests[i] = d[:]
			}
			sign := func(e *ecmul.Engine, digests [][]byte, opts ecdsa.SignOptions) []byte {
				sigs, errs := make([]byte, count*2*L), make([]error, count)
				require.NoError(t, ecdsa.Sign(context.Background(), e, sigs, errs, digests, keys, opts))
				for i, err := range errs {
					require.NoError(t, err, "item %d", i)
				}
				return sigs
			}
			require.Equal(t, sign(cpu, digests, ecdsa.SignOptions{}), sign(e, digests, ecdsa.SignOptions{}))

			long := make([][]byte, count) // SHA-512's length: nonces on the host
			for i := range long {
				long[i] = append(append([]byte(nil), digests[i]...), digests[i]...)
			}
			require.Equal(t, sign(cpu, long, ecdsa.SignOptions{}), sign(e, long, ecdsa.SignOptions{}))
			hedged := sign(e, digests, ecdsa.SignOptions{Hedged: true})
			for i := range count {
				require.True(t, otherVerify(t, c, pubs[i*(1+2*L):(i+1)*(1+2*L)], digests[i], hedged[i*2*L:(i+1)*2*L]), "hedged item %d", i)
			}
		})
	}
}
