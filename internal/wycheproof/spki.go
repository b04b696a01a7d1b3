package wycheproof

import (
	"bytes"
	"encoding/asn1"
	"errors"
	"fmt"
)

// OIDs from RFC 5480 and SEC 2.
var (
	oidECPublicKey = asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}

	namedCurves = []struct {
		name string
		oid  asn1.ObjectIdentifier
	}{
		{"secp224r1", asn1.ObjectIdentifier{1, 3, 132, 0, 33}},
		{"secp256r1", asn1.ObjectIdentifier{1, 2, 840, 10045, 3, 1, 7}},
		{"secp256k1", asn1.ObjectIdentifier{1, 3, 132, 0, 10}},
	}
)

type algorithmIdentifier struct {
	Algorithm  asn1.ObjectIdentifier
	Parameters asn1.RawValue `asn1:"optional"`
}

type subjectPublicKeyInfo struct {
	Algorithm algorithmIdentifier
	PublicKey asn1.BitString
}

// ParseSPKI parses a DER SubjectPublicKeyInfo holding an EC public key with a
// named curve (RFC 5480) and returns the curve's SEC 2 name ("secp224r1",
// "secp256r1" or "secp256k1") and the SEC1-encoded point, which it does not
// decode or validate.
//
// Parsing is strict: the input must be canonical DER with nothing trailing,
// so that every BER variation and extension is rejected. Explicit curve
// parameters (specifiedCurve), implicitCurve and other named curves are
// rejected too.
func ParseSPKI(der []byte) (curve string, point []byte, err error) {
	var spki subjectPublicKeyInfo
	rest, err := asn1.Unmarshal(der, &spki)
	if err != nil {
		return "", nil, fmt.Errorf("wycheproof: SubjectPublicKeyInfo: %w", err)
	}
	if len(rest) != 0 {
		return "", nil, fmt.Errorf("wycheproof: SubjectPublicKeyInfo: %d trailing bytes", len(rest))
	}
	// encoding/asn1 tolerates extra elements at the end of a SEQUENCE;
	// re-encoding and comparing rejects those and any other non-canonical
	// form.
	canon, err := asn1.Marshal(spki)
	if err != nil || !bytes.Equal(canon, der) {
		return "", nil, errors.New("wycheproof: SubjectPublicKeyInfo is not canonical DER")
	}
	if !spki.Algorithm.Algorithm.Equal(oidECPublicKey) {
		return "", nil, fmt.Errorf("wycheproof: SubjectPublicKeyInfo: algorithm %v is not id-ecPublicKey", spki.Algorithm.Algorithm)
	}
	params := spki.Algorithm.Parameters
	switch {
	case len(params.FullBytes) == 0:
		return "", nil, errors.New("wycheproof: SubjectPublicKeyInfo: EC parameters are missing")
	case params.Class == asn1.ClassUniversal && params.Tag == asn1.TagSequence:
		return "", nil, errors.New("wycheproof: SubjectPublicKeyInfo: explicit curve parameters are not supported")
	case params.Class != asn1.ClassUniversal || params.Tag != asn1.TagOID:
		return "", nil, fmt.Errorf("wycheproof: SubjectPublicKeyInfo: EC parameters have tag %d class %d, want a named curve OID", params.Tag, params.Class)
	}
	var oid asn1.ObjectIdentifier
	if rest, err := asn1.Unmarshal(params.FullBytes, &oid); err != nil || len(rest) != 0 {
		return "", nil, errors.New("wycheproof: SubjectPublicKeyInfo: malformed named curve OID")
	}
	for _, nc := range namedCurves {
		if oid.Equal(nc.oid) {
			curve = nc.name
		}
	}
	if curve == "" {
		return "", nil, fmt.Errorf("wycheproof: SubjectPublicKeyInfo: unsupported named curve %v", oid)
	}
	if spki.PublicKey.BitLength%8 != 0 {
		return "", nil, errors.New("wycheproof: SubjectPublicKeyInfo: public key BIT STRING is not a whole number of bytes")
	}
	return curve, bytes.Clone(spki.PublicKey.Bytes), nil
}
