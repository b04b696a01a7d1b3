package main

import (
	"bytes"
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/internal/curves"
)

// rawRecord is scalar ‖ x ‖ y, L bytes each.
func rawRecord(c *curves.Curve, k, x, y *big.Int) []byte {
	L := c.ByteLen()
	rec := make([]byte, 3*L)
	k.FillBytes(rec[:L])
	x.FillBytes(rec[L : 2*L])
	y.FillBytes(rec[2*L:])
	return rec
}

// TestMulRawMatchesHex: gen and mul in the raw format give, record for
// record, what the hex format gives, on every curve, with and without
// --x-only.
func TestMulRawMatchesHex(t *testing.T) {
	for _, c := range curves.All() {
		name := strings.ToLower(strings.ReplaceAll(c.Name(), "-", ""))
		code, raw, _ := cli(t, "", "gen", "--curve", name, "--n", "40", "--seed", "5", "--format", "raw")
		require.Equal(t, exitOK, code)
		require.Len(t, raw, 40*3*c.ByteLen())
		code, text, _ := cli(t, "", "gen", "--curve", name, "--n", "40", "--seed", "5")
		require.Equal(t, exitOK, code)
		for _, xOnly := range []bool{false, true} {
			args := []string{"mul", "--curve", name, "--backend", "cpu"}
			if xOnly {
				args = append(args, "--x-only")
			}
			code, got, errOut := cli(t, raw, append(args, "--format", "raw")...)
			require.Equal(t, exitOK, code, errOut)
			code, want, _ := cli(t, text, args...)
			require.Equal(t, exitOK, code)
			lines := strings.Split(strings.TrimSuffix(want, "\n"), "\n")
			size := 1 + 2*c.ByteLen()
			if xOnly {
				size = 1 + c.ByteLen()
			}
			require.Len(t, got, len(lines)*size)
			for i, l := range lines {
				rec := []byte(got[i*size : (i+1)*size])
				require.Equal(t, byte(stream.RawPoint), rec[0], "item %d", i)
				require.Equal(t, strings.ReplaceAll(l, " ", ""), hex.EncodeToString(rec[1:]), "item %d", i)
			}
		}
	}
}

// TestMulRawFailures: an invalid point, the point at infinity and a partial
// last record each get their status; a failed item's reason goes to
// standard error as "ecmul mul: item N: REASON", its coordinates are zero.
func TestMulRawFailures(t *testing.T) {
	c := curves.P224()
	L := c.ByteLen()
	var in bytes.Buffer
	in.Write(rawRecord(c, big.NewInt(2), c.Gx(), c.Gy()))
	in.Write(rawRecord(c, big.NewInt(2), c.Gx(), new(big.Int).Add(c.Gy(), big.NewInt(1)))) // not on the curve
	in.Write(rawRecord(c, c.N(), c.Gx(), c.Gy()))                                          // infinity
	in.Write(rawRecord(c, big.NewInt(3), c.P(), c.Gy()))                                   // x = p
	in.Write(rawRecord(c, big.NewInt(2), c.Gx(), c.Gy())[:L+5])                            // cut short
	code, out, errOut := cli(t, in.String(), "mul", "--format", "raw", "--backend", "cpu")
	require.Equal(t, exitFail, code)
	size := 1 + 2*L
	require.Len(t, out, 5*size)
	wx, wy, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), big.NewInt(2))
	require.NoError(t, err)
	want := append([]byte{stream.RawPoint}, rawRecord(c, big.NewInt(0), wx, wy)[L:]...)
	require.Equal(t, want, []byte(out[:size]))
	zero := make([]byte, 2*L)
	for i, status := range []byte{stream.RawError, stream.RawInfinity, stream.RawError, stream.RawError} {
		rec := []byte(out[(i+1)*size : (i+2)*size])
		require.Equal(t, status, rec[0], "item %d", i+2)
		require.Equal(t, zero, rec[1:], "item %d", i+2)
	}
	require.Contains(t, errOut, "ecmul mul: item 2: P-224: point is not on the curve\n")
	require.Contains(t, errOut, "ecmul mul: item 4: ")
	require.Contains(t, errOut, "ecmul mul: item 5: a partial record of 33 bytes at the end of the input (want 84)\n")
	require.NotContains(t, errOut, "item 3:")
	require.Contains(t, errOut, "ecmul mul: 3 item(s) failed")

	code, _, errOut = cli(t, "", "gen", "--format", "raw", "--compressed")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "--compressed applies to --format sec1 only")
}
