package main

import (
	"bytes"
	"context"
	"crypto"
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"encoding/asn1"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"time"

	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/ecdsa"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/par"

	// the hashes of the nonces' HMAC
	_ "crypto/sha1"
	_ "crypto/sha256"
	_ "crypto/sha512"
)

// ecdsaSignFunc signs a batch, as ecdsa.Sign does on an engine.
type ecdsaSignFunc func(ctx context.Context, sigs []byte, errs []error, digests [][]byte, keys []byte, opts ecdsa.SignOptions) error

// The cases of verify's signing items. The first items take each once, in
// this order.
const (
	signDeterministic = iota // a random key and digest, RFC 6979's nonce
	signHedged               // the same with SignOptions.Hedged
	signKeyOne               // d = 1
	signKeyTop               // d = n − 1
	signKeyZero              // d = 0: ErrPrivateKey
	signKeyN                 // d = n: ErrPrivateKey
	signDigestLen            // a digest of 33 bytes, which implies no hash: ErrDigestLength
	signItemCases
)

var signItemCaseNames = [signItemCases]string{"deterministic", "hedged", "key=1", "key=n-1", "key=0", "key=n", "digest-length"}

// streamVerifySign tags the generators of verify's signing items.
const streamVerifySign = streamVerifyPoint | 1<<60

// signDigestLens are the digests' lengths: those of SHA-1, SHA-224,
// SHA-256, SHA-384 and SHA-512.
var signDigestLens = []int{20, 28, 32, 48, 64}

// signItem is an item of verify --op sign: a digest to sign with key d.
type signItem struct {
	kind   int
	digest []byte
	d      *big.Int
}

// hedged reports whether the item is signed with hedged nonces.
func (it *signItem) hedged() bool { return it.kind == signHedged }

// wantErr is the error the item must get, nil for one that is signed.
func (it *signItem) wantErr() error {
	switch it.kind {
	case signKeyZero, signKeyN:
		return ecdsa.ErrPrivateKey
	case signDigestLen:
		return ecdsa.ErrDigestLength
	}
	return nil
}

// signItems generates the items of verify --op sign: item i depends on the
// seed and i only.
type signItems struct {
	c    *curves.Curve
	seed uint64
}

// item returns item i: case i for the first items, then about one in four
// of a random case, the others deterministic.
func (v signItems) item(i int64) signItem {
	n := v.c.N()
	rng := rand.New(rand.NewPCG(v.seed, uint64(i)|streamVerifySign))
	kind := signDeterministic
	switch {
	case i < signItemCases:
		kind = int(i)
	case rng.IntN(4) == 0:
		kind = rng.IntN(signItemCases)
	}
	size := signDigestLens[rng.IntN(len(signDigestLens))]
	if kind == signDigestLen {
		size = 33
	}
	it := signItem{kind: kind, digest: make([]byte, size), d: new(big.Int).SetBytes(newScalarSampler(n).next(rng))}
	for j := range it.digest {
		it.digest[j] = byte(rng.Uint32())
	}
	switch kind {
	case signKeyOne:
		it.d.SetInt64(1)
	case signKeyTop:
		it.d.Sub(n, big.NewInt(1))
	case signKeyZero:
		it.d.SetInt64(0)
	case signKeyN:
		it.d.Set(n)
	}
	return it
}

// items returns items [lo, hi), made on all cores.
func (v signItems) items(lo, hi int64) []signItem {
	out := make([]signItem, hi-lo)
	par.DoAllCores(len(out), func(_, a, b int) {
		for j := a; j < b; j++ {
			out[j] = v.item(lo + int64(j))
		}
	})
	return out
}

// signOp is --op sign: digests signed through ecdsa.Sign.
type signOp struct {
	c     *curves.Curve
	items signItems
	sign  ecdsaSignFunc
}

func (o *signOp) references() string {
	if o.c.Name() == curves.Secp256k1().Name() {
		return "gnark-crypto,textbook"
	}
	return "crypto/ecdsa,textbook"
}

