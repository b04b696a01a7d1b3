package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/internal/curves"
)

// formatCase is one item written in every format, with its reference result.
type formatCase struct {
	p        *curves.Point
	k        *big.Int
	infinity bool
	x, y     string // the result, as fieldHex writes it
}

func formatCases(t *testing.T, c *curves.Curve, count int) []formatCase {
	rng := newRNG(uint64(40 + c.ByteLen()))
	out := make([]formatCase, count)
	for i := range out {
		p := randPoint(t, rng, c)
		k := randScalar(rng, c)
		switch i % 7 {
		case 2:
			k = new(big.Int).Set(c.N()) // infinity
		case 4:
			k = new(big.Int).Add(c.N(), big.NewInt(5)) // ≥ n
		case 5:
			k = big.NewInt(1)
		}
		x, y, ok, err := c.ReferenceScalarMult(p.X, p.Y, k)
		require.NoError(t, err)
		fc := formatCase{p: p, k: k, infinity: !ok}
		if ok {
			fc.x, fc.y = fieldHex(c, x), fieldHex(c, y)
		}
		out[i] = fc
	}
	return out
}

// inputLine writes fc in format f; for sec1, compressed picks the encoding.
func (fc formatCase) inputLine(c *curves.Curve, f stream.Format, compressed bool) string {
	switch f {
	case stream.SEC1:
		return fc.k.Text(16) + " " + hex.EncodeToString(c.EncodeSEC1(fc.p, compressed))
	case stream.JSONL:
		return fmt.Sprintf(`{"scalar":"%x","x":"%x","y":"%x"}`, fc.k, fc.p.X, fc.p.Y)
	}
	return fc.k.Text(16) + " " + fc.p.X.Text(16) + " " + fc.p.Y.Text(16)
}

// outputLine is what mul must answer for fc in format f.
func (fc formatCase) outputLine(f stream.Format, xOnly bool) string {
	switch {
	case fc.infinity && f == stream.JSONL:
		return `{"infinity":true}`
	case fc.infinity:
		return "infinity"
	case f == stream.JSONL && xOnly:
		return `{"x":"` + fc.x + `"}`
	case f == stream.JSONL:
		return `{"x":"` + fc.x + `","y":"` + fc.y + `"}`
	case xOnly:
		return fc.x
	case f == stream.SEC1:
		return "04" + fc.x + fc.y
	}
	return fc.x + " " + fc.y
}

func TestMulFormats(t *testing.T) {
	for _, c := range curves.All() {
		cases := formatCases(t, c, 21)
		for _, f := range stream.LineFormats {
			for _, compressed := range []bool{false, true} {
				if compressed && f != stream.SEC1 {
					continue
				}
				for _, xOnly := range []bool{false, true} {
					name := fmt.Sprintf("%s/%s/compressed=%v/x-only=%v", c.Name(), f, compressed, xOnly)
					t.Run(name, func(t *testing.T) {
						var in, want strings.Builder
						for i, fc := range cases {
							if i%5 == 3 {
								in.WriteString("  \n") // blank lines give nothing
							}
							in.WriteString(fc.inputLine(c, f, compressed) + "\n")
							want.WriteString(fc.outputLine(f, xOnly) + "\n")
						}
						args := []string{"mul", "--curve", curveFlag(c), "--backend", "cpu", "--format", string(f)}
						if xOnly {
							args = append(args, "--x-only")
						}
						code, out, errOut := cli(t, in.String(), args...)
						require.Equal(t, exitOK, code, errOut)
						require.Empty(t, errOut)
						require.Equal(t, want.String(), out)
					})
				}
			}
		}
	}
}

func TestMulFormatNames(t *testing.T) {
	c := curves.P224()
	fc := formatCases(t, c, 1)[0]
	for _, name := range []string{"HEX", "Sec1", "JSONL"} {
		f, err := stream.ParseFormat(name)
		require.NoError(t, err)
		code, out, errOut := cli(t, fc.inputLine(c, f, false)+"\n", "mul", "--backend", "cpu", "--format", name)
		require.Equal(t, exitOK, code, errOut)
		require.Equal(t, fc.outputLine(f, false)+"\n", out)
	}
	for _, bad := range []string{"", "json", "xml", "sec1c"} {
		code, out, errOut := cli(t, "", "mul", "--backend", "cpu", "--format", bad)
		require.Equal(t, exitUsage, code, bad)
		require.Empty(t, out)
		require.Contains(t, errOut, "format")
	}
}

