package ecdsasign

import (
	"crypto"
	_ "crypto/sha1" // registers SHA-1 for crypto.Hash
	_ "crypto/sha256"
	_ "crypto/sha512"
	"errors"
	"fmt"
	"strings"
)

// hashes are the hashes whose HMAC derives nonces, in order of digest
// length: a digest's length implies the one of that size.
var hashes = []crypto.Hash{crypto.SHA1, crypto.SHA224, crypto.SHA256, crypto.SHA384, crypto.SHA512}

// hashOfSize is the hash of each digest length, zero for a length that
// implies none: hashFor's look-up, made once per item of a batch.
var hashOfSize = func() (t [65]crypto.Hash) {
	for _, h := range hashes {
		t[h.Size()] = h
	}
	return t
}()

// ErrHash is matched by the error of ParseHash and by a batch's error for
// a hash that Sign does not take.
var ErrHash = errors.New("ecdsasign: unsupported hash")

// ParseHash returns the hash that name names: sha1, sha224, sha256,
// sha384 or sha512, in any case, with or without a hyphen after "sha"
// ("SHA-256"). Any other name is an error matching ErrHash.
func ParseHash(name string) (crypto.Hash, error) {
	n := strings.ToLower(name)
	if strings.HasPrefix(n, "sha-") {
		n = "sha" + n[len("sha-"):]
	}
	for _, h := range hashes {
		if n == hashName(h) {
			return h, nil
		}
	}
	return 0, fmt.Errorf("%w %q (sha1, sha224, sha256, sha384 or sha512)", ErrHash, name)
}

// hashName is the name ParseHash takes for h, lowercase without a hyphen.
func hashName(h crypto.Hash) string {
	return strings.ReplaceAll(strings.ToLower(h.String()), "-", "")
}

// supported reports whether Sign takes h as a named hash.
func supported(h crypto.Hash) bool {
	for _, s := range hashes {
		if h == s {
			return true
		}
	}
	return false
}

// hashFor returns the hash for a digest of n bytes: named, when it is not
// zero, whose size n must be; otherwise the one of size n.
func hashFor(named crypto.Hash, n int) (crypto.Hash, error) {
	if named != 0 {
		if n != named.Size() {
			return 0, fmt.Errorf("%w: a digest of %d bytes, %s takes %d", ErrDigest, n, named, named.Size())
		}
		return named, nil
	}
	if n >= 0 && n < len(hashOfSize) && hashOfSize[n] != 0 {
		return hashOfSize[n], nil
	}
	return 0, fmt.Errorf("%w: a digest of %d bytes implies no hash (20, 28, 32, 48 or 64 bytes); name one", ErrDigest, n)
}
