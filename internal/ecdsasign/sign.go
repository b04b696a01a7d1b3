// Package ecdsasign signs batches of digests with ECDSA (SEC 1 v2, §4.1.3)
// on P-224, P-256 and secp256k1, with RFC 6979 nonces, given a function
// that computes k·G for a batch of nonces: the host derives the nonces,
// the batch function multiplies, and the host finishes every signature.
// With Options.FirstSign a device signs the items of SHA-256 digests with
// their first nonces, and the host derives only those of the RFC's
// retries.
//
// The nonce of an item comes from RFC 6979's HMAC_DRBG over the hash that
// Options.Hash names or, when it names none, the one the digest's length
// implies (20 bytes SHA-1, 28 SHA-224, 32 SHA-256, 48 SHA-384, 64
// SHA-512); with Options.Randomness, 32 bytes read from it per item are
// mixed in as RFC 6979 §3.6's additional data (hedged signatures). A nonce
// outside [1, n − 1], or one that gives r = 0 or s = 0, is followed by the
// DRBG's next candidate, as the RFC says.
//
// Private keys and nonces never pass through math/big or a branch or an
// address that depends on them: they are fixed-width bytes and four-limb
// Montgomery values mod n (internal/fp), k⁻¹ is fp's fixed-step safegcd,
// and the low-s rule negates s under a mask. Whether a key is in range,
// and whether a candidate nonce is, are public outcomes (an item error,
// the RFC's retry), as is every signature.
package ecdsasign

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"io"
	"math/big"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/fp"
)

// BaseMult computes k·G for count scalars, G the curve's generator: the
// scalars are L-byte big-endian values (L = ByteLen), back to back; it
// writes the x coordinate of each k·G, L bytes big-endian, into xs
// (count·L bytes) and sets ok[i] when item i is an affine point (false for
// the point at infinity or a result that failed the multiplier's checks).
// Its error fails the batch. The scalars are secret nonces: it must run in
// constant time, and leave them as they are (Sign reads them again). Sign
// calls it for up to four steps at once, from four goroutines.
type BaseMult func(ctx context.Context, xs []byte, ok []bool, scalars []byte) error

// Options are how Sign signs.
type Options struct {
	// Hash is the hash whose HMAC derives the nonces, and the size every
	// digest must have; zero for the one each digest's length implies.
	Hash crypto.Hash
	// LowS replaces s by n − s when s > (n − 1)/2.
	LowS bool
	// Randomness, when not nil, gives ExtraBytes bytes per item that are
	// mixed into its nonce (RFC 6979 §3.6): crypto/rand.Reader for hedged
	// signatures. nil signs deterministically.
	Randomness io.Reader
	// FirstSign, when not nil, signs with the deterministic nonces over
	// HMAC-SHA-256 the steps whose first item's hash is SHA-256: the host
	// then derives only the nonces of the RFC's retries, and of the
	// step's items of other hashes, which it signs itself.
	FirstSign FirstSign
	// Devices is how many GPUs share each step: a step holds up to
	// StepItems items for each, so that each GPU's share is as large as a
	// single GPU's step. 0 counts as 1.
	Devices int
	// ItemError, when not nil, makes the error Sign records for item i,
	// whose reason is err, in place of an *ItemError: a caller that
	// reports its own errors then needs no pass over millions of them.
	ItemError func(i int, err error) error
}

// FirstSign signs the items of a step with RFC 6979's first candidate
// nonce k over HMAC-SHA-256 (qlen = 8L, L = ScalarBytes), derived from each
// item's private key and h1 = bits2octets(its digest): it has items.Put
// write their inputs and hands each item's r‖s (r = x(k·G) mod n, s =
// k⁻¹·(h1 + r·d) mod n, before any low-s rule) to items.Take, with its
// outcome. r or s may be 0: Sign then takes the DRBG's next candidate. done
// is false where it did not run (it called neither): Sign signs the items
// itself. Its error fails the batch. It runs in constant time on the keys
// and nonces. Sign calls it, and BaseMult, for up to four steps at once;
// at says where the step stands among them.
type FirstSign func(ctx context.Context, items FirstItems, at Place) (done bool, err error)

