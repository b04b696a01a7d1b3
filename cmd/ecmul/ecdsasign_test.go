package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto"
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"encoding/asn1"
	"encoding/hex"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/ecdsa"
	"github.com/rnsec/ecmul/internal/curves"
)

// signLines runs ecdsa-sign's core on in, chunk lines per call of Sign,
// with k·G on the cpu backend, and returns its output, items and failed
// items.
func signLines(t *testing.T, c *curves.Curve, opts ecdsa.SignOptions, der, jsonl bool, chunk int, in string) (string, int, int) {
	t.Helper()
	e, err := ecmul.New(publicCurve(c), ecmul.Options{Backend: ecmul.CPU})
	require.NoError(t, err)
	defer e.Close()
	var out bytes.Buffer
	s := newSigner(context.Background(), c, e, opts, chunk, &out)
	s.der, s.jsonl = der, jsonl
	require.NoError(t, runChunks(strings.NewReader(in), s))
	return out.String(), s.items, s.failed
}

func digestOf(h crypto.Hash, msg string) string {
	d := h.New()
	d.Write([]byte(msg))
	return hex.EncodeToString(d.Sum(nil))
}

// TestECDSASignLines: one answer per non-empty line, in order: RFC 6979's
// signatures (A.2.5) for good items, "error: line N: REASON" for a key
// outside [1, n − 1], a digest that implies no hash, bad hex, a wrong field
// count or a line too long; blank lines counted, \r\n, a BOM, 0x and upper
// case accepted; the same for any chunk.
func TestECDSASignLines(t *testing.T) {
	c := curves.P256()
	key := "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"
	n := fmt.Sprintf("%x", c.N())
	lines := []string{
		"\xef\xbb\xbf" + digestOf(crypto.SHA256, "sample") + " " + key, // 1
		"", // 2
		"  0X" + strings.ToUpper(digestOf(crypto.SHA1, "test")) + "\t0x00" + key + " \r", // 3
		digestOf(crypto.SHA256, "sample")[:62] + " " + key,                               // 4
		digestOf(crypto.SHA256, "sample") + " 0",                                         // 5
		digestOf(crypto.SHA256, "sample") + " " + n,                                      // 6
		digestOf(crypto.SHA256, "sample") + " 1" + strings.Repeat("0", 64),               // 7
		"abc " + key, // 8
		digestOf(crypto.SHA256, "sample") + " " + key + " 00", // 9
		strings.Repeat("0", 5000),                             // 10
		digestOf(crypto.SHA256, "sample") + " zz",             // 11
		digestOf(crypto.SHA512, "test") + " " + key,           // 12
	}
	in := strings.Join(lines, "\r\n") + "\n"
	want := "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716 f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8\n" +
		"0cbcc86fd6abd1d99e703e1ec50069ee5c0b4ba4b9ac60e409e8ec5910d81a89 01b9d7b73dfaa60d5651ec4591a0136f87653e0fd780c3b1bc872ffdeae479b1\n" +
		"error: line 4: digest length: a digest of 31 bytes implies no hash (20, 28, 32, 48 or 64 bytes); name one\n" +
		"error: line 5: key: private key outside [1, n−1]: it is 0\n" +
		"error: line 6: key: private key outside [1, n−1]: it is n or more\n" +
		"error: line 7: key: private key outside [1, n−1]: it is n or more\n" +
		"error: line 8: digest: an odd number of hex digits\n" +
		"error: line 9: want 2 fields (DIGEST_HEX PRIVATE_KEY_HEX), got 3\n" +
		"error: line 10: longer than 4096 bytes\n" +
		"error: line 11: key: not hex\n" +
		"461d93f31b6540894788fd206c07cfa0cc35f46fa3c91816fff1040ad1581a04 39af9f15de0db8d97e72719c74820d304ce5226e32dedae67519e840d1194e55\n"
	for _, chunk := range []int{1, 4, 100} {
		out, items, failed := signLines(t, c, ecdsa.SignOptions{}, false, false, chunk, in)
		require.Equal(t, want, out, "chunk %d", chunk)
		require.Equal(t, 11, items)
		require.Equal(t, 8, failed)
	}
}

