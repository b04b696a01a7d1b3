package main

import (
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/wycheproof"
)

// ecdsaLine writes an item of ecdsa-verify.
func ecdsaLine(digest []byte, r, s, qx, qy *big.Int) string {
	return fmt.Sprintf("%x %x %x %x %x", digest, r, s, qx, qy)
}

// TestECDSAVerifyContract: one answer per non-empty line, in order; valid,
// invalid, and "error: line N: REASON" for a line that cannot be an item;
// blank lines counted, \r\n and a BOM accepted; exit 0 only when every
// item is valid, 1 otherwise, 2 for usage errors; the same on every CPU
// backend and chunk.
func TestECDSAVerifyContract(t *testing.T) {
	c := curves.P256()
	priv, err := stdecdsa.GenerateKey(elliptic.P256(), nil)
	require.NoError(t, err)
	d := sha256.Sum256([]byte("ecdsa-verify"))
	r, s, err := stdecdsa.Sign(nil, priv, d[:])
	require.NoError(t, err)
	d512 := sha512.Sum512([]byte("longer than n"))
	r2, s2, err := stdecdsa.Sign(nil, priv, d512[:])
	require.NoError(t, err)
	n, p := c.N(), c.P()
	X, Y := priv.X, priv.Y
	valid := ecdsaLine(d[:], r, s, X, Y)
	one, zero := big.NewInt(1), big.NewInt(0)
	lines := []string{
		"\xef\xbb\xbf" + valid,                             // 1
		ecdsaLine(d[:], r, new(big.Int).Add(s, one), X, Y), // 2 invalid
		"", // 3 blank
		"  \t" + ecdsaLine(d512[:], r2, s2, X, Y) + " \t\r",          // 4 valid: a digest longer than n
		ecdsaLine(d[:], zero, s, X, Y),                               // 5 r = 0: invalid
		ecdsaLine(d[:], r, n, X, Y),                                  // 6 s = n: invalid
		ecdsaLine(d[:], new(big.Int).Lsh(one, 300), s, X, Y),         // 7 r past 2^256: invalid
		"0x" + strings.ToUpper(valid[:64]) + valid[64:],              // 8 valid, 0x and upper case
		"abc " + valid[65:],                                          // 9 odd digest
		valid[:65] + "xyz " + valid[65+len(fmt.Sprintf("%x", r))+1:], // 10 r not hex
		valid + " 00", // 11 six fields
		ecdsaLine(d[:], r, s, X, new(big.Int).Add(Y, one)), // 12 off the curve
		ecdsaLine(d[:], r, s, new(big.Int).Add(X, p), Y),   // 13 x >= p
		ecdsaLine(d[:], r, s, zero, zero),                  // 14 (0, 0)
		strings.Repeat("0", 5000),                          // 15 too long
		"-1 " + valid[65:],                                 // 16 bad hex
		ecdsaLine(d[:], new(big.Int).Neg(r), s, X, Y),      // 17 a sign is not hex
		valid, // 18
	}
	in := strings.Join(lines, "\r\n") + "\n"
	want := "valid\ninvalid\nvalid\ninvalid\ninvalid\ninvalid\nvalid\n" +
		"error: line 9: digest: an odd number of hex digits\n" +
		"error: line 10: r: not hex: \"xyz\"\n" +
		"error: line 11: want 5 fields (DIGEST_HEX R_HEX S_HEX QX_HEX QY_HEX), got 6\n" +
		"error: line 12: public key: point is not on the curve\n" +
		fmt.Sprintf("error: line 13: qx: P-256: hex coordinate %x is not below p\n", new(big.Int).Add(X, p)) +
		"error: line 14: public key: point at infinity\n" +
		"error: line 15: longer than 4096 bytes\n" +
		"error: line 16: digest: not hex: invalid character '-'\n" +
		"error: line 17: r: not hex: \"-" + fmt.Sprintf("%x", r) + "\"\n" +
		"valid\n"
	for _, args := range [][]string{
		{"--backend", "cpu"},
		{"--backend", "rns-cpu"},
		{"--backend", "cpu", "--chunk", "1"},
		{"--backend", "cpu", "--chunk", "4"},
	} {
		code, out, errOut := cli(t, in, append([]string{"ecdsa-verify", "--curve", "P-256"}, args...)...)
		require.Equal(t, exitFail, code, "%q: %s", args, errOut)
		requireSameLines(t, want, out, args)
		require.Equal(t, "ecmul ecdsa-verify: 13 of 17 item(s) not valid\n", errOut, "%q", args)
	}

	code, out, errOut := cli(t, valid+"\n\n"+ecdsaLine(d512[:], r2, s2, X, Y)+"\n", "ecdsa-verify", "--curve", "p256", "--backend", "cpu")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, "valid\nvalid\n", out)
	require.Empty(t, errOut)

	code, out, errOut = cli(t, "", "ecdsa-verify", "--backend", "cpu")
	require.Equal(t, exitOK, code, errOut)
	require.Empty(t, out)

	// the wrong curve: the key is not on P-224 (or a coordinate is too long)
	code, out, _ = cli(t, valid+"\n", "ecdsa-verify", "--backend", "cpu")
	require.Equal(t, exitFail, code)
	require.True(t, strings.HasPrefix(out, "error: line 1: "), out)

	// --in and --out
	dir := t.TempDir()
	inPath, outPath := filepath.Join(dir, "in.txt"), filepath.Join(dir, "out.txt")
	require.NoError(t, os.WriteFile(inPath, []byte(in), 0o644))
	code, out, _ = cli(t, "", "ecdsa-verify", "--curve", "p256", "--backend", "cpu", "--in", inPath, "--out", outPath)
	require.Equal(t, exitFail, code)
	require.Empty(t, out)
	got, err := os.ReadFile(outPath)
	require.NoError(t, err)
	requireSameLines(t, want, string(got), nil)

	// usage errors
	requireUsage(t, []string{"ecdsa-verify", "--curve", "p999"}, "unknown curve")
	requireUsage(t, []string{"ecdsa-verify", "--backend", "fast"}, "backend")
	requireUsage(t, []string{"ecdsa-verify", "--chunk", "0"}, "--chunk")
	requireUsage(t, []string{"ecdsa-verify", "--bogus"}, "bogus")
	code, _, errOut = cli(t, "", "ecdsa-verify", "--in", filepath.Join(dir, "missing"))
	require.Equal(t, exitFail, code, errOut)
}

