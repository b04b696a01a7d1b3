package main

import (
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
)

// derHex is the DER signature of r and s ≥ 0, as hex.
func derHex(r, s *big.Int) string {
	integer := func(x *big.Int) []byte {
		v := x.Bytes()
		if len(v) == 0 || v[0]&0x80 != 0 {
			v = append([]byte{0}, v...)
		}
		return append([]byte{0x02, byte(len(v))}, v...)
	}
	body := append(integer(r), integer(s)...)
	return hex.EncodeToString(append([]byte{0x30, byte(len(body))}, body...))
}

// signWithS returns a digest and r such that (r, s) is a valid signature
// of the digest under d·G with the nonce k: e = s·k − r·d mod n, chosen
// through the digest, so that s is any value the test needs.
func signWithS(t *testing.T, c *curves.Curve, d, k, s *big.Int) (digest []byte, r *big.Int) {
	t.Helper()
	rx, _, ok, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), k)
	require.NoError(t, err)
	require.True(t, ok)
	n := c.N()
	r = new(big.Int).Mod(rx, n)
	e := new(big.Int).Mul(s, k)
	e.Sub(e, new(big.Int).Mul(r, d))
	e.Mod(e, n)
	return e.FillBytes(make([]byte, c.ByteLen())), r
}

// noRootX is an x of c with no point: x³ + a·x + b not a square mod p.
func noRootX(t *testing.T, c *curves.Curve) *big.Int {
	for x := big.NewInt(1); ; x.Add(x, big.NewInt(1)) {
		if _, err := c.RecoverY(x, false); err != nil {
			return x
		}
	}
}

// TestECDSAVerifyEncodings: --sig der takes one strict DER field and
// --key sec1 one SEC1 field, compressed or not; a bad field is
// "error: line N: sig: ..." or "key: ...", r or s of 0 or n or more is
// invalid, and the other lines get their answers.
func TestECDSAVerifyEncodings(t *testing.T) {
	c := curves.P256()
	priv, err := stdecdsa.GenerateKey(elliptic.P256(), nil)
	require.NoError(t, err)
	d := sha256.Sum256([]byte("encodings"))
	r, s, err := stdecdsa.Sign(nil, priv, d[:])
	require.NoError(t, err)
	asn1Sig, err := stdecdsa.SignASN1(nil, priv, d[:])
	require.NoError(t, err)
	dg := hex.EncodeToString(d[:])
	pub := &curves.Point{X: priv.X, Y: priv.Y}
	unc := hex.EncodeToString(c.EncodeSEC1(pub, false))
	cmp := hex.EncodeToString(c.EncodeSEC1(pub, true))
	xy := fmt.Sprintf("%x %x", priv.X, priv.Y)
	der := derHex(r, s)
	n, one, zero := c.N(), big.NewInt(1), new(big.Int)
	d2 := sha256.Sum256([]byte("another message"))
	lines := []string{
		dg + " " + hex.EncodeToString(asn1Sig) + " " + unc,           // 1 valid: crypto/ecdsa's DER
		dg + " " + der + " 0x" + strings.ToUpper(cmp),                // 2 valid: compressed, 0x and upper case
		hex.EncodeToString(d2[:]) + " " + der + " " + unc,            // 3 invalid: another digest
		dg + " " + derHex(zero, s) + " " + unc,                       // 4 r = 0: invalid
		dg + " " + derHex(r, n) + " " + unc,                          // 5 s = n: invalid
		dg + " " + derHex(new(big.Int).Lsh(one, 256), s) + " " + unc, // 6 r of 33 bytes: invalid
		dg + " 3081" + der[2:] + " " + unc,                           // 7 BER length
		dg + " " + der + "00 " + unc,                                 // 8 a byte after the sequence
		dg + " 3006020101020181 " + unc,                              // 9 negative s
		dg + " 300702020001020101 " + unc,                            // 10 r with a leading zero
		dg + " 3106020101020101 " + unc,                              // 11 a SET
		dg + " " + der[:len(der)-1] + " " + unc,                      // 12 odd hex
		dg + " " + der + " 00",                                       // 13 the point at infinity
		dg + " " + der + " " + fmt.Sprintf("02%064x", noRootX(t, c)), // 14 x with no y
		dg + " " + der + " 05" + unc[2:],                             // 15 unknown prefix
		dg + " " + der + " " + unc[:len(unc)-2],                      // 16 short key
		dg + " " + der + " " + xy,                                    // 17 four fields
		dg + " 30zz " + unc,                                          // 18 not hex
		dg + " " + der + " " + unc,                                   // 19 valid
	}
	in := strings.Join(lines, "\n") + "\n"
	want := []string{
		"valid", "valid", "invalid", "invalid", "invalid", "invalid",
		"error: line 7: sig: invalid signature: DER: the signature: long-form length",
		"error: line 8: sig: invalid signature: DER: 1 byte(s) after the signature",
		"error: line 9: sig: invalid signature: DER: s is negative",
		"error: line 10: sig: invalid signature: DER: r has a redundant leading zero byte",
		"error: line 11: sig: invalid signature: DER: the signature: want tag 0x30, got 0x31",
		"error: line 12: sig: an odd number of hex digits",
		"error: line 13: key: P-256: SEC1 encoding 0x00 is the point at infinity",
		"error: line 14: key: P-256: point is not on the curve: x³ + a·x + b is not a square",
		"error: line 15: key: P-256: unknown SEC1 prefix 0x05",
		"error: line 16: key: P-256: uncompressed SEC1 encoding is 64 bytes, want 65",
		"error: line 17: want 3 fields (DIGEST_HEX SIG_DER_HEX KEY_SEC1_HEX), got 4",
		"error: line 18: sig: not hex: invalid character 'z'",
		"valid",
	}
	for _, args := range [][]string{
		{"--backend", "cpu"},
		{"--backend", "rns-cpu", "--chunk", "5"},
		{"--backend", "cpu", "--sig", "DER", "--key", "SEC1"},
	} {
		if args[len(args)-1] != "SEC1" {
			args = append(args, "--sig", "der", "--key", "sec1")
		}
		code, out, errOut := cli(t, in, append([]string{"ecdsa-verify", "--curve", "p256"}, args...)...)
		require.Equal(t, exitFail, code, "%q: %s", args, errOut)
		got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		require.Len(t, got, len(want), "%q: %s", args, out)
		for i := range want {
			require.True(t, strings.HasPrefix(got[i], want[i]), "%q line %d: got %q, want %q…", args, i+1, got[i], want[i])
		}
		require.Equal(t, "ecmul ecdsa-verify: 16 of 19 item(s) not valid\n", errOut, "%q", args)
	}

	// each flag alone: DER with the key's coordinates, R S with SEC1
	code, out, errOut := cli(t, dg+" "+der+" "+xy+"\n", "ecdsa-verify", "--curve", "p256", "--backend", "cpu", "--sig", "der")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, "valid\n", out)
	code, out, errOut = cli(t, fmt.Sprintf("%s %x %x %s\n%s %x %x %s\n%s %x %x %s\n", dg, r, s, cmp, dg, r, s, unc, dg, r, s, xy),
		"ecdsa-verify", "--curve", "p256", "--backend", "cpu", "--key", "sec1")
	require.Equal(t, exitFail, code, errOut)
	require.Equal(t, "valid\nvalid\nerror: line 3: want 4 fields (DIGEST_HEX R_HEX S_HEX KEY_SEC1_HEX), got 5\n", out)

	requireUsage(t, []string{"ecdsa-verify", "--sig", "asn1"}, "--sig", "want rs or der")
	requireUsage(t, []string{"ecdsa-verify", "--key", "spki"}, "--key", "want xy or sec1")
}

