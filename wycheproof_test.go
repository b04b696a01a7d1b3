package ecmul_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/wycheproof"
)

// rawUncompressed splits an uncompressed SEC1 encoding into its coordinates
// without validating them, so that the engine's own validation can be put
// to the test.
func rawUncompressed(c *curves.Curve, b []byte) *ecmul.Point {
	if len(b) != 1+2*c.ByteLen() || b[0] != 4 {
		return nil
	}
	return &ecmul.Point{
		X: new(big.Int).SetBytes(b[1 : 1+c.ByteLen()]),
		Y: new(big.Int).SetBytes(b[1+c.ByteLen():]),
	}
}

// wycheproofCounts is what one file did on one backend.
type wycheproofCounts struct {
	validMatched, acceptMatched, acceptRejected, invalidRejected int
	engineRejected                                               int // rejected by the engine itself, from raw coordinates
	sampledOut                                                   int
}

// TestWycheproofECDH runs the Wycheproof ECDH vectors through the Engine on
// the CPU backends. Every valid or acceptable case whose public key
// decodes must give the expected shared secret (the x coordinate of
// private·public); every invalid case must be rejected, while decoding the
// key or by the engine, never computed. The uncompressed points that
// DecodeSEC1 rejects are also handed to the engine as raw coordinates,
// which it must reject with the same sentinel error.
//
// The cpu backend runs every case; rns-cpu (Shenoy) runs every case too
// except with -short, where it computes every 10th valid or acceptable
// case; rns-cpu (Kawamura) always runs that sample.
func TestWycheproofECDH(t *testing.T) {
	type backend struct {
		name   string
		opts   ecmul.Options
		tune   diag.Tuning
		sample bool
	}
	backends := []backend{
		{"cpu", ecmul.Options{Backend: ecmul.CPU}, diag.Tuning{}, false},
		{"rns-cpu", ecmul.Options{Backend: ecmul.RNSCPU}, diag.Tuning{}, testing.Short()},
		{"rns-cpu-kawamura", ecmul.Options{Backend: ecmul.RNSCPU}, diag.Tuning{Extension: diag.Kawamura}, true},
	}
	if gpuPresent() {
		backends = append(backends, backend{"gpu", ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{}, false})
	}
	var table []string
	for _, wf := range wycheproof.ECDHFiles {
		f, err := wycheproof.Load(wycheproof.Path(wf.File))
		require.NoError(t, err)
		fc, err := curves.ByName(f.Curve)
		require.NoError(t, err)
		require.Same(t, wf.Curve, fc, wf.File)
		for _, bk := range backends {
			name := strings.TrimSuffix(wf.File, "_test.json.gz") + "/backend=" + bk.name
			t.Run(name, func(t *testing.T) {
				n := runWycheproof(t, wf.Curve, f, newEngine(t, wf.Curve, bk.opts, bk.tune), bk.sample)
				line := fmt.Sprintf("%-28s %-16s valid matched %3d, acceptable matched %d / rejected %3d, invalid rejected %2d, raw points rejected by the engine %2d, not sampled %3d",
					strings.TrimSuffix(wf.File, ".json.gz"), bk.name, n.validMatched, n.acceptMatched, n.acceptRejected, n.invalidRejected, n.engineRejected, n.sampledOut)
				t.Log(line)
				table = append(table, line)
			})
		}
	}
	t.Logf("Wycheproof ECDH through the Engine:\n%s", strings.Join(table, "\n"))
}

func runWycheproof(t *testing.T, c *curves.Curve, f *wycheproof.File, e *ecmul.Engine, sample bool) wycheproofCounts {
	var n wycheproofCounts
	type pending struct {
		tc  *wycheproof.Case
		raw bool // the point is raw coordinates that DecodeSEC1 rejected with decodeErr
		err error
	}
	var points []*ecmul.Point
	var scalars []*big.Int
	var items []pending
	for i := range f.Cases {
		tc := &f.Cases[i]
		id := fmt.Sprintf("tcId %d (%s, %s, flags %v)", tc.TcID, tc.Result, tc.Comment, tc.Flags)
		if sample && tc.Result != wycheproof.Invalid && i%10 != 0 {
			n.sampledOut++
			continue
		}
		sec1, err := wycheproof.PublicSEC1(c, f.Encoding, tc.Public)
		var p *ecmul.Point
		if err == nil {
			var q *curves.Point
			q, err = c.DecodeSEC1(sec1)
			p = ep(q)
		}
		if err != nil {
			switch tc.Result {
			case wycheproof.Valid:
				t.Fatalf("%s: public key rejected: %v", id, err)
			case wycheproof.Acceptable:
				n.acceptRejected++
			case wycheproof.Invalid:
				n.invalidRejected++
			}
			if raw := rawUncompressed(c, sec1); raw != nil && isPointError(err) {
				points, scalars = append(points, raw), append(scalars, tc.Private)
				items = append(items, pending{tc: tc, raw: true, err: err})
			}
			continue
		}
		points, scalars = append(points, p), append(scalars, tc.Private)
		items = append(items, pending{tc: tc})
	}

	res, err := scalarMult(e, context.Background(), points, scalars)
	require.NoError(t, err)
	require.Len(t, res, len(items))
	for i, it := range items {
		tc, r := it.tc, res[i]
		id := fmt.Sprintf("tcId %d (%s, %s, flags %v)", tc.TcID, tc.Result, tc.Comment, tc.Flags)
		if it.raw {
			require.Error(t, r.Err, "%s: the engine computed a point that DecodeSEC1 rejects (%v)", id, it.err)
			for _, s := range []error{curves.ErrNotOnCurve, curves.ErrCoordinateRange, curves.ErrInfinity} {
				require.Equal(t, errors.Is(it.err, s), errors.Is(r.Err, s), "%s: engine: %v; DecodeSEC1: %v", id, r.Err, it.err)
			}
			n.engineRejected++
			continue
		}
		if tc.Result == wycheproof.Invalid {
			t.Fatalf("%s: invalid public key accepted; engine result %+v", id, r)
		}
		require.NoError(t, r.Err, id)
		require.False(t, r.Infinity, "%s: shared point at infinity", id)
		shared := r.X.FillBytes(make([]byte, c.ByteLen()))
		require.True(t, bytes.Equal(tc.Shared, shared), "%s: shared secret %x, want %x", id, shared, tc.Shared)
		if tc.Result == wycheproof.Valid {
			n.validMatched++
		} else {
			n.acceptMatched++
		}
	}
	return n
}

// isPointError reports a rejection of the point itself, as opposed to its
// encoding.
func isPointError(err error) bool {
	return errors.Is(err, curves.ErrNotOnCurve) || errors.Is(err, curves.ErrCoordinateRange) || errors.Is(err, curves.ErrInfinity)
}
