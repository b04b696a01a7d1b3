package ecdsa

import (
	"context"
	"crypto"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ecdsasign"
	"github.com/rnsec/ecmul/internal/engine"
)

// SignOptions are how Sign signs. The zero value signs deterministically
// (RFC 6979), the nonces' HMAC over the hash each digest's length implies,
// with s low on secp256k1 alone.
type SignOptions struct {
	// Hash is the hash whose HMAC derives the nonces (RFC 6979 §3.2), and
	// the length every digest must have: crypto.SHA1, SHA224, SHA256,
	// SHA384 or SHA512. Zero takes the one of each digest's length (20,
	// 28, 32, 48 or 64 bytes).
	Hash crypto.Hash
	// LowS says whether s is replaced by n − s when s > n/2.
	LowS LowS
	// Hedged mixes 32 bytes from crypto/rand into each nonce (RFC 6979
	// §3.6): the signatures are then not deterministic, which resists
	// fault attacks on the nonce.
	Hedged bool
}

// LowS is the rule for s of SignOptions.
type LowS uint8

const (
	LowSDefault LowS = iota // low s on secp256k1, as libsecp256k1 signs; s as computed on P-224 and P-256, as crypto/ecdsa signs
	LowSOn                  // s ≤ n/2 on every curve
	LowSOff                 // s as computed on every curve
)

var (
	// ErrPrivateKey is matched by the error of an item whose private key
	// is outside [1, n−1]; a key is never reduced mod n.
	ErrPrivateKey = errors.New("ecdsa: private key outside [1, n−1]")
	// ErrDigestLength is matched by the error of an item whose digest is
	// not SignOptions.Hash's length or, with no Hash, implies no hash.
	ErrDigestLength = errors.New("ecdsa: digest length")
)

// signers holds the signer of every curve, built once, by name.
var signers = sync.OnceValue(func() map[string]*ecdsasign.Signer {
	m := make(map[string]*ecdsasign.Signer)
	for _, c := range curves.All() {
		s, err := ecdsasign.New(c)
		if err != nil {
			panic("ecdsa: " + err.Error())
		}
		m[c.Name()] = s
	}
	return m
})

// Sign signs count = len(digests) digests with the engine e, following
// SEC 1 v2 §4.1.3 with RFC 6979 nonces, and writes one signature and one
// error per item. With L = e.Curve().ByteLen():
//
//   - digests[i] is the message's hash, taken as an integer by its leftmost
//     bits up to the bit length of n, as crypto/ecdsa takes it;
//   - keys holds count private keys, L bytes each, big-endian;
//   - sigs gets count signatures r‖s, each of r and s L bytes, big-endian
//     (IEEE P1363, as Verify takes them; AppendDER converts one);
//   - errs must be exactly count long: errs[i] is nil when item i is
//     signed, and otherwise says why not, naming the item, and item i's
//     signature is zero: a private key outside [1, n−1] (ErrPrivateKey), a
//     digest of the wrong length (ErrDigestLength), or a k·G the engine
//     could not compute. The other items are signed all the same.
//
// Without opts.Hedged and with LowSDefault, a signature on P-224 or P-256
// is the one crypto/ecdsa's PrivateKey.Sign(nil, digest, hash) returns,
// as in RFC 6979's own vectors.
//
// k·G is e.ScalarBaseMultBytes, constant time on every backend (the
// fixed-base comb, or the ladder). On the gpu backend a batch of SHA-256
// digests, deterministic, is signed on the GPU: the first RFC 6979
// candidate (the same nonce the host derives), its k·G on the comb, k⁻¹
// and s, the nonce never leaving the GPU; the host signs the others, and
// applies the low-s rule. k⁻¹, s = k⁻¹(e + r·d) mod n and the low-s rule
// are constant time on the host too: no key or nonce passes through
// math/big, a branch or a table index (SECURITY.md). An item whose r or s
// is 0 takes the next nonce, as RFC 6979 says.
//
// The error is non-nil only when the call failed as a whole: buffer
// lengths that do not describe one batch (matching ecmul.ErrBatchLayout),
// an opts.Hash that Sign does not take, the context's end, an error of
// crypto/rand, or the engine's own error (ecmul.ErrClosed, a GPU fault);
// every signature is then zero and every errs[i] says it was not signed.
// Sign does not modify digests or keys.
func Sign(ctx context.Context, e *ecmul.Engine, sigs []byte, errs []error, digests [][]byte, keys []byte, opts SignOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	c, err := curves.ByName(e.Curve().String())
	if err != nil {
		return e.ScalarBaseMultBytes(ctx, nil, nil, nil) // the engine's own error: no curve means no engine
	}
	if opts.LowS > LowSOff {
		return fmt.Errorf("ecdsa: unknown LowS rule %d", opts.LowS)
	}
	err = signers()[c.Name()].Sign(ctx, sigs, errs, digests, keys, baseMult(e), signOptions(e, c, opts))
	if err == nil && len(digests) == 0 {
		err = e.ScalarBaseMultBytes(ctx, nil, nil, nil) // the engine's own error, as for a batch
	}
	switch {
	case errors.Is(err, ecdsasign.ErrLayout):
		return fmt.Errorf("%w: %s", ecmul.ErrBatchLayout, message(err))
	case errors.Is(err, ecdsasign.ErrHash):
		return fmt.Errorf("ecdsa: %s", message(err))
	}
	return err
}

