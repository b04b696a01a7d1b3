package main

import (
	"crypto"
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"encoding/hex"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
)

// signCase is one item of ecdsa-sign: its digest, key and public key.
type signCase struct {
	digest []byte
	hash   crypto.Hash
	d      *big.Int
	qx, qy *big.Int
}

// signCases returns count seeded items on c, with digests of the five
// hashes' lengths in turn.
func signCases(c *curves.Curve, count int) []signCase {
	rng := newRNG(uint64(4100 + c.ByteLen()))
	hashes := []crypto.Hash{crypto.SHA1, crypto.SHA224, crypto.SHA256, crypto.SHA384, crypto.SHA512}
	cs := make([]signCase, count)
	for i := range cs {
		d := randScalar(rng, c)
		q := mustBaseMult(c, d)
		h := hashes[i%len(hashes)]
		w := h.New()
		fmt.Fprintf(w, "message %d", i)
		cs[i] = signCase{digest: w.Sum(nil), hash: h, d: d, qx: q.X, qy: q.Y}
	}
	return cs
}

// stdCurve is crypto/ecdsa's curve of c, nil for secp256k1.
func stdCurve(c *curves.Curve) elliptic.Curve {
	return map[*curves.Curve]elliptic.Curve{curves.P224(): elliptic.P224(), curves.P256(): elliptic.P256()}[c]
}

// TestECDSASignVerifies signs seeded items of every curve with the
// command, k·G on the cpu and rns-cpu backends: the two backends' answers
// are the same; on P-224 and P-256 every signature is crypto/ecdsa's
// deterministic one and verifies with crypto/ecdsa; every signature, as
// R_HEX S_HEX and as --der, is valid to ecdsa-verify (ecdsa.Verify) on the
// cpu and rns-cpu backends, and a bad line among them gets its error while
// the others get their answers.
func TestECDSASignVerifies(t *testing.T) {
	const count = 8
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			cs := signCases(c, count)
			var in strings.Builder
			for i, x := range cs {
				fmt.Fprintf(&in, "%x %x\n", x.digest, x.d)
				if i == 2 {
					in.WriteString("00 1\n") // line 4: a digest of one byte
				}
			}
			answers := map[string][]string{}
			for _, b := range []string{"cpu", "rns-cpu"} {
				for _, der := range []bool{false, true} {
					args := []string{"ecdsa-sign", "--curve", c.Name(), "--backend", b, "--chunk", "3"}
					if der {
						args = append(args, "--der")
					}
					code, out, errOut := cli(t, in.String(), args...)
					require.Equal(t, exitFail, code, errOut)
					require.Equal(t, fmt.Sprintf("ecmul ecdsa-sign: 1 of %d item(s) failed\n", count+1), errOut)
					lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
					require.Len(t, lines, count+1)
					require.Equal(t, "error: line 4: digest length: a digest of 1 bytes implies no hash (20, 28, 32, 48 or 64 bytes); name one", lines[3])
					lines = append(lines[:3:3], lines[4:]...)
					key := fmt.Sprint(der)
					if answers[key] == nil {
						answers[key] = lines
					}
					require.Equal(t, answers[key], lines, "backend %s: the same answers as the cpu backend's", b)
				}
			}
			var verifyIn, verifyDER strings.Builder
			for i, x := range cs {
				r, s, ok := strings.Cut(answers["false"][i], " ")
				require.True(t, ok, answers["false"][i])
				fmt.Fprintf(&verifyIn, "%x %s %s %x %x\n", x.digest, r, s, x.qx, x.qy)
				fmt.Fprintf(&verifyDER, "%x %s %x %x\n", x.digest, answers["true"][i], x.qx, x.qy)
				rb, _ := new(big.Int).SetString(r, 16)
				sb, _ := new(big.Int).SetString(s, 16)
				require.Equal(t, derHex(rb, sb), answers["true"][i], "item %d: --der is r and s in DER", i)
				std := stdCurve(c)
				if std == nil {
					continue
				}
				priv, err := stdecdsa.ParseRawPrivateKey(std, x.d.FillBytes(make([]byte, c.ByteLen())))
				require.NoError(t, err)
				want, err := priv.Sign(nil, x.digest, x.hash)
				require.NoError(t, err)
				require.Equal(t, hex.EncodeToString(want), answers["true"][i], "item %d: crypto/ecdsa's deterministic signature", i)
				require.True(t, stdecdsa.VerifyASN1(&priv.PublicKey, x.digest, want))
			}
			for _, b := range []string{"cpu", "rns-cpu"} {
				code, out, errOut := cli(t, verifyIn.String(), "ecdsa-verify", "--curve", c.Name(), "--backend", b)
				require.Equal(t, exitOK, code, errOut)
				require.Equal(t, strings.Repeat("valid\n", count), out)
				code, out, errOut = cli(t, verifyDER.String(), "ecdsa-verify", "--curve", c.Name(), "--backend", b, "--sig", "der")
				require.Equal(t, exitOK, code, errOut)
				require.Equal(t, strings.Repeat("valid\n", count), out)
			}
		})
	}
}

