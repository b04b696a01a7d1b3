package main

import (
	"crypto"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
)

// curveOIDs are the named-curve OIDs of SEC 2, and OpenSSL's names.
var curveOIDs = map[*curves.Curve]struct {
	oid  asn1.ObjectIdentifier
	name string
}{
	curves.P224():      {asn1.ObjectIdentifier{1, 3, 132, 0, 33}, "secp224r1"},
	curves.P256():      {asn1.ObjectIdentifier{1, 2, 840, 10045, 3, 1, 7}, "prime256v1"},
	curves.Secp256k1(): {asn1.ObjectIdentifier{1, 3, 132, 0, 10}, "secp256k1"},
}

// publicKeyPEM is the SubjectPublicKeyInfo PEM of the uncompressed SEC1
// point pub on c, as openssl reads a public key.
func publicKeyPEM(t *testing.T, c *curves.Curve, pub []byte) []byte {
	params, err := asn1.Marshal(curveOIDs[c].oid)
	require.NoError(t, err)
	spki, err := asn1.Marshal(struct {
		Algorithm pkix.AlgorithmIdentifier
		PublicKey asn1.BitString
	}{
		pkix.AlgorithmIdentifier{Algorithm: asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}, Parameters: asn1.RawValue{FullBytes: params}},
		asn1.BitString{Bytes: pub, BitLength: 8 * len(pub)},
	})
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: spki})
}

// TestECDSASignOpenSSL signs the digests of messages with ecdsa-sign
// --der on every curve and verifies each signature with openssl dgst
// -verify and the key's public key: every one verifies, and none does
// for another message. It is skipped where openssl is not installed.
func TestECDSASignOpenSSL(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("no openssl")
	}
	hashes := []crypto.Hash{crypto.SHA224, crypto.SHA256, crypto.SHA384, crypto.SHA512}
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			dir := t.TempDir()
			cs := signCases(c, len(hashes))
			var in strings.Builder
			for i, h := range hashes {
				w := h.New()
				fmt.Fprintf(w, "message %d", i)
				cs[i].digest, cs[i].hash = w.Sum(nil), h
				require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("msg%d", i)), fmt.Appendf(nil, "message %d", i), 0o644))
				fmt.Fprintf(&in, "%x %x\n", cs[i].digest, cs[i].d)
			}
			code, out, errOut := cli(t, in.String(), "ecdsa-sign", "--curve", c.Name(), "--backend", "cpu", "--der")
			require.Equal(t, exitOK, code, errOut)
			sigs := strings.Fields(out)
			require.Len(t, sigs, len(hashes))
			for i, h := range hashes {
				pub := c.EncodeSEC1(mustBaseMult(c, cs[i].d), false)
				keyPath := filepath.Join(dir, fmt.Sprintf("pub%d.pem", i))
				require.NoError(t, os.WriteFile(keyPath, publicKeyPEM(t, c, pub), 0o644))
				der, err := hex.DecodeString(sigs[i])
				require.NoError(t, err)
				sigPath := filepath.Join(dir, fmt.Sprintf("sig%d.der", i))
				require.NoError(t, os.WriteFile(sigPath, der, 0o644))
				alg := "-" + strings.ToLower(strings.ReplaceAll(h.String(), "-", ""))
				for j, wantOK := range map[int]bool{i: true, (i + 1) % len(hashes): false} {
					cmd := exec.Command("openssl", "dgst", alg, "-verify", keyPath, "-signature", sigPath, filepath.Join(dir, fmt.Sprintf("msg%d", j)))
					got, err := cmd.CombinedOutput()
					if wantOK {
						require.NoError(t, err, "%s: %s", cmd, got)
						require.Equal(t, "Verified OK\n", string(got))
					} else {
						require.Error(t, err, "%s: another message: %s", cmd, got)
						require.Contains(t, string(got), "Verification failure")
					}
				}
			}
		})
	}
}