// run signs the chunk's items in two calls of ecdsa.Sign, the
// deterministic ones and the hedged ones, with the default options
// otherwise.
func (o *signOp) run(ctx context.Context, lo, hi int64) (itemCheck, time.Duration, error) {
	items := o.items.items(lo, hi)
	L := o.c.ByteLen()
	sigs, errs := make([][]byte, len(items)), make([]error, len(items))
	var el time.Duration
	for _, hedged := range []bool{false, true} {
		var idx []int
		var digests [][]byte
		var keys []byte
		for i := range items {
			if items[i].hedged() == hedged {
				idx, digests = append(idx, i), append(digests, items[i].digest)
				keys = append(keys, items[i].d.FillBytes(make([]byte, L))...)
			}
		}
		if len(idx) == 0 {
			continue
		}
		out, outErrs := make([]byte, len(idx)*2*L), make([]error, len(idx))
		t0 := time.Now()
		err := o.sign(ctx, out, outErrs, digests, keys, ecdsa.SignOptions{Hedged: hedged})
		el += time.Since(t0)
		if err != nil {
			return nil, el, err
		}
		for j, i := range idx {
			sigs[i], errs[i] = out[j*2*L:(j+1)*2*L], outErrs[j]
		}
	}
	return func(i int) (string, bool) { return checkSignItem(o.c, lo+int64(i), &items[i], sigs[i], errs[i]) }, el, nil
}

// checkSignItem checks the signature sig, or the error err, that the engine
// gave an item: an item made to fail must get its error and a zero
// signature; any other must get a signature that crypto/ecdsa (gnark-crypto
// for secp256k1) and the textbook both verify, low-s on secp256k1, and,
// when deterministic, exactly RFC 6979's as the textbook derives it and,
// on P-224 and P-256, as crypto/ecdsa's PrivateKey.Sign(nil, …) makes it.
func checkSignItem(c *curves.Curve, index int64, it *signItem, sig []byte, err error) (line string, failed bool) {
	n, L := c.N(), c.ByteLen()
	head := fmt.Sprintf("mismatch index=%d case=%s digest=%x key=%x got=", index, signItemCaseNames[it.kind], it.digest, it.d)
	if want := it.wantErr(); want != nil {
		switch {
		case err == nil:
			return fmt.Sprintf("%s%x,%x want=error(%s)", head, sig[:L], sig[L:], message(want)), false
		case !errors.Is(err, want):
			return fmt.Sprintf("%serror(%s) want=error(%s)", head, message(err), message(want)), true
		case !bytes.Equal(sig, make([]byte, 2*L)):
			return fmt.Sprintf("%s%x,%x want=a zero signature", head, sig[:L], sig[L:]), false
		}
		return "", false
	}
	if err != nil {
		return fmt.Sprintf("%serror(%s) want=signature", head, message(err)), true
	}
	got := fmt.Sprintf("%s%x,%x", head, sig[:L], sig[L:])
	r, s := new(big.Int).SetBytes(sig[:L]), new(big.Int).SetBytes(sig[L:])
	q := mustBaseMult(c, it.d)
	signed := ecdsaItem{kind: caseValid, digest: it.digest, r: r, s: s, q: q}
	refName := "crypto/ecdsa"
	if c.Name() == curves.Secp256k1().Name() {
		refName = "gnark-crypto"
	}
	if v := libraryVerify(c, &signed); v != ecdsa.Valid {
		return fmt.Sprintf("%s want=valid(%s=%s)", got, refName, verdictText(v)), false
	}
	if v := textbookVerify(c, &signed); v != ecdsa.Valid {
		return fmt.Sprintf("%s want=valid(textbook=%s)", got, verdictText(v)), false
	}
	if c.Name() == curves.Secp256k1().Name() && s.Cmp(new(big.Int).Rsh(n, 1)) > 0 {
		return fmt.Sprintf("%s want=low-s", got), false
	}
	if it.hedged() {
		return "", false
	}
	tr, ts := textbookSign(c, it.d, it.digest)
	want := fmt.Sprintf("%x,%x", tr.FillBytes(make([]byte, L)), ts.FillBytes(make([]byte, L)))
	if c.Name() != curves.Secp256k1().Name() {
		gr, gs, gerr := goSign(c, it.d, it.digest)
		var g string
		if gerr != nil {
			g = "error(" + stream.OneLine(gerr.Error()) + ")"
		} else {
			g = fmt.Sprintf("%x,%x", gr.FillBytes(make([]byte, L)), gs.FillBytes(make([]byte, L)))
		}
		if g != want {
			return fmt.Sprintf("%s want=references-disagree(crypto/ecdsa=%s,textbook=%s)", got, g, want), false
		}
	}
	if fmt.Sprintf("%x,%x", sig[:L], sig[L:]) != want {
		return got + " want=" + want, false
	}
	return "", false
}

