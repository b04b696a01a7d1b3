package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/ecdsa"
	"github.com/rnsec/ecmul/internal/curves"
)

// TestTextbookSignVectors: verify's RFC 6979 reference gives RFC 6979's
// own P-256 signatures (A.2.5, SHA-256 and SHA-512 of "sample") and
// python-ecdsa's secp256k1 signatures (testdata/rfc6979, made low-s, those
// without extra data).
func TestTextbookSignVectors(t *testing.T) {
	c := curves.P256()
	d, _ := new(big.Int).SetString("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721", 16)
	for _, v := range []struct {
		h    crypto.Hash
		r, s string
	}{
		{crypto.SHA256, "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716", "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8"},
		{crypto.SHA512, "8496a60b5e9b47c825488827e0495b0e3fa109ec4568fd3f8d1097678eb97f00", "2362ab1adbe2b8adf9cb9edab740ea6049c028114f2460f96554f61fae3302fe"},
	} {
		digest, _ := hex.DecodeString(digestOf(v.h, "sample"))
		r, s := textbookSign(c, d, digest)
		require.Equal(t, v.r, fmt.Sprintf("%064x", r), v.h)
		require.Equal(t, v.s, fmt.Sprintf("%064x", s), v.h)
	}

	f, err := os.Open(filepath.Join(sourceDir(), "..", "..", "testdata", "rfc6979", "secp256k1.txt"))
	require.NoError(t, err)
	defer f.Close()
	k1, checked := curves.Secp256k1(), 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 9 || fields[3] != "-" {
			continue // a comment, or a signature with extra data
		}
		d, _ := new(big.Int).SetString(fields[1], 16)
		digest, err := hex.DecodeString(fields[2])
		require.NoError(t, err)
		r, s := textbookSign(k1, d, digest)
		require.Equal(t, fields[5], fmt.Sprintf("%064x", r), sc.Text())
		require.Equal(t, fields[7], fmt.Sprintf("%064x", s), sc.Text())
		checked++
	}
	require.NoError(t, sc.Err())
	require.Greater(t, checked, 20, "vectors read")
}

// TestVerifySignItems checks the items of sign: each case first, then
// about one in four of another case, every digest of a hash's length but
// those made to fail, every key in [1, n) but those made to fail, item i
// the same whatever the chunks.
func TestVerifySignItems(t *testing.T) {
	for _, c := range curves.All() {
		v := signItems{c, 3}
		items := v.items(0, 400)
		kinds, lens := map[int]int{}, map[int]bool{}
		for i, it := range items {
			if i < signItemCases {
				require.Equal(t, i, it.kind)
			}
			kinds[it.kind]++
			require.Equal(t, v.item(int64(i)), v.items(int64(i), int64(i)+1)[0], "item %d", i)
			if it.kind == signDigestLen {
				require.Len(t, it.digest, 33)
			} else {
				require.NotZero(t, digestHash(it.digest), "item %d", i)
				lens[len(it.digest)] = true
			}
			if it.wantErr() != ecdsa.ErrPrivateKey {
				require.True(t, it.d.Sign() > 0 && it.d.Cmp(c.N()) < 0, "item %d", i)
			}
		}
		require.Len(t, lens, len(signDigestLens))
		require.Len(t, kinds, signItemCases)
		require.Greater(t, kinds[signDeterministic], 250)
		require.Greater(t, kinds[signHedged], 5)
	}
}

// faultySign wraps ecdsa.Sign on a cpu engine and changes the answers of
// chosen items, found by their digest and key.
type faultySign struct {
	eng   *ecmul.Engine
	spoil map[string]func(sig []byte, err *error) // by digest and key
}

// spoilItems returns the spoilers of items by their index, keyed by the
// items' digest and key.
func spoilItems(v signItems, by map[int64]func(sig []byte, err *error)) map[string]func(sig []byte, err *error) {
	out := map[string]func(sig []byte, err *error){}
	for i, g := range by {
		it := v.item(i)
		out[string(it.digest)+string(it.d.FillBytes(make([]byte, v.c.ByteLen())))] = g
	}
	return out
}

func (f *faultySign) sign(ctx context.Context, sigs []byte, errs []error, digests [][]byte, keys []byte, opts ecdsa.SignOptions) error {
	err := ecdsa.Sign(ctx, f.eng, sigs, errs, digests, keys, opts)
	L := f.eng.Curve().ByteLen()
	for j := range digests {
		if g, ok := f.spoil[string(digests[j])+string(keys[j*L:(j+1)*L])]; ok {
			g(sigs[j*2*L:(j+1)*2*L], &errs[j])
		}
	}
	return err
}

