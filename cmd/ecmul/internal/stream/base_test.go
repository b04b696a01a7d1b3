package stream_test

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/internal/curves"
)

// baseScalars are scalars of every kind base takes: the edge scalars 0, 1,
// n−1, n, n+1 and 2^(8L)−1, 512-bit ones, and random ones, in L bytes when
// raw (which takes L bytes).
func baseScalars(c *curves.Curve, raw bool, seed int64) []*big.Int {
	one := big.NewInt(1)
	L := c.ByteLen()
	top := new(big.Int).Lsh(one, uint(8*L))
	ks := []*big.Int{big.NewInt(0), one, new(big.Int).Sub(c.N(), one), c.N(), new(big.Int).Add(c.N(), one), new(big.Int).Sub(top, one)}
	rng := rand.New(rand.NewSource(seed))
	for range 6 {
		ks = append(ks, new(big.Int).Rand(rng, top))
	}
	if !raw {
		wide := new(big.Int).Lsh(one, 512)
		ks = append(ks, new(big.Int).Sub(wide, one), new(big.Int).Rand(rng, wide), new(big.Int).Mul(c.N(), big.NewInt(12345)))
	}
	return ks
}

// baseInputs returns the input of base for ks in format f, and the input
// of mul with G as every item's point.
func baseInputs(c *curves.Curve, f stream.Format, ks []*big.Int) (base, mul string) {
	L := c.ByteLen()
	gx, gy := fmt.Sprintf("%0*x", 2*L, c.Gx()), fmt.Sprintf("%0*x", 2*L, c.Gy())
	var b, m strings.Builder
	for i, k := range ks {
		h := k.Text(16)
		if i%3 == 1 {
			h = "0x" + strings.ToUpper(h) // any case, with or without 0x
		}
		switch f {
		case stream.Raw:
			b.Write(k.FillBytes(make([]byte, L)))
			m.Write(k.FillBytes(make([]byte, L)))
			m.Write(c.Gx().FillBytes(make([]byte, L)))
			m.Write(c.Gy().FillBytes(make([]byte, L)))
		case stream.JSONL:
			fmt.Fprintf(&b, "{\"scalar\":%q}\n", h)
			fmt.Fprintf(&m, "{\"scalar\":%q,\"x\":%q,\"y\":%q}\n", h, gx, gy)
		case stream.SEC1:
			fmt.Fprintf(&b, "%s\n", h)
			fmt.Fprintf(&m, "%s 04%s%s\n", h, gx, gy)
		default:
			fmt.Fprintf(&b, "%s\n", h)
			fmt.Fprintf(&m, "%s %s %s\n", h, gx, gy)
		}
	}
	return b.String(), m.String()
}

func cpuEngine(t *testing.T, c *curves.Curve) *ecmul.Engine {
	t.Helper()
	pc, err := ecmul.ParseCurve(c.Name())
	require.NoError(t, err)
	eng, err := ecmul.New(pc, ecmul.Options{Backend: ecmul.CPU})
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	return eng
}

// TestMulBase: with Base, every format's answer to a scalar alone is mul's
// answer to that scalar with G as the point, x-only or not, across chunks,
// and the hex lines are the reference's k·G (infinity for k ≡ 0 mod n).
func TestMulBase(t *testing.T) {
	for _, c := range curves.All() {
		eng := cpuEngine(t, c)
		for _, f := range append(stream.LineFormats, stream.Raw) {
			for _, xOnly := range []bool{false, true} {
				name := fmt.Sprintf("%s/%s/x-only=%v", c.Name(), f, xOnly)
				ks := baseScalars(c, f == stream.Raw, 5)
				base, mul := baseInputs(c, f, ks)
				var got, want bytes.Buffer
				sum, err := stream.Mul(context.Background(), eng, strings.NewReader(base), &got, stream.Options{Format: f, XOnly: xOnly, Chunk: 4, Base: true})
				require.NoError(t, err, name)
				require.Equal(t, stream.Summary{Items: len(ks)}, sum, name)
				_, err = stream.Mul(context.Background(), eng, strings.NewReader(mul), &want, stream.Options{Format: f, XOnly: xOnly})
				require.NoError(t, err, name)
				require.Equal(t, want.String(), got.String(), name)
				if f != stream.Hex || xOnly {
					continue
				}
				lines := strings.Split(strings.TrimSuffix(got.String(), "\n"), "\n")
				require.Len(t, lines, len(ks), name)
				for i, k := range ks {
					x, y, ok, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), k)
					require.NoError(t, err)
					w := "infinity"
					if ok {
						w = fmt.Sprintf("%0*x %0*x", 2*c.ByteLen(), x, 2*c.ByteLen(), y)
					}
					require.Equal(t, w, lines[i], "%s: k = %x", name, k)
				}
			}
		}
	}
}