// requireSameLines compares outputs line by line, for a readable failure.
func requireSameLines(t *testing.T, want, got string, args []string) {
	t.Helper()
	require.Equal(t, strings.Split(want, "\n"), strings.Split(got, "\n"), "%q", args)
}

// TestECDSAVerifyWycheproof: the P1363 vectors of every curve, as lines of
// ecdsa-verify, are answered as Wycheproof says (a signature of the wrong
// length has no line).
func TestECDSAVerifyWycheproof(t *testing.T) {
	for _, wf := range wycheproof.ECDSAFiles {
		if !strings.Contains(wf.File, "p1363") {
			continue
		}
		t.Run(wf.File, func(t *testing.T) {
			f, err := wycheproof.LoadECDSA(wycheproof.Path(wf.File))
			require.NoError(t, err)
			L := wf.Curve.ByteLen()
			h, err := wycheproof.NewHash(f.Hash)
			require.NoError(t, err)
			var in, want strings.Builder
			for _, g := range f.Groups {
				for _, tc := range g.Cases {
					if len(tc.Sig) != 2*L {
						continue
					}
					h.Reset()
					h.Write(tc.Msg)
					fmt.Fprintf(&in, "%x %x %x %x %x\n", h.Sum(nil), tc.Sig[:L], tc.Sig[L:], g.Key[1:1+L], g.Key[1+L:])
					want.WriteString(map[bool]string{true: "valid\n", false: "invalid\n"}[tc.Result == wycheproof.Valid])
				}
			}
			code, out, errOut := cli(t, in.String(), "ecdsa-verify", "--curve", wf.Curve.Name(), "--backend", "cpu")
			require.Equal(t, exitFail, code, errOut)
			requireSameLines(t, want.String(), out, nil)
		})
	}
}