// Place is where a step's call stands in Sign's pipeline of steps, for a
// GPU's scheduling.
type Place struct {
	// Followed: the call of the next step follows at once (a GPU may then
	// finish the items for throughput rather than latency).
	Followed bool
	// Closing: the step is one of the last stepsQueued + 1, which little
	// work follows to overlap the latency of their finish (a GPU may then
	// finish them in short chains).
	Closing bool
}

// FirstItems are the items of one call of FirstSign, which it takes and
// gives back in ranges, as a device's chunks go, from several goroutines
// at once: the inputs go straight into the device's buffers and the
// signatures straight into the batch's, with no copy in between.
type FirstItems struct {
	Count int
	// Put writes the private keys and h1s of items [lo, hi) into keys and
	// h1s, L bytes each, big-endian: every key in [1, n − 1], every h1
	// below n. FirstSign may call it again for a range (a device failed).
	Put func(lo, hi int, keys, h1s []byte)
	// Take takes item j's signature r‖s (2L bytes, big-endian; read only
	// during the call) and outcome, once for each item.
	Take func(j int, sig []byte, o FirstOutcome)
}

// FirstOutcome is what FirstSign did with an item.
type FirstOutcome uint8

const (
	FirstNoPoint FirstOutcome = iota // k·G gave no point (the item fails with ErrNoPoint), or Take was not called for it
	FirstSigned                      // r‖s written
	FirstRefused                     // the candidate k is outside [1, n − 1] (public; as likely as 2^−32 on P-256): the DRBG's next is taken
)

// ExtraBytes is the length of the additional data read per item for a
// hedged signature.
const ExtraBytes = 32

var (
	// ErrKey is matched by the error of an item whose private key is
	// outside [1, n − 1].
	ErrKey = errors.New("private key outside [1, n−1]")
	// ErrDigest is matched by the error of an item whose digest's length
	// is not the named hash's, or implies no hash.
	ErrDigest = errors.New("digest length")
	// ErrNoPoint is matched by the error of an item for which the batch
	// function gave no point.
	ErrNoPoint = errors.New("no point for k·G")
	// ErrLayout is matched by a batch's error when the buffers' lengths do
	// not describe one batch.
	ErrLayout = errors.New("ecdsasign: buffer lengths")

	errNotSigned = errors.New("not signed: the batch failed")
)

// ItemError is the error of one item of a batch.
type ItemError struct {
	Item int   // the item's index in the batch
	Err  error // what is wrong with it
}

func (e *ItemError) Error() string { return fmt.Sprintf("ecdsasign: item %d: %v", e.Item, e.Err) }

func (e *ItemError) Unwrap() error { return e.Err }

// Signer signs on one curve. It is immutable and safe for concurrent use.
type Signer struct {
	o *order
}

// New returns the signer of c, one of curves.All.
func New(c *curves.Curve) (*Signer, error) {
	n := c.N()
	f, err := fp.New(n)
	if err != nil {
		return nil, fmt.Errorf("ecdsasign: %s: the order: %w", c.Name(), err)
	}
	if n.BitLen()%8 != 0 || (n.BitLen()+7)/8 != c.ByteLen() {
		return nil, fmt.Errorf("ecdsasign: %s: n is not a whole number of bytes of ByteLen", c.Name())
	}
	half := fp.LimbsFromBytes(new(big.Int).Rsh(n, 1).Bytes())
	o := &order{f: f, n: f.Modulus(), half: half, bits: n.BitLen(), size: c.ByteLen()}
	return &Signer{o: o}, nil
}

// ScalarBytes returns L: the bytes of a private key and of r and s.
func (s *Signer) ScalarBytes() int { return s.o.size }
