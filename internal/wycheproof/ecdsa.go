package wycheproof

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"

	"github.com/rnsec/ecmul/internal/curves"
)

// ECDSAFiles lists the ECDSA verification vector files in
// testdata/wycheproof with the curve each must name and the hash of its
// messages. The "p1363" files carry fixed-width signatures r‖s; the others
// carry DER signatures.
var ECDSAFiles = []struct {
	Curve *curves.Curve
	Hash  string // as Wycheproof names it: SHA-224, SHA-256, SHA-512
	File  string
}{
	{curves.P224(), "SHA-224", "ecdsa_secp224r1_sha224_p1363_test.json.gz"},
	{curves.P224(), "SHA-256", "ecdsa_secp224r1_sha256_p1363_test.json.gz"},
	{curves.P224(), "SHA-512", "ecdsa_secp224r1_sha512_p1363_test.json.gz"},
	{curves.P224(), "SHA-256", "ecdsa_secp224r1_sha256_test.json.gz"},
	{curves.P256(), "SHA-256", "ecdsa_secp256r1_sha256_p1363_test.json.gz"},
	{curves.P256(), "SHA-512", "ecdsa_secp256r1_sha512_p1363_test.json.gz"},
	{curves.P256(), "SHA-256", "ecdsa_secp256r1_sha256_test.json.gz"},
	{curves.Secp256k1(), "SHA-256", "ecdsa_secp256k1_sha256_p1363_test.json.gz"},
	{curves.Secp256k1(), "SHA-512", "ecdsa_secp256k1_sha512_p1363_test.json.gz"},
	{curves.Secp256k1(), "SHA-256", "ecdsa_secp256k1_sha256_test.json.gz"},
}

// ECDSACase is one ECDSA verification test: a message, a signature (r‖s
// in the P1363 files, DER in the others) and whether it verifies under its
// group's key.
type ECDSACase struct {
	TcID    int
	Comment string
	Flags   []string
	Msg     []byte // the message, not its digest
	Sig     []byte
	Result  string // Valid, Acceptable or Invalid
}

// ECDSAGroup is the cases under one public key.
type ECDSAGroup struct {
	Key   []byte // the uncompressed SEC1 public key
	Cases []ECDSACase
}

// ECDSAFile is the content of one ECDSA verification vector file.
type ECDSAFile struct {
	Curve  string // as named in the JSON, e.g. "secp224r1"
	Hash   string // SHA-224, SHA-256, SHA-512
	P1363  bool   // signatures are r‖s of fixed width, not DER
	Groups []ECDSAGroup
}

// Count returns the number of cases in f.
func (f *ECDSAFile) Count() int {
	n := 0
	for _, g := range f.Groups {
		n += len(g.Cases)
	}
	return n
}

type ecdsaJSON struct {
	Algorithm     string `json:"algorithm"`
	Schema        string `json:"schema"`
	NumberOfTests int    `json:"numberOfTests"`
	TestGroups    []struct {
		Type      string `json:"type"`
		Sha       string `json:"sha"`
		PublicKey struct {
			Curve        string `json:"curve"`
			Uncompressed string `json:"uncompressed"`
		} `json:"publicKey"`
		Tests []struct {
			TcID    int      `json:"tcId"`
			Comment string   `json:"comment"`
			Flags   []string `json:"flags"`
			Msg     string   `json:"msg"`
			Sig     string   `json:"sig"`
			Result  string   `json:"result"`
		} `json:"tests"`
	} `json:"testGroups"`
}

// LoadECDSA reads a gzipped Wycheproof ECDSA verification file (schema
// ecdsa_verify_schema_v1 or ecdsa_p1363_verify_schema_v1). All test groups
// must share one curve, hash and signature encoding, and the number of
// tests must match the file's numberOfTests.
func LoadECDSA(path string) (*ECDSAFile, error) {
	data, err := readGzip(path)
	if err != nil {
		return nil, err
	}
	f, err := parseECDSA(data)
	if err != nil {
		return nil, fmt.Errorf("wycheproof: %s: %w", path, err)
	}
	return f, nil
}

func parseECDSA(data []byte) (*ECDSAFile, error) {
	var jf ecdsaJSON
	if err := json.Unmarshal(data, &jf); err != nil {
		return nil, err
	}
	if jf.Algorithm != "ECDSA" {
		return nil, fmt.Errorf("algorithm is %q, want ECDSA", jf.Algorithm)
	}
	if len(jf.TestGroups) == 0 {
		return nil, fmt.Errorf("no test groups")
	}
	out := &ECDSAFile{Curve: jf.TestGroups[0].PublicKey.Curve, Hash: jf.TestGroups[0].Sha}
	switch jf.Schema {
	case "ecdsa_verify_schema_v1.json":
	case "ecdsa_p1363_verify_schema_v1.json":
		out.P1363 = true
	default:
		return nil, fmt.Errorf("schema %q is not an ECDSA verification schema", jf.Schema)
	}
	want := map[bool]string{false: "EcdsaVerify", true: "EcdsaP1363Verify"}[out.P1363]
	n := 0
	for gi, g := range jf.TestGroups {
		if g.Type != want || g.PublicKey.Curve != out.Curve || g.Sha != out.Hash {
			return nil, fmt.Errorf("test group %d is %s/%s/%s, want %s/%s/%s",
				gi, g.Type, g.PublicKey.Curve, g.Sha, want, out.Curve, out.Hash)
		}
		key, err := hex.DecodeString(g.PublicKey.Uncompressed)
		if err != nil {
			return nil, fmt.Errorf("test group %d: public key: %w", gi, err)
		}
		grp := ECDSAGroup{Key: key}
		for _, t := range g.Tests {
			c := ECDSACase{TcID: t.TcID, Comment: t.Comment, Flags: t.Flags, Result: t.Result}
			if c.Msg, err = hex.DecodeString(t.Msg); err != nil {
				return nil, fmt.Errorf("tcId %d: msg: %w", t.TcID, err)
			}
			if c.Sig, err = hex.DecodeString(t.Sig); err != nil {
				return nil, fmt.Errorf("tcId %d: sig: %w", t.TcID, err)
			}
			switch c.Result {
			case Valid, Acceptable, Invalid:
			default:
				return nil, fmt.Errorf("tcId %d: unknown result %q", t.TcID, c.Result)
			}
			grp.Cases = append(grp.Cases, c)
		}
		n += len(grp.Cases)
		out.Groups = append(out.Groups, grp)
	}
	if n != jf.NumberOfTests {
		return nil, fmt.Errorf("file has %d tests, numberOfTests says %d", n, jf.NumberOfTests)
	}
	return out, nil
}

// NewHash returns the hash that a vector file names (its "sha" field).
func NewHash(name string) (hash.Hash, error) {
	switch name {
	case "SHA-224":
		return sha256.New224(), nil
	case "SHA-256":
		return sha256.New(), nil
	case "SHA-512":
		return sha512.New(), nil
	}
	return nil, fmt.Errorf("wycheproof: no hash %q", name)
}