// TestVerifySignReportsMismatches: a signature that does not verify, one
// that verifies but is not the deterministic one, a high s on secp256k1, a
// signature where an error is due, a wrong error, and an error where a
// signature is due are each reported on a line naming the item; the run
// fails.
func TestVerifySignReportsMismatches(t *testing.T) {
	for _, c := range []*curves.Curve{curves.P256(), curves.Secp256k1()} {
		eng, err := ecmul.New(publicCurve(c), ecmul.Options{Backend: ecmul.CPU})
		require.NoError(t, err)
		defer eng.Close()
		L, n := c.ByteLen(), c.N()
		f := &faultySign{eng: eng, spoil: spoilItems(signItems{c, 2}, map[int64]func([]byte, *error){
			0: func(sig []byte, _ *error) { sig[L-1] ^= 1 }, // r changed: invalid
			2: func(sig []byte, _ *error) { // n − s: valid, not the deterministic s
				s := new(big.Int).SetBytes(sig[L:])
				s.Sub(n, s).FillBytes(sig[L:])
			},
			3: func(_ []byte, err *error) { *err = errors.New("ecdsa: item 3: internal fault") },
			4: func(_ []byte, err *error) { *err = nil }, // d = 0 signed, its signature zero
			6: func(_ []byte, err *error) { *err = ecdsa.ErrPrivateKey },
		})}
		var out, errOut bytes.Buffer
		cfg := verifyConfig{curve: c, op: opSign, n: 20, seed: 2, chunk: 10, header: "backend=test"}
		code := verifyRun(context.Background(), verifyEngine{sign: f.sign}, cfg, &out, &errOut)
		require.Equal(t, exitFail, code, out.String())
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		require.Len(t, lines, 1+5+2, out.String())
		require.True(t, strings.HasPrefix(lines[0], "verify curve="+c.Name()+" op=sign backend=test n=20 "), lines[0])
		m := summary.FindStringSubmatch(lines[len(lines)-2])
		require.NotNil(t, m, out.String())
		require.Equal(t, []string{"20", "3", "2"}, m[1:])
		require.Equal(t, "FAIL", lines[len(lines)-1])

		line := regexp.MustCompile(`^mismatch index=(\d+) case=(\S+) digest=([0-9a-f]+) key=([0-9a-f]+) got=(.+?) want=(.+)$`)
		items := signItems{c, 2}.items(0, 20)
		for j, idx := range []int{0, 2, 3, 4, 6} {
			m := line.FindStringSubmatch(lines[1+j])
			require.NotNil(t, m, lines[1+j])
			require.Equal(t, fmt.Sprint(idx), m[1])
			it := items[idx]
			require.Equal(t, signItemCaseNames[it.kind], m[2])
			require.Equal(t, fmt.Sprintf("%x", it.digest), m[3])
			require.Equal(t, fmt.Sprintf("%x", it.d), m[4])
		}
		refName := "crypto/ecdsa"
		if c == curves.Secp256k1() {
			refName = "gnark-crypto"
		}
		require.Contains(t, lines[1], " want=valid("+refName+"=invalid)")
		tr, ts := textbookSign(c, items[2].d, items[2].digest)
		if c == curves.Secp256k1() {
			require.True(t, strings.HasSuffix(lines[2], " want=low-s"), lines[2])
		} else {
			require.True(t, strings.HasSuffix(lines[2], fmt.Sprintf(" want=%064x,%064x", tr, ts)), lines[2])
		}
		require.Contains(t, lines[3], " got=error(item 3: internal fault) want=signature")
		require.True(t, strings.HasSuffix(lines[4], fmt.Sprintf(" got=%s,%s want=error(private key outside [1, n−1])",
			strings.Repeat("0", 2*L), strings.Repeat("0", 2*L))), lines[4])
		require.True(t, strings.HasSuffix(lines[5], " got=error(private key outside [1, n−1]) want=error(digest length)"), lines[5])
	}
}

// TestVerifySignBatchError: ecdsa.Sign failing as a whole ends the run.
func TestVerifySignBatchError(t *testing.T) {
	fail := func(context.Context, []byte, []error, [][]byte, []byte, ecdsa.SignOptions) error {
		return errors.New("device lost")
	}
	var out, errOut bytes.Buffer
	code := verifyRun(context.Background(), verifyEngine{sign: fail}, verifyConfig{curve: curves.P224(), op: opSign, n: 5, seed: 1, chunk: 10}, &out, &errOut)
	require.Equal(t, exitFail, code)
	require.Contains(t, errOut.String(), "ecmul verify: device lost")
	require.Contains(t, out.String(), "items=0 mismatches=0 item_errors=0 ")
	require.True(t, strings.HasSuffix(out.String(), "FAIL\n"))
}
