package curves_test

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/wycheproof"
)

// decodePublic turns a test's public key into a validated point.
func decodePublic(c *curves.Curve, encoding string, public []byte) (*curves.Point, error) {
	sec1, err := wycheproof.PublicSEC1(c, encoding, public)
	if err != nil {
		return nil, err
	}
	return c.DecodeSEC1(sec1)
}

// ecdh returns the shared secret: the x coordinate of private·public as
// ByteLen big-endian bytes.
func ecdh(c *curves.Curve, encoding string, tc *wycheproof.Case) ([]byte, error) {
	p, err := decodePublic(c, encoding, tc.Public)
	if err != nil {
		return nil, err
	}
	x, _, ok, err := c.ReferenceScalarMult(p.X, p.Y, tc.Private)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("shared point is the point at infinity")
	}
	return x.FillBytes(make([]byte, c.ByteLen())), nil
}

// rejectionKind names the class of error that rejected a case.
func rejectionKind(err error) string {
	for _, s := range []error{curves.ErrEncoding, curves.ErrInfinity, curves.ErrCoordinateRange, curves.ErrNotOnCurve} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	if strings.Contains(err.Error(), "public key is on") {
		return "wrong curve OID"
	}
	return "SPKI rejected"
}

func summary(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// TestWycheproofECDH runs the ECDH vectors through DecodeSEC1 (after
// ParseSPKI for the ASN files) and ReferenceScalarMult. Valid cases must give
// the expected shared secret; invalid cases must all be rejected while
// decoding the public key; acceptable cases may be rejected, but when
// accepted must give the expected secret. With -short, only every 10th valid
// case is computed.
func TestWycheproofECDH(t *testing.T) {
	for _, wf := range wycheproof.ECDHFiles {
		c := wf.Curve
		t.Run(c.Name()+"/"+strings.TrimSuffix(wf.File, ".json.gz"), func(t *testing.T) {
			f, err := wycheproof.Load(wycheproof.Path(wf.File))
			require.NoError(t, err)
			fc, err := curves.ByName(f.Curve)
			require.NoError(t, err)
			require.Same(t, c, fc)

			var validMatched, invalidRejected, acceptAccepted, acceptRejected, skipped int
			invalidReasons := map[string]int{}
			acceptReasons := map[string]int{}
			for i := range f.Cases {
				tc := &f.Cases[i]
				if testing.Short() && tc.Result == wycheproof.Valid && i%10 != 0 {
					skipped++
					continue
				}
				shared, err := ecdh(c, f.Encoding, tc)
				id := fmt.Sprintf("tcId %d (%s, flags %v)", tc.TcID, tc.Comment, tc.Flags)
				switch tc.Result {
				case wycheproof.Valid:
					require.NoError(t, err, id)
					require.Equal(t, tc.Shared, shared, id)
					validMatched++
				case wycheproof.Acceptable:
					if err != nil {
						acceptRejected++
						acceptReasons[strings.Join(tc.Flags, "+")+" → "+rejectionKind(err)]++
						continue
					}
					require.Equal(t, tc.Shared, shared, id)
					acceptAccepted++
				case wycheproof.Invalid:
					require.Error(t, err, "%s: invalid case accepted", id)
					invalidRejected++
					invalidReasons[strings.Join(tc.Flags, "+")+" → "+rejectionKind(err)]++
				}
			}
			t.Logf("%s (%s, %d cases): valid matched %d, invalid rejected %d, acceptable accepted %d / rejected %d, skipped (-short) %d",
				wf.File, f.Encoding, len(f.Cases), validMatched, invalidRejected, acceptAccepted, acceptRejected, skipped)
			t.Logf("invalid rejections: %s", summary(invalidReasons))
			if len(acceptReasons) > 0 {
				t.Logf("acceptable rejections: %s", summary(acceptReasons))
			}
		})
	}
}
