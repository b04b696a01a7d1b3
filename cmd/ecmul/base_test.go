package main

import (
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/internal/curves"
)

// baseCase is a scalar base reads in a format, and the item mul reads for
// it with G as the point.
func baseCase(c *curves.Curve, f stream.Format, k *big.Int, spelling int) (base, mul string) {
	L := c.ByteLen()
	gx, gy := fmt.Sprintf("%0*x", 2*L, c.Gx()), fmt.Sprintf("%0*x", 2*L, c.Gy())
	h := k.Text(16)
	switch spelling % 3 {
	case 1:
		h = "0X" + strings.ToUpper(h)
	case 2:
		h = "000" + h
	}
	switch f {
	case stream.Raw:
		kb := string(k.FillBytes(make([]byte, L)))
		return kb, kb + string(c.Gx().FillBytes(make([]byte, L))) + string(c.Gy().FillBytes(make([]byte, L)))
	case stream.JSONL:
		return fmt.Sprintf("{\"scalar\":%q}\n", h), fmt.Sprintf("{\"scalar\":%q,\"x\":%q,\"y\":%q}\n", h, gx, gy)
	case stream.SEC1:
		return h + "\n", h + " 04" + gx + gy + "\n"
	}
	return h + "\n", h + " " + gx + " " + gy + "\n"
}

// TestBaseMatchesMul: on every curve, format and backend (rns-cpu on
// fewer items), x-only or not, ecmul base's output on scalars is ecmul
// mul's on the same scalars with G as the point, byte for byte: the edge
// scalars 0, 1, n−1, n, n+1, 2^(8L)−1, 512-bit ones (raw: L bytes) and
// random ones; exit 0, nothing on standard error.
func TestBaseMatchesMul(t *testing.T) {
	rng := newRNG(27)
	for _, c := range curves.All() {
		L := c.ByteLen()
		one := big.NewInt(1)
		top := new(big.Int).Lsh(one, uint(8*L))
		for _, f := range append(stream.LineFormats, stream.Raw) {
			ks := []*big.Int{big.NewInt(0), one, new(big.Int).Sub(c.N(), one), c.N(), new(big.Int).Add(c.N(), one), new(big.Int).Sub(top, one),
				randBits(rng, 8*L), randBits(rng, 8*L)}
			if f != stream.Raw {
				ks = append(ks, new(big.Int).Sub(new(big.Int).Lsh(one, 512), one), randBits(rng, 512))
			}
			var base, mul strings.Builder
			for i, k := range ks {
				b, m := baseCase(c, f, k, i)
				base.WriteString(b)
				mul.WriteString(m)
			}
			for _, backend := range []string{"cpu", "rns-cpu"} {
				if backend == "rns-cpu" && (testing.Short() || f != stream.Hex) {
					continue
				}
				for _, xOnly := range []bool{false, true} {
					name := fmt.Sprintf("%s/%s/%s/x-only=%v", c.Name(), f, backend, xOnly)
					args := []string{"--curve", c.Name(), "--format", string(f), "--backend", backend, "--chunk", "3"}
					if xOnly {
						args = append(args, "--x-only")
					}
					code, got, errOut := cli(t, base.String(), append([]string{"base"}, args...)...)
					require.Equal(t, exitOK, code, "%s: %s", name, errOut)
					require.Empty(t, errOut, name)
					code, want, errOut := cli(t, mul.String(), append([]string{"mul"}, args...)...)
					require.Equal(t, exitOK, code, "%s: %s", name, errOut)
					require.Equal(t, want, got, name)
				}
			}
		}
	}
}

// TestBaseOutput: base's answers are the reference's k·G in each format's
// words: X_HEX Y_HEX, 04‖X‖Y, {"x","y"}, STATUS‖X‖Y, x alone with
// --x-only, infinity for k ≡ 0 mod n.
func TestBaseOutput(t *testing.T) {
	c := curves.P256()
	k := big.NewInt(3)
	x, y, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), k)
	require.NoError(t, err)
	X, Y := fmt.Sprintf("%064x", x), fmt.Sprintf("%064x", y)
	n := fmt.Sprintf("%x", c.N())
	for _, tc := range []struct {
		args     []string
		in, want string
	}{
		{nil, "3\n" + n + "\n", X + " " + Y + "\ninfinity\n"},
		{[]string{"--x-only"}, "3\n", X + "\n"},
		{[]string{"--format", "sec1"}, "3\n" + n + "\n", "04" + X + Y + "\ninfinity\n"},
		{[]string{"--format", "sec1", "--x-only"}, "3\n", X + "\n"},
		{[]string{"--format", "jsonl"}, "{\"scalar\":\"3\"}\n{\"scalar\":\"" + n + "\"}\n",
			"{\"x\":\"" + X + "\",\"y\":\"" + Y + "\"}\n{\"infinity\":true}\n"},
		{[]string{"--format", "JSONL", "--x-only"}, "{\"scalar\":\"3\"}\n", "{\"x\":\"" + X + "\"}\n"},
		{[]string{"--format", "raw"}, string(k.FillBytes(make([]byte, 32))) + string(c.N().FillBytes(make([]byte, 32))),
			"\x00" + string(x.FillBytes(make([]byte, 32))) + string(y.FillBytes(make([]byte, 32))) + "\x01" + string(make([]byte, 64))},
		{[]string{"--format", "raw", "--x-only"}, string(k.FillBytes(make([]byte, 32))), "\x00" + string(x.FillBytes(make([]byte, 32)))},
	} {
		args := append([]string{"base", "--curve", "p256", "--backend", "cpu"}, tc.args...)
		code, out, errOut := cli(t, tc.in, args...)
		require.Equal(t, exitOK, code, "%v: %s", tc.args, errOut)
		require.Equal(t, tc.want, out, "%v", tc.args)
	}
}

