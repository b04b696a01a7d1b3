package ecdsasign_test

import (
	"crypto"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/ecdsasign"
)

func TestParseHash(t *testing.T) {
	good := map[string]crypto.Hash{
		"sha1": crypto.SHA1, "SHA-1": crypto.SHA1, "sha224": crypto.SHA224, "Sha-224": crypto.SHA224,
		"sha256": crypto.SHA256, "SHA256": crypto.SHA256, "sha-384": crypto.SHA384, "sha512": crypto.SHA512,
	}
	for name, want := range good {
		got, err := ecdsasign.ParseHash(name)
		require.NoError(t, err, name)
		require.Equal(t, want, got, name)
	}
	for _, name := range []string{"", "md5", "sha", "sha-", "sha3-256", "sha512/256", "sha--256", " sha256", "sha256 "} {
		_, err := ecdsasign.ParseHash(name)
		require.ErrorIs(t, err, ecdsasign.ErrHash, "%q", name)
	}
}

// FuzzParseHash: ParseHash does not panic, and a name it takes is one of
// the five hashes, whose own name it takes back.
func FuzzParseHash(f *testing.F) {
	for _, s := range []string{"sha256", "SHA-512", "sha-1", "md5", "sha-", "ſha256", "SHA-256\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		h, err := ecdsasign.ParseHash(name)
		if err != nil {
			require.ErrorIs(t, err, ecdsasign.ErrHash)
			return
		}
		require.Contains(t, allHashes, h)
		back, err := ecdsasign.ParseHash(h.String())
		require.NoError(t, err)
		require.Equal(t, h, back)
	})
}