// TestMulBaseErrors: a line that is not one scalar gets its own error with
// its line number, blank lines counted, and the other lines their answers;
// raw's partial record is a failed item, its reason on ErrOut under base's
// name.
func TestMulBaseErrors(t *testing.T) {
	c := curves.P224()
	eng := cpuEngine(t, c)
	g := fmt.Sprintf("%0*x %0*x", 56, c.Gx(), 56, c.Gy())
	tooWide := "1" + strings.Repeat("0", 128)
	for _, tc := range []struct {
		f        stream.Format
		in, want string
	}{
		{stream.Hex, "1\n\n1 2\nzz\n" + tooWide + "\n" + fmt.Sprintf("%x", c.N()) + "\n",
			g + "\nerror: line 3: want 1 field (SCALAR_HEX), got 2\nerror: line 4: scalar is not hexadecimal: invalid character at offset 0\n" +
				"error: line 5: scalar exceeds 512 bits\ninfinity\n"},
		{stream.SEC1, "1\t2\n0x\n", "error: line 1: want 1 field (SCALAR_HEX), got 2\nerror: line 2: scalar is not hexadecimal: no digits\n"},
		{stream.JSONL, `{"scalar":"1","x":"2"}` + "\n" + `{"scalar":1}` + "\n" + `{}` + "\n" + `[1]` + "\n" + `{"scalar":"0"}` + "\n",
			`{"error":"line 1: unknown key \"x\" (want scalar)"}` + "\n" + `{"error":"line 2: the value of \"scalar\" is not a string of hex"}` + "\n" +
				`{"error":"line 3: key \"scalar\" is missing"}` + "\n" + `{"error":"line 4: not a JSON object (want {\"scalar\":\"HEX\"})"}` + "\n" + `{"infinity":true}` + "\n"},
	} {
		var out bytes.Buffer
		sum, err := stream.Mul(context.Background(), eng, strings.NewReader(tc.in), &out, stream.Options{Format: tc.f, Base: true})
		require.NoError(t, err, tc.f)
		require.Equal(t, tc.want, out.String(), tc.f)
		require.Equal(t, strings.Count(tc.want, "error"), sum.Failed, tc.f)
	}
	var out, errOut bytes.Buffer
	in := append(make([]byte, 27), 2, 7, 7)
	sum, err := stream.Mul(context.Background(), eng, bytes.NewReader(in), &out, stream.Options{Format: stream.Raw, Base: true, ErrOut: &errOut})
	require.NoError(t, err)
	require.Equal(t, stream.Summary{Items: 2, Failed: 1}, sum)
	x, y, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), big.NewInt(2))
	require.NoError(t, err)
	want := append(append(append([]byte{stream.RawPoint}, x.FillBytes(make([]byte, 28))...), y.FillBytes(make([]byte, 28))...), stream.RawError)
	require.Equal(t, append(want, make([]byte, 56)...), out.Bytes())
	require.Equal(t, "ecmul base: item 2: a partial record of 2 bytes at the end of the input (want 28)\n", errOut.String())
}