// TestECDSAVerifyLowS: with --low-s a signature whose s is above n/2 is
// invalid, and one of s = n/2 (rounded down) or below valid; without it
// both verify. The same for every signature and key encoding, and a bad
// key is still its error.
func TestECDSAVerifyLowS(t *testing.T) {
	for _, c := range []*curves.Curve{curves.Secp256k1(), curves.P224()} {
		t.Run(c.Name(), func(t *testing.T) {
			n := c.N()
			half := new(big.Int).Rsh(n, 1)
			d, k := big.NewInt(0x1234567), big.NewInt(0x89abcdef)
			qx, qy, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), d)
			require.NoError(t, err)
			key := hex.EncodeToString(c.EncodeSEC1(&curves.Point{X: qx, Y: qy}, true))
			var in strings.Builder
			for _, s := range []*big.Int{
				big.NewInt(1),
				half,                                  // the highest low s
				new(big.Int).Add(half, big.NewInt(1)), // the lowest high s
				new(big.Int).Sub(n, big.NewInt(1)),
			} {
				digest, r := signWithS(t, c, d, k, s)
				fmt.Fprintf(&in, "%x %s %s\n", digest, derHex(r, s), key)
			}
			digest, r := signWithS(t, c, d, k, new(big.Int).Sub(n, big.NewInt(1)))
			fmt.Fprintf(&in, "%x %s 00\n", digest, derHex(r, new(big.Int).Sub(n, big.NewInt(1))))
			rsIn := lowSAsRS(t, in.String())
			for _, tc := range []struct {
				in   string
				args []string
			}{
				{in.String(), []string{"--sig", "der", "--key", "sec1"}},
				{rsIn, []string{"--key", "sec1"}},
			} {
				args := append([]string{"ecdsa-verify", "--curve", c.Name(), "--backend", "cpu"}, tc.args...)
				code, out, errOut := cli(t, tc.in, args...)
				require.Equal(t, exitFail, code, errOut)
				require.Equal(t, "valid\nvalid\nvalid\nvalid\n", out[:strings.Index(out, "error")], "%q", args)
				code, out, errOut = cli(t, tc.in, append(args, "--low-s")...)
				require.Equal(t, exitFail, code, errOut)
				lines := strings.Split(out, "\n")
				require.Equal(t, []string{"valid", "valid", "invalid", "invalid"}, lines[:4], "%q", args)
				require.True(t, strings.HasPrefix(lines[4], "error: line 5: key: "), lines[4])
				require.Equal(t, "ecmul ecdsa-verify: 3 of 5 item(s) not valid\n", errOut)
			}
		})
	}
}