// TestECDSASignFormats: --der answers are crypto/ecdsa's deterministic
// DER signatures, byte for byte; jsonl takes {"digest","key"} and answers
// {"r","s"}, {"sig"} with --der, or {"error"}.
func TestECDSASignFormats(t *testing.T) {
	c := curves.P224()
	priv, err := stdecdsa.ParseRawPrivateKey(elliptic.P224(), bytes.Repeat([]byte{0x5a}, 28))
	require.NoError(t, err)
	key := strings.Repeat("5a", 28)
	var in, jin, wantDER, wantJSONDER strings.Builder
	for i, h := range []crypto.Hash{crypto.SHA1, crypto.SHA224, crypto.SHA256, crypto.SHA384, crypto.SHA512} {
		d := digestOf(h, fmt.Sprint("message ", i))
		fmt.Fprintf(&in, "%s %s\n", d, key)
		fmt.Fprintf(&jin, "{\"digest\":\"%s\",\"key\":\"%s\"}\n", d, key)
		raw, _ := hex.DecodeString(d)
		sig, err := priv.Sign(nil, raw, h)
		require.NoError(t, err)
		fmt.Fprintf(&wantDER, "%x\n", sig)
		fmt.Fprintf(&wantJSONDER, "{\"sig\":\"%x\"}\n", sig)
	}
	out, _, failed := signLines(t, c, ecdsa.SignOptions{}, true, false, 3, in.String())
	require.Equal(t, wantDER.String(), out)
	require.Zero(t, failed)
	out, _, _ = signLines(t, c, ecdsa.SignOptions{}, true, true, 3, jin.String())
	require.Equal(t, wantJSONDER.String(), out)

	plain, _, _ := signLines(t, c, ecdsa.SignOptions{}, false, false, 3, in.String())
	out, _, _ = signLines(t, c, ecdsa.SignOptions{}, false, true, 3, jin.String()+"{\"digest\":\"00\"}\n")
	var want strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(plain), "\n") {
		r, s, _ := strings.Cut(l, " ")
		fmt.Fprintf(&want, "{\"r\":\"%s\",\"s\":\"%s\"}\n", r, s)
	}
	require.Equal(t, want.String(), out[:want.Len()])
	require.True(t, strings.HasPrefix(out[want.Len():], `{"error":"line 6: `), out)
}

// TestECDSASignSecp256k1: on secp256k1 s is low by default, as
// libsecp256k1 signs, and high where it falls so when asked: python-ecdsa's
// signatures (testdata/rfc6979) either way.
func TestECDSASignSecp256k1(t *testing.T) {
	f, err := os.Open("../../testdata/rfc6979/secp256k1.txt")
	require.NoError(t, err)
	defer f.Close()
	var in, low, high strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		x := strings.Fields(sc.Text())
		if len(x) != 9 || x[3] != "-" {
			continue // the comment, and hedged items
		}
		fmt.Fprintf(&in, "%s %s\n", x[2], x[1])
		fmt.Fprintf(&low, "%s %s\n", x[5], x[7])
		fmt.Fprintf(&high, "%s %s\n", x[5], x[6])
	}
	require.NoError(t, sc.Err())
	require.NotZero(t, in.Len())
	c := curves.Secp256k1()
	off := false
	for _, tc := range []struct {
		lowS *bool
		want string
	}{{nil, low.String()}, {&off, high.String()}} {
		opt, err := signOptions("", tc.lowS, false)
		require.NoError(t, err)
		out, _, failed := signLines(t, c, opt, false, false, 8, in.String())
		require.Zero(t, failed)
		require.Equal(t, tc.want, out)
	}
	require.NotEqual(t, low.String(), high.String())
}

func TestSignOptions(t *testing.T) {
	opts, err := signOptions("SHA-384", nil, true)
	require.NoError(t, err)
	require.Equal(t, ecdsa.SignOptions{Hash: crypto.SHA384, LowS: ecdsa.LowSDefault, Hedged: true}, opts)
	_, err = signOptions("md5", nil, false)
	require.ErrorContains(t, err, `--hash: ecdsasign: unsupported hash "md5"`)
	on, off := true, false
	opts, err = signOptions("", &on, false)
	require.NoError(t, err)
	require.Equal(t, ecdsa.SignOptions{LowS: ecdsa.LowSOn}, opts)
	opts, err = signOptions("", &off, false)
	require.NoError(t, err)
	require.Equal(t, ecdsa.SignOptions{LowS: ecdsa.LowSOff}, opts)
}

// TestDecodePrivateKey: any number of leading zeros, 0x, and a value of
// 2^(8L) or more refused.
func TestDecodePrivateKey(t *testing.T) {
	dst := make([]byte, 4)
	require.NoError(t, decodePrivateKey(dst, "0x"+strings.Repeat("0", 40)+"1234"))
	require.Equal(t, []byte{0, 0, 0x12, 0x34}, dst)
	require.NoError(t, decodePrivateKey(dst, "FFFFFFFF"))
	require.Equal(t, []byte{0xff, 0xff, 0xff, 0xff}, dst)
	require.ErrorIs(t, decodePrivateKey(dst, "100000000"), ecdsa.ErrPrivateKey)
	for _, bad := range []string{"", "0x", "-1", "12 34", "0xg"} {
		require.Error(t, decodePrivateKey(dst, bad), "%q", bad)
	}
}

