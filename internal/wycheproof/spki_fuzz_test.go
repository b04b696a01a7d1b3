package wycheproof_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/x509"
	"encoding/asn1"
	"testing"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/wycheproof"
)

var fuzzCurveOIDs = map[string]asn1.ObjectIdentifier{
	"secp224r1": {1, 3, 132, 0, 33},
	"secp256r1": {1, 2, 840, 10045, 3, 1, 7},
	"secp256k1": {1, 3, 132, 0, 10},
}

// buildSPKI is the DER SubjectPublicKeyInfo of an EC point on a named
// curve, built independently of ParseSPKI.
func buildSPKI(t *testing.T, curve string, point []byte) []byte {
	t.Helper()
	oid, err := asn1.Marshal(fuzzCurveOIDs[curve])
	if err != nil {
		t.Fatal(err)
	}
	type algID struct {
		Algorithm  asn1.ObjectIdentifier
		Parameters asn1.RawValue
	}
	der, err := asn1.Marshal(struct {
		Algorithm algID
		PublicKey asn1.BitString
	}{
		algID{asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}, asn1.RawValue{FullBytes: oid}},
		asn1.BitString{Bytes: point, BitLength: 8 * len(point)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// FuzzParseSPKI parses arbitrary DER. Whatever ParseSPKI accepts names one
// of the three curves, is exactly the canonical encoding of that curve and
// point (so re-encoding gives the input back), and its point is a copy. For
// P-224 and P-256, crypto/x509 is the cross-check: when both accept, and
// the point decodes, they give the same coordinates; an uncompressed point
// that ParseSPKI and DecodeSEC1 accept, x509 accepts; and a key x509
// accepts on those curves whose canonical encoding is the input, ParseSPKI
// accepts.
func FuzzParseSPKI(f *testing.F) {
	for _, path := range []string{"ecdh_secp224r1_test.json.gz", "ecdh_secp256r1_test.json.gz", "ecdh_secp256k1_test.json.gz"} {
		file, err := wycheproof.Load(wycheproof.Path(path))
		if err != nil {
			f.Fatal(err)
		}
		for _, c := range file.Cases {
			f.Add(c.Public)
		}
	}
	f.Fuzz(func(t *testing.T, der []byte) {
		in := bytes.Clone(der)
		name, point, err := wycheproof.ParseSPKI(der)
		if !bytes.Equal(in, der) {
			t.Fatal("ParseSPKI modified its input")
		}
		var c *curves.Curve
		if err == nil {
			if _, ok := fuzzCurveOIDs[name]; !ok {
				t.Fatalf("%x: accepted with curve %q", der, name)
			}
			if !bytes.Equal(buildSPKI(t, name, point), der) {
				t.Fatalf("%x: accepted, but the canonical SPKI of (%s, %x) differs", der, name, point)
			}
			if len(point) > 0 {
				point[0] ^= 0xff
				if !bytes.Equal(in, der) {
					t.Fatal("the returned point shares memory with the input")
				}
				point[0] ^= 0xff
			}
			if c, err = curves.ByName(name); err != nil {
				t.Fatalf("curve %q: %v", name, err)
			}
		}

		key, xerr := x509.ParsePKIXPublicKey(der)
		pub, isEC := key.(*ecdsa.PublicKey)
		if xerr == nil && isEC && (pub.Curve == elliptic.P224() || pub.Curve == elliptic.P256()) {
			canon, merr := x509.MarshalPKIXPublicKey(pub)
			if merr == nil && bytes.Equal(canon, der) && err != nil {
				t.Fatalf("%x: x509 accepts this canonical key, ParseSPKI rejects it: %v", der, err)
			}
		}
		if c == nil || (c != curves.P224() && c != curves.P256()) {
			return
		}
		p, derr := c.DecodeSEC1(point)
		switch {
		case xerr == nil && isEC && derr == nil:
			if pub.Curve.Params().Name != c.Name() || pub.X.Cmp(p.X) != 0 || pub.Y.Cmp(p.Y) != 0 {
				t.Fatalf("%x: x509 gives %s (%x, %x), ParseSPKI+DecodeSEC1 %s %v", der, pub.Curve.Params().Name, pub.X, pub.Y, c.Name(), p)
			}
		case xerr == nil && isEC:
			t.Fatalf("%x: x509 accepts the key, DecodeSEC1 rejects its point: %v", der, derr)
		case derr == nil && point[0] == 4:
			t.Fatalf("%x: ParseSPKI and DecodeSEC1 accept an uncompressed point that x509 rejects: %v", der, xerr)
		}
	})
}