// lowSAsRS rewrites the DER lines of TestECDSAVerifyLowS as R_HEX S_HEX
// lines.
func lowSAsRS(t *testing.T, in string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSuffix(in, "\n"), "\n") {
		f := strings.Fields(line)
		der, err := hex.DecodeString(f[1])
		require.NoError(t, err)
		// the test's own DER: short lengths throughout
		rl := int(der[3])
		r := der[4 : 4+rl]
		s := der[4+rl+2:]
		fmt.Fprintf(&b, "%s %x %x %s\n", f[0], r, s, f[2])
	}
	return b.String()
}

// verifyLines returns count valid lines of ecdsa-verify on P-256 (R_HEX
// S_HEX QX_HEX QY_HEX), each of its own digest.
func verifyLines(t *testing.T, count int) []string {
	t.Helper()
	priv, err := stdecdsa.GenerateKey(elliptic.P256(), nil)
	require.NoError(t, err)
	lines := make([]string, count)
	for i := range lines {
		d := sha256.Sum256([]byte{byte(i)})
		r, s, err := stdecdsa.Sign(nil, priv, d[:])
		require.NoError(t, err)
		lines[i] = ecdsaLine(d[:], r, s, priv.X, priv.Y)
	}
	return lines
}

// TestECDSAVerifyAnswersAPausedStream: when the input pauses, the lines
// read so far are answered without waiting for a full chunk or the end of
// the input, a partial last line included, as mul answers them.
func TestECDSAVerifyAnswersAPausedStream(t *testing.T) {
	lines := verifyLines(t, 3)
	pr, pw := io.Pipe()
	var out lockedBuffer
	done := make(chan int)
	go func() {
		done <- run([]string{"ecdsa-verify", "--curve", "p256", "--backend", "cpu"}, pr, &out, io.Discard)
	}()
	waitFor := func(want string) time.Duration {
		t.Helper()
		start := time.Now()
		for out.String() != want {
			if time.Since(start) > 5*time.Second {
				t.Fatalf("after %v the output is %q, want %q", time.Since(start), out.String(), want)
			}
			time.Sleep(time.Millisecond)
		}
		return time.Since(start)
	}
	_, err := io.WriteString(pw, lines[0]+"\n\n")
	require.NoError(t, err)
	first := waitFor("valid\n")
	_, err = io.WriteString(pw, lines[1]+"\nzz\n"+lines[2][:10])
	require.NoError(t, err)
	waitFor("valid\nvalid\nerror: line 4: want 5 fields (DIGEST_HEX R_HEX S_HEX QX_HEX QY_HEX), got 1\n")
	_, err = io.WriteString(pw, lines[2][10:]+"\n")
	require.NoError(t, err)
	require.NoError(t, pw.Close())
	require.Equal(t, exitFail, <-done)
	require.Equal(t, "valid\nvalid\nerror: line 4: want 5 fields (DIGEST_HEX R_HEX S_HEX QX_HEX QY_HEX), got 1\nvalid\n", out.String())
	t.Logf("first answer %v after its line", first)
}

