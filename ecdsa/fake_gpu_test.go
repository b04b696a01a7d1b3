package ecdsa_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	internalengine "github.com/rnsec/ecmul/internal/engine"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
	"github.com/rnsec/ecmul/internal/wycheproof"
)

// TestECDSAWycheproofFakeGPU runs Wycheproof's ECDSA vectors through
// package ecdsa on the gpu backend, its kernel emulated by the CPU twin on
// a fake driver: every outcome is Wycheproof's. Package ecdsa's own tests
// run them on cpu and rns-cpu. The verify kernel judges them (its twin,
// ladder.Setup.VerifyRowsOnHost, on the fake driver): each file's engine,
// on a driver of its own, must have launched it. With -short (the race
// detector's run) it takes one file per curve.
func TestECDSAWycheproofFakeGPU(t *testing.T) {
	seen := map[string]bool{}
	for _, wf := range wycheproof.ECDSAFiles {
		if testing.Short() && seen[wf.Curve.Name()] {
			continue
		}
		seen[wf.Curve.Name()] = true
		t.Run(strings.TrimSuffix(wf.File, "_test.json.gz"), func(t *testing.T) {
			d := fakecuda.New()
			names := recordLaunches(d)
			t.Cleanup(internalengine.UseGPUDriver(d, []byte("fatbin")))
			f, err := wycheproof.LoadECDSA(wycheproof.Path(wf.File))
			require.NoError(t, err)
			e, err := ecmul.New(publicCurve(wf.Curve), ecmul.Options{Backend: ecmul.GPU})
			require.NoError(t, err)
			defer e.Close()
			require.Equal(t, ecmul.GPU, e.Backend())
			n, err := runWycheproof(context.Background(), e, f)
			require.NoError(t, err)
			t.Logf("%s/backend=gpu (fake driver): %v", wf.File, n)
			require.NotEmpty(t, names("ecm_verify_"), "the verify kernel judged the signatures")
		})
	}
}