// TestBaseErrors: a bad line is answered with its error and line number,
// blank lines counted, the others computed; exit 1 with the count of
// failed items; a partial raw record is a failed item, its reason on
// standard error.
func TestBaseErrors(t *testing.T) {
	c := curves.P224()
	two := "706a46dc76dcb76798e60e6d89474788d16dc18032d268fd1a704fa6 1c2b76a7bc25e7702a704fa986892849fca629487acf3709d2e4e8bb"
	long := strings.Repeat("0", stream.MaxLine+1)
	code, out, errOut := cli(t, "2\n\n1 2\nxyz\n1"+strings.Repeat("0", 128)+"\n"+long+"\n\r\n2\r\n", "base", "--backend", "cpu")
	require.Equal(t, exitFail, code)
	require.Equal(t, two+"\n"+
		"error: line 3: want 1 field (SCALAR_HEX), got 2\n"+
		"error: line 4: scalar is not hexadecimal: invalid character at offset 0\n"+
		"error: line 5: scalar exceeds 512 bits\n"+
		"error: line 6: longer than 4096 bytes\n"+
		two+"\n", out)
	require.Equal(t, "ecmul base: 4 item(s) failed\n", errOut)

	code, out, errOut = cli(t, "{\"scalar\":\"2\",\"x\":\"1\"}\n{\"scalar\":\"2\"}\n", "base", "--backend", "cpu", "--format", "jsonl")
	require.Equal(t, exitFail, code)
	require.Equal(t, `{"error":"line 1: unknown key \"x\" (want scalar)"}`+"\n"+
		`{"x":"706a46dc76dcb76798e60e6d89474788d16dc18032d268fd1a704fa6","y":"1c2b76a7bc25e7702a704fa986892849fca629487acf3709d2e4e8bb"}`+"\n", out)
	require.Equal(t, "ecmul base: 1 item(s) failed\n", errOut)

	code, out, errOut = cli(t, string(big.NewInt(2).FillBytes(make([]byte, 28)))+"\x01\x02", "base", "--backend", "cpu", "--format", "raw", "--x-only")
	require.Equal(t, exitFail, code)
	x, _, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), big.NewInt(2))
	require.NoError(t, err)
	require.Equal(t, "\x00"+string(x.FillBytes(make([]byte, 28)))+"\x02"+string(make([]byte, 28)), out)
	require.Equal(t, "ecmul base: item 2: a partial record of 2 bytes at the end of the input (want 28)\necmul base: 1 item(s) failed\n", errOut)
}

// TestBaseUsage: usage errors exit 2 under base's name; an unreadable
// --in exits 1; --help exits 0.
func TestBaseUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--curve", "p384"},
		{"--backend", "tpu"},
		{"--format", "xml"},
		{"--chunk", "0"},
		{"--bogus"},
		{"extra"},
	} {
		code, out, errOut := cli(t, "2\n", append([]string{"base"}, args...)...)
		require.Equal(t, exitUsage, code, "%v: %s", args, errOut)
		require.Empty(t, out, "%v", args)
		require.NotEmpty(t, errOut, "%v", args)
	}
	code, _, errOut := cli(t, "", "base", "--format", "xml")
	require.Equal(t, exitUsage, code)
	require.True(t, strings.HasPrefix(errOut, "ecmul base: --format: "), errOut)

	dir := t.TempDir()
	code, _, errOut = cli(t, "", "base", "--backend", "cpu", "--in", filepath.Join(dir, "missing"))
	require.Equal(t, exitFail, code)
	require.True(t, strings.HasPrefix(errOut, "ecmul base: "), errOut)
	in := filepath.Join(dir, "k.txt")
	require.NoError(t, os.WriteFile(in, []byte("2\n"), 0o644))
	out := filepath.Join(dir, "out.txt")
	code, _, errOut = cli(t, "", "base", "--backend", "cpu", "--in", in, "--out", out, "--stats")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, errOut, "ecmul base: stats: items=1 failed=0")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "706a46dc76dcb76798e60e6d89474788d16dc18032d268fd1a704fa6 1c2b76a7bc25e7702a704fa986892849fca629487acf3709d2e4e8bb\n", string(b))

	code, _, _ = cli(t, "", "base", "--help")
	require.Equal(t, exitOK, code)
}