// TestECDSAVerifyStats: --stats prints one line at the end, its failed
// count the items not valid; without it nothing but the count of those
// goes to standard error, and no progress line where it is no terminal.
func TestECDSAVerifyStats(t *testing.T) {
	withFastProgress(t)
	lines := verifyLines(t, 5)
	in := strings.Join(lines, "\n") + "\nbad\n"
	code, out, errOut := cli(t, in, "ecdsa-verify", "--curve", "p256", "--backend", "cpu", "--chunk", "2", "--stats")
	require.Equal(t, exitFail, code)
	require.Equal(t, strings.Repeat("valid\n", 5)+"error: line 6: want 5 fields (DIGEST_HEX R_HEX S_HEX QX_HEX QY_HEX), got 1\n", out)
	require.Regexp(t, `^ecmul ecdsa-verify: stats: items=6 failed=1 seconds=[0-9.]+ op/s=[0-9]+ peak_rss_mib=\S+ backend=cpu open_seconds=[0-9.]+\n`+
		`ecmul ecdsa-verify: 1 of 6 item\(s\) not valid\n$`, errOut)
	code, _, errOut = cli(t, strings.Join(lines, "\n"), "ecdsa-verify", "--curve", "p256", "--backend", "cpu", "--stats")
	require.Equal(t, exitOK, code)
	require.Regexp(t, `^ecmul ecdsa-verify: stats: items=5 failed=0 [^\n]*\n$`, errOut)
	code, _, errOut = cli(t, strings.Join(lines, "\n"), "ecdsa-verify", "--curve", "p256", "--backend", "cpu")
	require.Equal(t, exitOK, code)
	require.Empty(t, errOut)
}

// TestECDSAVerifyJSONL: --format jsonl reads the fields as the strings of
// one JSON object, its keys following --sig and --key, as mul reads
// jsonl, and answers {"valid":...} or {"error":"line N: ..."}; raw and
// sec1 are usage errors.
func TestECDSAVerifyJSONL(t *testing.T) {
	c := curves.P256()
	priv, err := stdecdsa.GenerateKey(elliptic.P256(), nil)
	require.NoError(t, err)
	d := sha256.Sum256([]byte("jsonl"))
	r, s, err := stdecdsa.Sign(nil, priv, d[:])
	require.NoError(t, err)
	key := hex.EncodeToString(c.EncodeSEC1(&curves.Point{X: priv.X, Y: priv.Y}, true))
	der := derHex(r, s)
	xy := fmt.Sprintf(`"qx":"%x","qy":"%x"`, priv.X, priv.Y)
	rs := fmt.Sprintf(`"r":"%x","s":"%x"`, r, s)
	dg := fmt.Sprintf(`"digest":"%x"`, d)
	for _, tc := range []struct {
		args  []string
		lines []string
		want  string
	}{
		{nil, []string{
			"{" + dg + "," + rs + "," + xy + "}",
			"{" + xy + "," + rs + "," + dg + "}", // any order
			fmt.Sprintf(`{"digest":"%x",%s,%s}`, d[1:], rs, xy),
			"{" + dg + "," + rs + "," + xy + `,"sig":"00"}`,
			"{" + dg + "," + rs + "," + xy + "} x",
			fmt.Sprintf(`{%s,"r":"zz","s":"%x",%s}`, dg, s, xy),
			"not json",
		}, `{"valid":true}` + "\n" + `{"valid":true}` + "\n" + `{"valid":false}` + "\n" +
			`{"error":"line 4: unknown key \"sig\" (want digest, r, s, qx and qy)"}` + "\n" +
			`{"error":"line 5: data after the JSON object"}` + "\n" +
			`{"error":"line 6: r: not hex: \"zz\""}` + "\n" +
			`{"error":"line 7: not a JSON object (want {\"digest\":\"HEX\",\"r\":\"HEX\",\"s\":\"HEX\",\"qx\":\"HEX\",\"qy\":\"HEX\"})"}` + "\n"},
		{[]string{"--sig", "der", "--key", "sec1"}, []string{
			fmt.Sprintf(`{%s,"sig":"%s","key":"%s"}`, dg, der, key),
			fmt.Sprintf(`{%s,"sig":"%s","key":"00"}`, dg, der),
			fmt.Sprintf(`{%s,%s,"key":"%s"}`, dg, rs, key),
		}, `{"valid":true}` + "\n" +
			`{"error":"line 2: key: P-256: SEC1 encoding 0x00 is the point at infinity, which is not an affine point"}` + "\n" +
			`{"error":"line 3: unknown key \"r\" (want digest, sig and key)"}` + "\n"},
	} {
		args := append([]string{"ecdsa-verify", "--curve", "p256", "--backend", "cpu", "--format", "JSONL"}, tc.args...)
		code, out, errOut := cli(t, strings.Join(tc.lines, "\n")+"\n", args...)
		require.Equal(t, exitFail, code, errOut)
		requireSameLines(t, tc.want, out, args)
	}
	requireUsage(t, []string{"ecdsa-verify", "--format", "raw"}, "ecdsa-verify reads hex or jsonl")
	requireUsage(t, []string{"ecdsa-verify", "--format", "sec1"}, "ecdsa-verify reads hex or jsonl")
	requireUsage(t, []string{"ecdsa-verify", "--format", "xml"}, "--format", "unknown format")
}