// signOptions are the options of package ecdsasign for opts on e, of
// curve c: its GPU signs steps of ecdsasign.StepItems items a GPU where it
// can.
func signOptions(e *ecmul.Engine, c *curves.Curve, opts SignOptions) ecdsasign.Options {
	opt := ecdsasign.Options{Hash: opts.Hash, LowS: opts.LowS == LowSOn || opts.LowS == LowSDefault && c == curves.Secp256k1(), ItemError: itemError}
	if opts.Hedged {
		opt.Randomness = rand.Reader
	}
	if impl := engine.Unwrap[*ecmul.Engine](e); gpuSign && impl.SignsFirst() {
		opt.FirstSign, opt.Devices = firstSign(impl), impl.GPUs()
	}
	return opt
}

// gpuSign lets Sign sign on the GPU, nonces included, where the engine
// can (engine.Engine.SignFirst).
var gpuSign = true

// firstSign is signing with the first nonces on e's GPU
// (engine.Engine.SignFirst).
func firstSign(e *engine.Engine) ecdsasign.FirstSign {
	return func(ctx context.Context, items ecdsasign.FirstItems, at ecdsasign.Place) (bool, error) {
		if at.Followed {
			ctx = engine.WithOverlap(ctx) // the next step's call follows
		}
		if at.Closing {
			ctx = engine.WithClosing(ctx) // little work follows
		}
		return e.SignFirst(ctx, items)
	}
}

// baseMult is signing's k·G on e: ScalarBaseMultBytes, x alone.
func baseMult(e *ecmul.Engine) ecdsasign.BaseMult {
	return func(ctx context.Context, xs []byte, ok []bool, scalars []byte) error {
		status := make([]ecmul.Status, len(ok))
		if err := e.ScalarBaseMultBytes(ctx, xs, status, scalars); err != nil {
			return err
		}
		for i, s := range status {
			ok[i] = s == ecmul.StatusPoint
		}
		return nil
	}
}

// message is err's text after ecdsasign's prefix.
func message(err error) string {
	s := err.Error()
	if len(s) > len("ecdsasign: ") && s[:len("ecdsasign: ")] == "ecdsasign: " {
		return s[len("ecdsasign: "):]
	}
	return s
}

// signError is the error of one item of Sign: "ecdsa: item N: REASON",
// matching the public sentinel of its reason.
type signError struct {
	item int
	err  error // the reason
	is   error // ErrPrivateKey, ErrDigestLength or nil
}

func (e *signError) Error() string { return fmt.Sprintf("ecdsa: item %d: %v", e.item, e.err) }

func (e *signError) Is(target error) bool { return e.is != nil && target == e.is }

func (e *signError) Unwrap() error { return e.err }

// itemError is the error Sign reports for item i, whose reason in package
// ecdsasign is err.
func itemError(i int, err error) error {
	se := &signError{item: i, err: err}
	switch {
	case errors.Is(err, ecdsasign.ErrKey):
		se.is = ErrPrivateKey
	case errors.Is(err, ecdsasign.ErrDigest):
		se.is = ErrDigestLength
	}
	return se
}

// AppendDER appends to dst the ASN.1 DER encoding of the signature sig =
// r‖s that Sign writes (two halves of c.ByteLen() bytes): SEQUENCE { r
// INTEGER, s INTEGER }, as crypto/ecdsa.SignASN1 and OpenSSL write it.
// ParseDER is its inverse. A sig of another length is an error matching
// ErrInvalidSignature.
func AppendDER(dst, sig []byte, c ecmul.Curve) ([]byte, error) {
	if L := c.ByteLen(); L == 0 || len(sig) != 2*L {
		return dst, fmt.Errorf("%w: a signature r‖s of %s is %d bytes, not %d", ErrInvalidSignature, c, 2*c.ByteLen(), len(sig))
	}
	return ecdsasign.AppendDER(dst, sig)
}