// FuzzDecodePrivateKey: PRIVATE_KEY_HEX decodes exactly when it is hex
// (0x or 0X, then at least one hex digit), to math/big's value when that
// is below 2^256, and to ErrKey when it is not.
func FuzzDecodePrivateKey(f *testing.F) {
	for _, s := range []string{"1", "0x00ff", "0X", "0x0X1", "-1", "+1", "1_0", strings.Repeat("f", 65), "0x" + strings.Repeat("0", 70) + "7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, field string) {
		dst := make([]byte, 32)
		err := decodePrivateKey(dst, field)
		digits := field
		if strings.HasPrefix(field, "0x") || strings.HasPrefix(field, "0X") {
			digits = field[2:]
		}
		isHex := digits != "" && strings.Trim(digits, "0123456789abcdefABCDEF") == ""
		if !isHex {
			require.Error(t, err)
			require.NotErrorIs(t, err, ecdsa.ErrPrivateKey)
			return
		}
		want, _ := new(big.Int).SetString(digits, 16)
		if want.BitLen() > 256 {
			require.ErrorIs(t, err, ecdsa.ErrPrivateKey)
			return
		}
		require.NoError(t, err)
		require.Equal(t, want.FillBytes(make([]byte, 32)), dst)
	})
}

// FuzzECDSASignLine: a line of ecdsa-sign on P-256 is answered by an
// error line naming it exactly when the grammar (two fields, hex as
// refHex reads it, a digest of 20, 28, 32, 48 or 64 bytes, a key in
// [1, n − 1], at most 4096 bytes) refuses it, and otherwise by
// crypto/ecdsa's deterministic signature of the digest with that key.
func FuzzECDSASignLine(f *testing.F) {
	key := "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"
	for _, s := range []string{
		digestOf(crypto.SHA256, "sample") + " " + key,
		"0x" + digestOf(crypto.SHA1, "x") + "\t0X0" + key,
		digestOf(crypto.SHA512, "y") + " 1",
		digestOf(crypto.SHA256, "z") + " 0", "00 1", "zz 1", "a b c", "",
		digestOf(crypto.SHA384, "w") + " -1",
	} {
		f.Add(s)
	}
	c := curves.P256()
	e, err := ecmul.New(publicCurve(c), ecmul.Options{Backend: ecmul.CPU})
	require.NoError(f, err)
	f.Cleanup(func() { e.Close() })
	hashOf := map[int]crypto.Hash{20: crypto.SHA1, 28: crypto.SHA224, 32: crypto.SHA256, 48: crypto.SHA384, 64: crypto.SHA512}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\r\n") || strings.HasPrefix(line, "\xef\xbb\xbf") || strings.TrimSpace(line) == "" {
			t.Skip("one non-blank line, as the reading of lines leaves it")
		}
		var out bytes.Buffer
		s := newSigner(context.Background(), c, e, ecdsa.SignOptions{}, 1, &out)
		require.NoError(t, runChunks(strings.NewReader(line+"\n"), s))
		got := strings.TrimSuffix(out.String(), "\n")
		want := func() string {
			if len(line) > stream.MaxLine {
				return ""
			}
			vals := strings.FieldsFunc(strings.TrimSpace(line), func(r rune) bool { return r == ' ' || r == '\t' })
			if len(vals) != 2 {
				return ""
			}
			dv, digits, ok := refHex(vals[0])
			h, known := hashOf[digits/2]
			if !ok || digits%2 == 1 || !known {
				return ""
			}
			d, _, ok := refHex(vals[1])
			if !ok || d.Sign() == 0 || d.Cmp(c.N()) >= 0 {
				return ""
			}
			priv, err := stdecdsa.ParseRawPrivateKey(elliptic.P256(), d.FillBytes(make([]byte, 32)))
			require.NoError(t, err)
			der, err := priv.Sign(nil, dv.FillBytes(make([]byte, digits/2)), h)
			require.NoError(t, err)
			var sig struct{ R, S *big.Int }
			_, err = asn1.Unmarshal(der, &sig)
			require.NoError(t, err)
			return fmt.Sprintf("%064x %064x", sig.R, sig.S)
		}()
		if want == "" {
			require.True(t, strings.HasPrefix(got, "error: line 1: "), "%q: %q", line, got)
			require.NotContains(t, got, "\n")
			return
		}
		require.Equal(t, want, got, "%q", line)
	})
}
