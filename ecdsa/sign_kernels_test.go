package ecdsa_test

import (
	"context"
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
