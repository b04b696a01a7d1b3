package wycheproof

import (
	"fmt"

	"github.com/rnsec/ecmul/internal/curves"
)

// ECDHFiles lists the ECDH vector files in testdata/wycheproof with the
// curve each must name. The "ecpoint" files carry raw SEC1 points; the
// others carry DER SubjectPublicKeyInfo.
var ECDHFiles = []struct {
	Curve *curves.Curve
	File  string
}{
	{curves.P224(), "ecdh_secp224r1_ecpoint_test.json.gz"},
	{curves.P224(), "ecdh_secp224r1_test.json.gz"},
	{curves.P256(), "ecdh_secp256r1_ecpoint_test.json.gz"},
	{curves.P256(), "ecdh_secp256r1_test.json.gz"},
	{curves.Secp256k1(), "ecdh_secp256k1_test.json.gz"},
}

// PublicSEC1 extracts the SEC1 bytes of a case's public key: as they are
// in the "ecpoint" files, and in the "asn" ones from a SubjectPublicKeyInfo
// parsed strictly by ParseSPKI (named curves only), which must name c. The
// bytes are not decoded or validated.
func PublicSEC1(c *curves.Curve, encoding string, public []byte) ([]byte, error) {
	switch encoding {
	case "ecpoint":
		return public, nil
	case "asn":
		name, point, err := ParseSPKI(public)
		if err != nil {
			return nil, err
		}
		pc, err := curves.ByName(name)
		if err != nil {
			return nil, err
		}
		if pc != c {
			return nil, fmt.Errorf("public key is on %s, want %s", pc.Name(), c.Name())
		}
		return point, nil
	}
	return nil, fmt.Errorf("unknown encoding %q", encoding)
}