// TestECDSASignLowSAndHedged: secp256k1's signatures have s ≤ n/2 unless
// --low-s=false, and P-256's only with --low-s; --hash names the HMAC's
// hash and the digests' length; --hedged signatures verify, and differ
// from run to run.
func TestECDSASignLowSAndHedged(t *testing.T) {
	for _, c := range []*curves.Curve{curves.Secp256k1(), curves.P256()} {
		cs := signCases(c, 10)
		var in strings.Builder
		for _, x := range cs {
			fmt.Fprintf(&in, "%x %x\n", x.digest, x.d)
		}
		half := new(big.Int).Rsh(c.N(), 1)
		highS := func(out string) int {
			n := 0
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				_, s, _ := strings.Cut(l, " ")
				v, ok := new(big.Int).SetString(s, 16)
				require.True(t, ok, l)
				if v.Cmp(half) > 0 {
					n++
				}
			}
			return n
		}
		base := []string{"ecdsa-sign", "--curve", c.Name(), "--backend", "cpu"}
		_, def, _ := cli(t, in.String(), base...)
		_, on, _ := cli(t, in.String(), append(base, "--low-s")...)
		_, off, _ := cli(t, in.String(), append(base, "--low-s=false")...)
		require.Zero(t, highS(on), c.Name())
		require.Positive(t, highS(off), "%s: the seeded items have a high s", c.Name())
		if c == curves.Secp256k1() {
			require.Equal(t, on, def)
		} else {
			require.Equal(t, off, def)
		}
		code, h1, errOut := cli(t, in.String(), append(base, "--hedged")...)
		require.Equal(t, exitOK, code, errOut)
		_, h2, _ := cli(t, in.String(), append(base, "--hedged")...)
		require.NotEqual(t, h1, h2)
		require.NotEqual(t, def, h1)
		var verifyIn strings.Builder
		for i, l := range strings.Split(strings.TrimSpace(h1), "\n") {
			fmt.Fprintf(&verifyIn, "%x %s %x %x\n", cs[i].digest, l, cs[i].qx, cs[i].qy)
		}
		code, out, errOut := cli(t, verifyIn.String(), "ecdsa-verify", "--curve", c.Name(), "--backend", "cpu")
		require.Equal(t, exitOK, code, errOut)
		require.Equal(t, strings.Repeat("valid\n", len(cs)), out)
	}
	code, out, _ := cli(t, fmt.Sprintf("%x 1\n%x 1\n", make([]byte, 64), make([]byte, 32)), "ecdsa-sign", "--curve", "p256", "--backend", "cpu", "--hash", "SHA-512")
	require.Equal(t, exitFail, code)
	lines := strings.Split(out, "\n")
	require.Regexp(t, `^[0-9a-f]{64} [0-9a-f]{64}$`, lines[0])
	require.Equal(t, "error: line 2: digest length: a digest of 32 bytes, SHA-512 takes 64", lines[1])
}

// TestECDSASignStreams: --stats, --in and --out (the input replaced),
// jsonl, and the answers of a paused stream, as ecdsa-verify has them.
func TestECDSASignStreams(t *testing.T) {
	cs := signCases(curves.P256(), 4)
	var in, jin strings.Builder
	for _, x := range cs {
		fmt.Fprintf(&in, "%x %x\n", x.digest, x.d)
		fmt.Fprintf(&jin, "{\"key\":\"%x\",\"digest\":\"%x\"}\n", x.d, x.digest)
	}
	base := []string{"ecdsa-sign", "--curve", "p256", "--backend", "cpu"}
	code, want, errOut := cli(t, in.String(), append(base, "--stats")...)
	require.Equal(t, exitOK, code)
	require.Regexp(t, `^ecmul ecdsa-sign: stats: items=4 failed=0 seconds=[0-9.]+ op/s=[0-9]+ peak_rss_mib=\S+ backend=cpu open_seconds=[0-9.]+\n$`, errOut)
	code, _, errOut = cli(t, in.String()+"x\n", append(base, "--stats")...)
	require.Equal(t, exitFail, code)
	require.Regexp(t, `^ecmul ecdsa-sign: stats: items=5 failed=1 [^\n]*\necmul ecdsa-sign: 1 of 5 item\(s\) failed\n$`, errOut)

	path := filepath.Join(t.TempDir(), "items.txt")
	require.NoError(t, os.WriteFile(path, []byte(in.String()), 0o644))
	code, out, errOut := cli(t, "", append(base, "--in", path, "--out", path)...)
	require.Equal(t, exitOK, code, errOut)
	require.Empty(t, out)
	requireContent(t, path, want)

	code, out, errOut = cli(t, jin.String()+"{\"digest\":\"00\"}\n", append(base, "--format", "jsonl", "--der")...)
	require.Equal(t, exitFail, code, errOut)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 5)
	for i, l := range strings.Split(strings.TrimSpace(want), "\n") {
		r, s, _ := strings.Cut(l, " ")
		rb, _ := new(big.Int).SetString(r, 16)
		sb, _ := new(big.Int).SetString(s, 16)
		require.Equal(t, `{"sig":"`+derHex(rb, sb)+`"}`, lines[i])
	}
	require.Equal(t, `{"error":"line 5: key \"key\" is missing"}`, lines[4])

	pr, pw := io.Pipe()
	var buf lockedBuffer
	done := make(chan int)
	go func() { done <- run(base, pr, &buf, io.Discard) }()
	first := strings.SplitAfter(want, "\n")[0]
	_, err := io.WriteString(pw, strings.SplitAfter(in.String(), "\n")[0])
	require.NoError(t, err)
	start := time.Now()
	for buf.String() != first {
		require.Less(t, time.Since(start), 5*time.Second, "the answer to a paused stream: %q", buf.String())
		time.Sleep(time.Millisecond)
	}
	t.Logf("first answer %v after its line", time.Since(start))
	require.NoError(t, pw.Close())
	require.Equal(t, exitOK, <-done)
}