// digestHash is the hash a digest's length implies.
func digestHash(digest []byte) crypto.Hash {
	for _, h := range []crypto.Hash{crypto.SHA1, crypto.SHA224, crypto.SHA256, crypto.SHA384, crypto.SHA512} {
		if h.Size() == len(digest) {
			return h
		}
	}
	return 0
}

// goSign signs digest with key d through crypto/ecdsa's deterministic
// PrivateKey.Sign (a nil random source), on P-224 or P-256.
func goSign(c *curves.Curve, d *big.Int, digest []byte) (r, s *big.Int, err error) {
	std := elliptic.P256()
	if c.Name() == curves.P224().Name() {
		std = elliptic.P224()
	}
	priv, err := stdecdsa.ParseRawPrivateKey(std, d.FillBytes(make([]byte, c.ByteLen())))
	if err != nil {
		return nil, nil, err
	}
	der, err := priv.Sign(nil, digest, digestHash(digest))
	if err != nil {
		return nil, nil, err
	}
	var sig struct{ R, S *big.Int }
	if _, err := asn1.Unmarshal(der, &sig); err != nil {
		return nil, nil, err
	}
	return sig.R, sig.S, nil
}

// textbookSign signs digest with key d over math/big (signECDSA) with the
// nonce of RFC 6979 §3.2, its HMAC over the hash the digest's length
// implies, a nonce giving r or s of 0 followed by the next one (§3.4); s
// is made low on secp256k1, as ecdsa.Sign signs by default.
func textbookSign(c *curves.Curve, d *big.Int, digest []byte) (r, s *big.Int) {
	n := c.N()
	qlen := n.BitLen()
	rlen := (qlen + 7) / 8
	octets := func(x *big.Int) []byte { return x.FillBytes(make([]byte, rlen)) }
	bits2int := func(b []byte) *big.Int {
		x := new(big.Int).SetBytes(b)
		if excess := 8*len(b) - qlen; excess > 0 {
			x.Rsh(x, uint(excess))
		}
		return x
	}
	h := digestHash(digest)
	mac := func(key []byte, parts ...[]byte) []byte {
		m := hmac.New(h.New, key)
		for _, p := range parts {
			m.Write(p)
		}
		return m.Sum(nil)
	}
	x, h1 := octets(d), octets(new(big.Int).Mod(bits2int(digest), n))
	V, K := bytes.Repeat([]byte{1}, h.Size()), make([]byte, h.Size())
	K = mac(K, V, []byte{0}, x, h1)
	V = mac(K, V)
	K = mac(K, V, []byte{1}, x, h1)
	V = mac(K, V)
	for {
		var T []byte
		for 8*len(T) < qlen {
			V = mac(K, V)
			T = append(T, V...)
		}
		if k := bits2int(T); k.Sign() > 0 && k.Cmp(n) < 0 {
			if r, s = signECDSA(c, d, k, digest); r != nil {
				break
			}
		}
		K = mac(K, V, []byte{0})
		V = mac(K, V)
	}
	if c.Name() == curves.Secp256k1().Name() && s.Cmp(new(big.Int).Rsh(n, 1)) > 0 {
		s.Sub(n, s)
	}
	return r, s
}