// TestMulFormatErrors gives each format lines it must refuse, between
// valid lines, and checks the reason of each error line.
func TestMulFormatErrors(t *testing.T) {
	c := curves.P256()
	fc := formatCases(t, c, 1)[0]
	p := fc.p
	x, y := fieldHex(c, p.X), fieldHex(c, p.Y)
	off := fieldHex(c, new(big.Int).Add(p.Y, big.NewInt(1)))
	unc := hex.EncodeToString(c.EncodeSEC1(p, false))
	cmp := hex.EncodeToString(c.EncodeSEC1(p, true))
	long := strings.Repeat("a", stream.MaxLine+1)
	// x = 5 has no point on P-256 (x³ − 3x + b is not a square mod p).
	var noY string
	for v := int64(0); ; v++ {
		if _, err := c.RecoverY(big.NewInt(v), false); err != nil {
			noY = fmt.Sprintf("02%0*x", 2*c.ByteLen(), v)
			break
		}
	}
	for _, tc := range []struct {
		format stream.Format
		bad    []struct{ in, reason string }
	}{
		{stream.SEC1, []struct{ in, reason string }{
			{"5 " + unc + " 7", "want 2 fields"},
			{unc, "want 2 fields"},
			{"zz " + unc, "hexadecimal"},
			{"5 " + unc[:len(unc)-1], "not hexadecimal"},
			{"5 " + unc + "00", "more than"},
			{"5 00", "point at infinity"},
			{"5 06" + x + y, "hybrid"},
			{"5 05" + x + y, "unknown SEC1 prefix"},
			{"5 04" + x, "want 65"},
			{"5 02" + x + y, "want 33"},
			{"5 04" + x + off, "not on the curve"},
			{"5 " + noY, "not on the curve"},
			{"5 04" + fieldHex(c, c.P()) + y, "not below p"},
			{"5 0x" + unc[:10] + "zz" + unc[12:], "not hexadecimal"},
			{"1" + strings.Repeat("0", 128) + " " + cmp, "512 bits"},
			{long, "longer than 4096 bytes"},
		}},
		{stream.JSONL, []struct{ in, reason string }{
			{`5 ` + x + ` ` + y, "not a JSON object"},
			{`["5","` + x + `","` + y + `"]`, "not a JSON object"},
			{`{"scalar":"5","x":"` + x + `"}`, `key "y" is missing`},
			{`{"scalar":"5","x":"` + x + `","y":"` + y + `","id":1}`, `unknown key "id"`},
			{`{"scalar":"5","X":"` + x + `","y":"` + y + `"}`, `unknown key "X"`},
			{`{"scalar":"5","x":"` + x + `","x":"` + x + `","y":"` + y + `"}`, `key "x" appears twice`},
			{`{"scalar":5,"x":"` + x + `","y":"` + y + `"}`, `value of "scalar" is not a string`},
			{`{"scalar":"5","x":{"v":"` + x + `"},"y":"` + y + `"}`, `value of "x" is not a string`},
			{`{"scalar":"5","x":"` + x + `","y":"` + y + `"} {}`, "data after the JSON object"},
			{`{"scalar":"5","x":"` + x + `","y":"` + y + `"`, "invalid JSON"},
			{`{"scalar":"5","x":"` + x + `","y":"` + off + `"}`, "not on the curve"},
			{`{"scalar":"-5","x":"` + x + `","y":"` + y + `"}`, "hexadecimal"},
			{`{"scalar":"5","x":"` + x + `","y":"` + y + `<>"}`, "y: P-256: hex coordinate"},
			{long, "longer than 4096 bytes"},
		}},
		{stream.Hex, []struct{ in, reason string }{
			{"5 " + unc, "want 3 fields"},
			{`{"scalar":"5","x":"` + x + `","y":"` + y + `"}`, "want 3 fields"},
			{long, "longer than 4096 bytes"},
		}},
	} {
		t.Run(string(tc.format), func(t *testing.T) {
			good := fc.inputLine(c, tc.format, false)
			wantGood := fc.outputLine(tc.format, false)
			var in strings.Builder
			in.WriteString(good + "\n")
			for _, b := range tc.bad {
				in.WriteString(b.in + "\n" + good + "\n")
			}
			code, out, errOut := cli(t, in.String(), "mul", "--curve", "p256", "--backend", "cpu", "--format", string(tc.format))
			require.Equal(t, exitFail, code)
			require.Contains(t, errOut, fmt.Sprintf("%d item(s) failed", len(tc.bad)))
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			require.Len(t, lines, 2*len(tc.bad)+1)
			require.Equal(t, wantGood, lines[0])
			for i, b := range tc.bad {
				got := lines[1+2*i]
				require.Equal(t, wantGood, lines[2+2*i], "the line after %q", b.in)
				var reason string
				if tc.format == stream.JSONL {
					var obj map[string]any
					require.NoError(t, json.Unmarshal([]byte(got), &obj), got)
					require.Len(t, obj, 1, got)
					require.IsType(t, "", obj["error"], got)
					reason = obj["error"].(string)
				} else {
					var ok bool
					reason, ok = strings.CutPrefix(got, "error: ")
					require.True(t, ok, "%q gave %q", b.in, got)
				}
				require.Contains(t, reason, b.reason, "%q", b.in)
				require.NotContains(t, reason, "item ", "the batch index means nothing to the reader")
			}
		})
	}
}

// TestMulJSONLOutput checks that every jsonl output line is one JSON object
// of the documented shapes, error messages with quotes and control
// characters included.
func TestMulJSONLOutput(t *testing.T) {
	c := curves.P224()
	cases := formatCases(t, c, 7)
	var in strings.Builder
	for _, fc := range cases {
		in.WriteString(fc.inputLine(c, stream.JSONL, false) + "\n")
	}
	in.WriteString(`{"scalar":"5","x":"\"\t\u0001","y":"1"}` + "\n")
	in.WriteString(`{"scalar":"5","x":"é","y":"1"}` + "\n")
	in.WriteString("{\"sc\xffalar\":\"1\"}\n")
	code, out, _ := cli(t, in.String(), "mul", "--backend", "cpu", "--format", "jsonl")
	require.Equal(t, exitFail, code)
	shape := regexp.MustCompile(`^(\{"x":"[0-9a-f]{56}","y":"[0-9a-f]{56}"\}|\{"infinity":true\}|\{"error":".*"\})$`)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, len(cases)+3)
	for _, l := range lines {
		require.Regexp(t, shape, l)
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &v), l)
	}
}
