package wycheproof_test

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/wycheproof"
)

type fileInfo struct {
	name                              string
	curve, encoding                   string
	total, valid, acceptable, invalid int
}

// Counts as documented in testdata/README.md.
var files = []fileInfo{
	{"ecdh_secp224r1_ecpoint_test.json.gz", "secp224r1", "ecpoint", 458, 439, 1, 18},
	{"ecdh_secp224r1_test.json.gz", "secp224r1", "asn", 714, 439, 230, 45},
	{"ecdh_secp256r1_ecpoint_test.json.gz", "secp256r1", "ecpoint", 355, 330, 1, 24},
	{"ecdh_secp256r1_test.json.gz", "secp256r1", "asn", 612, 330, 230, 52},
	{"ecdh_secp256k1_test.json.gz", "secp256k1", "asn", 752, 473, 230, 49},
}

func TestDir(t *testing.T) {
	dir := wycheproof.Dir()
	require.True(t, filepath.IsAbs(dir), dir)
	st, err := os.Stat(dir)
	require.NoError(t, err)
	require.True(t, st.IsDir())
	entries, err := filepath.Glob(filepath.Join(dir, "ecdh_*.json.gz"))
	require.NoError(t, err)
	require.Len(t, entries, len(files))
	entries, err = filepath.Glob(filepath.Join(dir, "ecdsa_*.json.gz"))
	require.NoError(t, err)
	require.Len(t, entries, len(ecdsaFiles))
	all, err := filepath.Glob(filepath.Join(dir, "*.json.gz"))
	require.NoError(t, err)
	require.Len(t, all, len(files)+len(ecdsaFiles))
}

func TestLoad(t *testing.T) {
	for _, fi := range files {
		t.Run(fi.name, func(t *testing.T) {
			f, err := wycheproof.Load(wycheproof.Path(fi.name))
			require.NoError(t, err)
			require.Equal(t, fi.curve, f.Curve)
			require.Equal(t, fi.encoding, f.Encoding)
			require.Len(t, f.Cases, fi.total)
			counts := map[string]int{}
			seen := map[int]bool{}
			for _, c := range f.Cases {
				counts[c.Result]++
				require.False(t, seen[c.TcID], "duplicate tcId %d", c.TcID)
				seen[c.TcID] = true
				require.NotNil(t, c.Private)
				require.GreaterOrEqual(t, c.Private.Sign(), 0)
				if c.Result == wycheproof.Valid {
					require.NotEmpty(t, c.Shared, "tcId %d", c.TcID)
				}
			}
			require.Equal(t, fi.valid, counts[wycheproof.Valid])
			require.Equal(t, fi.acceptable, counts[wycheproof.Acceptable])
			require.Equal(t, fi.invalid, counts[wycheproof.Invalid])
		})
	}
}

