// Package wycheproof loads the gzipped Wycheproof ECDH and ECDSA test
// vectors kept in the repository's testdata/wycheproof folder.
package wycheproof

import (
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
)

// Results a Case may have.
const (
	Valid      = "valid"
	Acceptable = "acceptable"
	Invalid    = "invalid"
)

// Case is one ECDH test: the peer's public key, our private key, and the
// expected shared secret (the x coordinate of Private·Public, ByteLen bytes).
type Case struct {
	TcID    int
	Comment string
	Flags   []string
	Public  []byte   // raw SEC1 point ("ecpoint" files) or DER SubjectPublicKeyInfo ("asn" files)
	Private *big.Int // non-negative
	Shared  []byte   // empty for most invalid cases
	Result  string   // Valid, Acceptable or Invalid
}

// HasFlag reports whether the case carries the given flag.
func (c *Case) HasFlag(flag string) bool {
	for _, f := range c.Flags {
		if f == flag {
			return true
		}
	}
	return false
}

// File is the content of one test vector file.
type File struct {
	Curve    string // curve of the test groups as named in the JSON, e.g. "secp224r1"
	Encoding string // "ecpoint" or "asn": how Case.Public is encoded
	Cases    []Case
}

type jsonFile struct {
	Algorithm     string `json:"algorithm"`
	NumberOfTests int    `json:"numberOfTests"`
	TestGroups    []struct {
		Curve    string `json:"curve"`
		Encoding string `json:"encoding"`
		Tests    []struct {
			TcID    int      `json:"tcId"`
			Comment string   `json:"comment"`
			Flags   []string `json:"flags"`
			Public  string   `json:"public"`
			Private string   `json:"private"`
			Shared  string   `json:"shared"`
			Result  string   `json:"result"`
		} `json:"tests"`
	} `json:"testGroups"`
}

// maxDecompressed bounds the JSON read from one file.
const maxDecompressed = 64 << 20

// Load reads a gzipped Wycheproof ECDH file (schema ecdh_test_schema_v1 or
// ecdh_ecpoint_test_schema_v1). All test groups must share one curve and
// encoding, and the number of tests must match the file's numberOfTests.
func Load(path string) (*File, error) {
	data, err := readGzip(path)
	if err != nil {
		return nil, err
	}
	file, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("wycheproof: %s: %w", path, err)
	}
	return file, nil
}

// readGzip returns the decompressed content of the gzip file at path, of
// at most maxDecompressed bytes.
func readGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("wycheproof: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("wycheproof: %s: reading gzip header: %w", path, err)
	}
	defer zr.Close()
	data, err := io.ReadAll(io.LimitReader(zr, maxDecompressed+1))
	if err != nil {
		return nil, fmt.Errorf("wycheproof: %s: decompressing gzip: %w", path, err)
	}
	if len(data) > maxDecompressed {
		return nil, fmt.Errorf("wycheproof: %s: decompressed size exceeds %d bytes", path, maxDecompressed)
	}
	return data, nil
}

func parse(data []byte) (*File, error) {
	var jf jsonFile
	if err := json.Unmarshal(data, &jf); err != nil {
		return nil, err
	}
	if jf.Algorithm != "ECDH" {
		return nil, fmt.Errorf("algorithm is %q, want ECDH", jf.Algorithm)
	}
	if len(jf.TestGroups) == 0 {
		return nil, fmt.Errorf("no test groups")
	}
	out := &File{Curve: jf.TestGroups[0].Curve, Encoding: jf.TestGroups[0].Encoding}
	for gi, g := range jf.TestGroups {
		if g.Curve != out.Curve || g.Encoding != out.Encoding {
			return nil, fmt.Errorf("test group %d is %s/%s, group 0 is %s/%s",
				gi, g.Curve, g.Encoding, out.Curve, out.Encoding)
		}
		for _, t := range g.Tests {
			c := Case{TcID: t.TcID, Comment: t.Comment, Flags: t.Flags, Result: t.Result}
			var err error
			if c.Public, err = hex.DecodeString(t.Public); err != nil {
				return nil, fmt.Errorf("tcId %d: public: %w", t.TcID, err)
			}
			if c.Shared, err = hex.DecodeString(t.Shared); err != nil {
				return nil, fmt.Errorf("tcId %d: shared: %w", t.TcID, err)
			}
			if c.Private, err = parsePrivate(t.Private); err != nil {
				return nil, fmt.Errorf("tcId %d: private: %w", t.TcID, err)
			}
			switch c.Result {
			case Valid, Acceptable, Invalid:
			default:
				return nil, fmt.Errorf("tcId %d: unknown result %q", t.TcID, c.Result)
			}
			out.Cases = append(out.Cases, c)
		}
	}
	if len(out.Cases) != jf.NumberOfTests {
		return nil, fmt.Errorf("file has %d tests, numberOfTests says %d", len(out.Cases), jf.NumberOfTests)
	}
	return out, nil
}

// parsePrivate reads a private key written as big-endian two's-complement
// hex, as Wycheproof does (a leading 00 keeps the sign bit clear). Negative
// values are rejected.
func parsePrivate(s string) (*big.Int, error) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("empty private key")
	}
	if b[0]&0x80 != 0 {
		return nil, fmt.Errorf("private key %s is negative in two's complement", s)
	}
	return new(big.Int).SetBytes(b), nil
}

// Dir returns the path of the repository's testdata/wycheproof folder:
// located from this source file when that path exists (tests of any
// package, whatever their working directory), otherwise searched upwards
// from the working directory (a test binary run on another machine from
// a copy of the repository).
func Dir() string {
	const rel = "testdata/wycheproof"
	if _, file, _, ok := runtime.Caller(0); ok {
		d := filepath.Join(filepath.Dir(file), "..", "..", rel)
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		if st, err := os.Stat(filepath.Join(d, rel)); err == nil && st.IsDir() {
			return filepath.Join(d, rel)
		}
		if filepath.Dir(d) == d {
			return filepath.Join(wd, rel)
		}
	}
}

// Path returns the path of a vector file in Dir, e.g.
// Path("ecdh_secp256r1_ecpoint_test.json.gz").
func Path(name string) string { return filepath.Join(Dir(), name) }