func TestLoadErrors(t *testing.T) {
	_, err := wycheproof.Load(filepath.Join(t.TempDir(), "missing.json.gz"))
	require.Error(t, err)

	write := func(t *testing.T, content []byte, gz bool) string {
		p := filepath.Join(t.TempDir(), "f.json.gz")
		if gz {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			_, err := zw.Write(content)
			require.NoError(t, err)
			require.NoError(t, zw.Close())
			content = buf.Bytes()
		}
		require.NoError(t, os.WriteFile(p, content, 0o644))
		return p
	}
	_, err = wycheproof.Load(write(t, []byte(`{}`), false))
	require.ErrorContains(t, err, "gzip")

	for name, js := range map[string]string{
		"not json":      `{`,
		"wrong algo":    `{"algorithm":"ECDSA","numberOfTests":0,"testGroups":[{"curve":"secp256r1","encoding":"asn","tests":[]}]}`,
		"no groups":     `{"algorithm":"ECDH","numberOfTests":0,"testGroups":[]}`,
		"count":         `{"algorithm":"ECDH","numberOfTests":2,"testGroups":[{"curve":"secp256r1","encoding":"asn","tests":[]}]}`,
		"bad hex":       `{"algorithm":"ECDH","numberOfTests":1,"testGroups":[{"curve":"c","encoding":"asn","tests":[{"tcId":1,"public":"zz","private":"01","shared":"","result":"valid"}]}]}`,
		"neg private":   `{"algorithm":"ECDH","numberOfTests":1,"testGroups":[{"curve":"c","encoding":"asn","tests":[{"tcId":1,"public":"","private":"80","shared":"","result":"valid"}]}]}`,
		"bad result":    `{"algorithm":"ECDH","numberOfTests":1,"testGroups":[{"curve":"c","encoding":"asn","tests":[{"tcId":1,"public":"","private":"01","shared":"","result":"maybe"}]}]}`,
		"mixed groups":  `{"algorithm":"ECDH","numberOfTests":0,"testGroups":[{"curve":"a","encoding":"asn","tests":[]},{"curve":"b","encoding":"asn","tests":[]}]}`,
		"empty private": `{"algorithm":"ECDH","numberOfTests":1,"testGroups":[{"curve":"c","encoding":"asn","tests":[{"tcId":1,"public":"","private":"","shared":"","result":"valid"}]}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := wycheproof.Load(write(t, []byte(js), true))
			require.Error(t, err)
		})
	}
}

func TestParseSPKI(t *testing.T) {
	// A P-256 SubjectPublicKeyInfo (the generator as public key).
	const spkiHex = "3059301306072a8648ce3d020106082a8648ce3d030107034200046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c2964fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"
	der, err := hex.DecodeString(spkiHex)
	require.NoError(t, err)
	curve, point, err := wycheproof.ParseSPKI(der)
	require.NoError(t, err)
	require.Equal(t, "secp256r1", curve)
	require.Equal(t, spkiHex[len(spkiHex)-130:], hex.EncodeToString(point))

	// Trailing data, extra element in the outer SEQUENCE, truncation.
	_, _, err = wycheproof.ParseSPKI(append(bytes.Clone(der), 0))
	require.Error(t, err)
	extra := append([]byte{0x30, der[1] + 2}, der[2:]...)
	extra = append(extra, 0x05, 0x00)
	_, _, err = wycheproof.ParseSPKI(extra)
	require.ErrorContains(t, err, "canonical")
	for i := range der {
		_, _, err = wycheproof.ParseSPKI(der[:i])
		require.Error(t, err, "truncated to %d bytes", i)
	}

	// Random corruption never panics, and anything accepted is canonical.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		b := bytes.Clone(der)
		for range 1 + rng.IntN(3) {
			b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
		}
		if _, p, err := wycheproof.ParseSPKI(b); err == nil {
			require.Len(t, p, 65)
		}
	}
}

func TestParseSPKIVectors(t *testing.T) {
	// Every valid case of the ASN files parses to the file's curve.
	for _, fi := range files {
		if fi.encoding != "asn" {
			continue
		}
		t.Run(fi.name, func(t *testing.T) {
			f, err := wycheproof.Load(wycheproof.Path(fi.name))
			require.NoError(t, err)
			for _, c := range f.Cases {
				if c.Result != wycheproof.Valid {
					continue
				}
				curve, point, err := wycheproof.ParseSPKI(c.Public)
				require.NoError(t, err, "tcId %d", c.TcID)
				require.Equal(t, f.Curve, curve, "tcId %d", c.TcID)
				require.NotEmpty(t, point)
			}
		})
	}
}

type ecdsaInfo struct {
	name                  string
	curve, hash           string
	p1363                 bool
	total, valid, invalid int
}

// ECDSA counts as documented in testdata/README.md (no file has an
// acceptable case).
var ecdsaFiles = []ecdsaInfo{
	{"ecdsa_secp224r1_sha224_p1363_test.json.gz", "secp224r1", "SHA-224", true, 229, 143, 86},
	{"ecdsa_secp224r1_sha256_p1363_test.json.gz", "secp224r1", "SHA-256", true, 258, 171, 87},
	{"ecdsa_secp224r1_sha512_p1363_test.json.gz", "secp224r1", "SHA-512", true, 327, 240, 87},
	{"ecdsa_secp224r1_sha256_test.json.gz", "secp224r1", "SHA-256", false, 481, 172, 309},
	{"ecdsa_secp256r1_sha256_p1363_test.json.gz", "secp256r1", "SHA-256", true, 262, 173, 89},
	{"ecdsa_secp256r1_sha512_p1363_test.json.gz", "secp256r1", "SHA-512", true, 332, 242, 90},
	{"ecdsa_secp256r1_sha256_test.json.gz", "secp256r1", "SHA-256", false, 484, 174, 310},
	{"ecdsa_secp256k1_sha256_p1363_test.json.gz", "secp256k1", "SHA-256", true, 252, 167, 85},
	{"ecdsa_secp256k1_sha512_p1363_test.json.gz", "secp256k1", "SHA-512", true, 322, 236, 86},
	{"ecdsa_secp256k1_sha256_test.json.gz", "secp256k1", "SHA-256", false, 476, 168, 308},
}

func TestLoadECDSA(t *testing.T) {
	require.Len(t, wycheproof.ECDSAFiles, len(ecdsaFiles))
	for i, fi := range ecdsaFiles {
		t.Run(fi.name, func(t *testing.T) {
			wf := wycheproof.ECDSAFiles[i]
			require.Equal(t, fi.name, wf.File)
			require.Equal(t, fi.hash, wf.Hash)
			f, err := wycheproof.LoadECDSA(wycheproof.Path(fi.name))
			require.NoError(t, err)
			require.Equal(t, fi.curve, f.Curve)
			require.Equal(t, fi.hash, f.Hash)
			require.Equal(t, fi.p1363, f.P1363)
			require.Equal(t, fi.total, f.Count())
			counts := map[string]int{}
			seen := map[int]bool{}
			for _, g := range f.Groups {
				require.Len(t, g.Key, 1+2*wf.Curve.ByteLen())
				_, err := wf.Curve.DecodeSEC1(g.Key)
				require.NoError(t, err, "every group's key is a point of the curve")
				for _, c := range g.Cases {
					counts[c.Result]++
					require.False(t, seen[c.TcID], "duplicate tcId %d", c.TcID)
					seen[c.TcID] = true
				}
			}
			require.Equal(t, fi.valid, counts[wycheproof.Valid])
			require.Zero(t, counts[wycheproof.Acceptable])
			require.Equal(t, fi.invalid, counts[wycheproof.Invalid])
		})
	}
}

func TestLoadECDSAErrors(t *testing.T) {
	write := func(t *testing.T, content string) string {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, err := zw.Write([]byte(content))
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		p := filepath.Join(t.TempDir(), "f.json.gz")
		require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
		return p
	}
	_, err := wycheproof.LoadECDSA(filepath.Join(t.TempDir(), "missing.json.gz"))
	require.Error(t, err)
	const group = `{"type":"EcdsaVerify","sha":"SHA-256","publicKey":{"curve":"secp256r1","uncompressed":"04"},"tests":[%s]}`
	for name, js := range map[string]string{
		"not json":    `{`,
		"wrong algo":  `{"algorithm":"ECDH","schema":"ecdsa_verify_schema_v1.json","numberOfTests":0,"testGroups":[` + fmt.Sprintf(group, "") + `]}`,
		"schema":      `{"algorithm":"ECDSA","schema":"x","numberOfTests":0,"testGroups":[` + fmt.Sprintf(group, "") + `]}`,
		"p1363 type":  `{"algorithm":"ECDSA","schema":"ecdsa_p1363_verify_schema_v1.json","numberOfTests":0,"testGroups":[` + fmt.Sprintf(group, "") + `]}`,
		"no groups":   `{"algorithm":"ECDSA","schema":"ecdsa_verify_schema_v1.json","numberOfTests":0,"testGroups":[]}`,
		"count":       `{"algorithm":"ECDSA","schema":"ecdsa_verify_schema_v1.json","numberOfTests":1,"testGroups":[` + fmt.Sprintf(group, "") + `]}`,
		"bad sig hex": `{"algorithm":"ECDSA","schema":"ecdsa_verify_schema_v1.json","numberOfTests":1,"testGroups":[` + fmt.Sprintf(group, `{"tcId":1,"msg":"","sig":"z","result":"valid"}`) + `]}`,
		"bad msg hex": `{"algorithm":"ECDSA","schema":"ecdsa_verify_schema_v1.json","numberOfTests":1,"testGroups":[` + fmt.Sprintf(group, `{"tcId":1,"msg":"0","sig":"","result":"valid"}`) + `]}`,
		"bad result":  `{"algorithm":"ECDSA","schema":"ecdsa_verify_schema_v1.json","numberOfTests":1,"testGroups":[` + fmt.Sprintf(group, `{"tcId":1,"msg":"","sig":"","result":"maybe"}`) + `]}`,
		"mixed hash": `{"algorithm":"ECDSA","schema":"ecdsa_verify_schema_v1.json","numberOfTests":0,"testGroups":[` + fmt.Sprintf(group, "") + `,` +
			`{"type":"EcdsaVerify","sha":"SHA-512","publicKey":{"curve":"secp256r1","uncompressed":"04"},"tests":[]}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := wycheproof.LoadECDSA(write(t, js))
			require.Error(t, err)
		})
	}
	f, err := wycheproof.LoadECDSA(write(t, `{"algorithm":"ECDSA","schema":"ecdsa_verify_schema_v1.json","numberOfTests":1,"testGroups":[`+
		fmt.Sprintf(group, `{"tcId":7,"msg":"00ff","sig":"3000","result":"invalid"}`)+`]}`))
	require.NoError(t, err)
	require.Equal(t, []byte{0x04}, f.Groups[0].Key)
	require.Equal(t, wycheproof.ECDSACase{TcID: 7, Msg: []byte{0, 0xff}, Sig: []byte{0x30, 0}, Result: wycheproof.Invalid}, f.Groups[0].Cases[0])
}
