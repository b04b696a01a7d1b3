package main

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/ecdsa"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ecdsasign"
	"github.com/rnsec/ecmul/internal/hexcode"
)

const ecdsaSignHelp = `Usage: ecmul ecdsa-sign [flags] [< input] [> output]

Signs digests with ECDSA (SEC 1 v2, section 4.1.3) and RFC 6979 nonces:
reads one item per non-empty line and writes one line per item, in input
order.

  in:   DIGEST_HEX PRIVATE_KEY_HEX
          DIGEST_HEX       the message's hash: 20, 28, 32, 48 or 64 bytes
                           (SHA-1 to SHA-512), or --hash's length; its
                           leftmost bits, as many as n has, are the integer e
          PRIVATE_KEY_HEX  the private key d, in [1, n − 1]: 0, n or more
                           is an error, never reduced
  out:  R_HEX S_HEX | error: line N: REASON
          r and s zero-padded to the field size (56 digits for P-224, 64
          otherwise); SIG_DER_HEX with --der

The nonce k of an item comes from RFC 6979's HMAC_DRBG over the hash that
--hash names (sha1, sha224, sha256, sha384 or sha512) or, by default, the
one the digest's length implies; a digest of another length is an error.
The signatures are deterministic: on P-224 and P-256 they are those of Go's
crypto/ecdsa (PrivateKey.Sign with a nil random source) and of RFC 6979's
vectors. --hedged mixes 32 bytes of crypto/rand into each nonce (RFC 6979
section 3.6): the signatures then change from run to run.

--low-s replaces s by n − s when s is above n/2, the form libsecp256k1 and
Bitcoin's policy require. It is on by default for secp256k1, as
libsecp256k1 signs, and off for P-224 and P-256, as OpenSSL and
crypto/ecdsa sign; --low-s=true or --low-s=false sets it on any curve.

--der writes each signature as one field, SIG_DER_HEX: the hex of its
ASN.1 DER encoding, SEQUENCE { r INTEGER, s INTEGER }, as openssl dgst
-sign writes it and ecdsa-verify reads it in its SIG_DER_HEX form.

--format jsonl reads {"digest":"HEX","key":"HEX"} per line, exactly these
keys, as mul reads jsonl, and answers {"r":"HEX","s":"HEX"} ({"sig":"HEX"}
with --der) or {"error":"line N: REASON"}. There is no raw format: a digest
has no fixed length.

A line that cannot be signed gets "error: line N: REASON", N its line in
the input from 1, blank lines counted: a wrong field count, bad hex (an odd
digest included), a digest of the wrong length, a key outside [1, n − 1],
a line longer than 4096 bytes. The other items are signed all the same.
Fields and hex are read as ecdsa-verify reads them.

On the gpu backend a chunk of more than 16,384 SHA-256 digests (a full
chunk at the default --chunk), signed deterministically, is signed on the
GPU: each nonce, its k·G on the constant-time comb, k⁻¹ and s, so that the
nonce never leaves it.
Otherwise k·G of a chunk of nonces is computed on the backend by
ecdsa.Sign through Engine.ScalarBaseMultBytes, as "ecmul base" computes
it: on the fixed-base comb, a table of multiples of G read whole for every
digit (constant time), or on the ladder with G where the gpu backend's
kernel has no comb (--ext kawamura); the host derives the nonces and
computes s = k⁻¹(e + r·d) mod n in constant time too: no key or nonce
passes through a branch, a table index or math/big (SECURITY.md).

Items are read and signed --chunk at a time; a chunk goes on when it is
full, when the input ends, or when no line has come for 2 ms, as with mul.
--stats (failed: the items not signed), the progress line, signals and
--in/--out are ecdsa-verify's: see "ecmul ecdsa-verify --help".

Exit status: 0 when every item is signed, 1 when any item is an error
(their count goes to standard error) or the run could not complete, 2 for
usage errors, 130 or 143 when SIGINT or SIGTERM stopped it.

Examples:

  printf '%s %s\n' "$DIGEST" "$KEY" | ecmul ecdsa-sign --curve p256 --backend cpu
  ecmul ecdsa-sign --curve secp256k1 --der --in items.txt --out sigs.txt

Flags:
`

type ecdsaSignFlags struct {
	mulFlags
	hash              string
	lowS, der, hedged bool
}

func ecdsaSignFlagSet(f *ecdsaSignFlags) *flag.FlagSet {
	fs := newFlagSet("ecdsa-sign", ecdsaSignHelp)
	addEngineFlags(fs, &f.mulFlags)
	fs.StringVar(&f.in, "in", "-", "input file (- for standard input)")
	fs.StringVar(&f.out, "out", "-", "output file (- for standard output), replaced when every item has been answered; may be the input file")
	fs.IntVar(&f.chunk, "chunk", ecdsaChunk, "items read and signed per batch; memory grows with it, the output does not depend on it")
	fs.StringVar(&f.format, "format", "hex", "input and output format: hex (fields separated by blanks) or jsonl (one JSON object per line)")
	fs.StringVar(&f.hash, "hash", "", "hash of the nonces' HMAC, and the digests' length: sha1, sha224, sha256, sha384 or sha512 (default: the one of each digest's length)")
	fs.BoolVar(&f.lowS, "low-s", false, "replace s by n − s when s > n/2 (default: on for secp256k1, as libsecp256k1 signs; off for P-224 and P-256)")
	fs.BoolVar(&f.der, "der", false, "write each signature as one field, the hex of its DER encoding (SIG_DER_HEX)")
	fs.BoolVar(&f.hedged, "hedged", false, "mix 32 bytes of crypto/rand into each nonce (RFC 6979 section 3.6): not deterministic")
	fs.BoolVar(&f.stats, "stats", false, "print items, failed (not signed), seconds, op/s, peak RSS and the backend to standard error at the end")
	return fs
}

func runECDSASign(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f ecdsaSignFlags
	fs := ecdsaSignFlagSet(&f)
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if f.chunk < 1 {
		return usageError(stderr, "ecdsa-sign", "--chunk must be at least 1, not %d", f.chunk)
	}
	jsonl, err := checkLineFormat("ecdsa-sign", f.format)
	if err != nil {
		return report(stderr, "ecdsa-sign", exitUsage, err)
	}
	c, opts, g, err := engineConfig(&f.mulFlags)
	if err != nil {
		return report(stderr, "ecdsa-sign", exitUsage, err)
	}
	var lowS *bool
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "low-s" {
			lowS = &f.lowS
		}
	})
	sopts, err := signOptions(f.hash, lowS, f.hedged)
	if err != nil {
		return report(stderr, "ecdsa-sign", exitUsage, err)
	}
	return streamECDSA("ecdsa-sign", "failed", &f.mulFlags, c, opts, g, stdin, stdout, stderr,
		func(ctx context.Context, eng *ecmul.Engine, out io.Writer, progress func(int)) ecdsaJob {
			s := newSigner(ctx, c, eng, sopts, f.chunk, out)
			s.der, s.jsonl, s.progress = f.der, jsonl, progress
			return s
		})
}

// signOptions resolves ecdsa-sign's options: hash names the hash of the
// nonces' HMAC ("" for the one each digest's length implies); lowS, when
// not nil, says whether s is made low, which by default it is on secp256k1
// alone (ecdsa.LowSDefault); hedged mixes crypto/rand into each nonce.
func signOptions(hash string, lowS *bool, hedged bool) (ecdsa.SignOptions, error) {
	opts := ecdsa.SignOptions{Hedged: hedged}
	if hash != "" {
		h, err := ecdsasign.ParseHash(hash)
		if err != nil {
			return opts, fmt.Errorf("--hash: %w", err)
		}
		opts.Hash = h
	}
	switch {
	case lowS == nil:
	case *lowS:
		opts.LowS = ecdsa.LowSOn
	default:
		opts.LowS = ecdsa.LowSOff
	}
	return opts, nil
}

// signer gathers the items of a chunk, signs them in one call of
// ecdsa.Sign and writes their answers: R_HEX S_HEX, or SIG_DER_HEX with
// der ({"r":"HEX","s":"HEX"} or {"sig":"HEX"} in jsonl), or "error: line
// N: REASON".
type signer struct {
	ctx  context.Context // ends the run: the chunk being signed is dropped
	c    *curves.Curve
	eng  *ecmul.Engine
	opts ecdsa.SignOptions
	lineChunk
	der, jsonl bool               // answers in DER, lines and answers in jsonl
	w          *stream.ItemWriter // writes whole lines
	digests    [][]byte
	keys       []byte
	items      int
	failed     int
	progress   func(int) // counts the items answered, for the progress line
}

func newSigner(ctx context.Context, c *curves.Curve, eng *ecmul.Engine, opts ecdsa.SignOptions, chunk int, out io.Writer) *signer {
	return &signer{ctx: ctx, c: c, eng: eng, opts: opts, lineChunk: lineChunk{chunk: chunk}, w: stream.NewLineWriter(out)}
}

// counts returns the items read, and those that got no signature.
func (s *signer) counts() (items, failed int) { return s.items, s.failed }

// add takes one line: an item, or its error; a full chunk is signed.
func (s *signer) add(line []byte, num int, tooLong bool) error {
	if s.take(line, num, tooLong, s.parse, func() int { return len(s.digests) }) {
		return s.flush()
	}
	return nil
}

// parse appends the item of a line to the chunk's buffers.
func (s *signer) parse(line string) error {
	var fields []string
	if s.jsonl {
		var err error
		if fields, err = stream.JSONStrings(line, []string{"digest", "key"}); err != nil {
			return err
		}
	} else if fields = stream.Fields(line); len(fields) != 2 {
		return fmt.Errorf("want 2 fields (DIGEST_HEX PRIVATE_KEY_HEX), got %d", len(fields))
	}
	digest, err := decodeHexBytes(fields[0])
	if err != nil {
		return fmt.Errorf("digest: %w", err)
	}
	L := s.c.ByteLen()
	s.keys = append(s.keys, make([]byte, L)...)
	if err := decodePrivateKey(s.keys[len(s.keys)-L:], fields[1]); err != nil {
		clear(s.keys[len(s.keys)-L:])
		s.keys = s.keys[:len(s.keys)-L]
		return fmt.Errorf("key: %w", err)
	}
	s.digests = append(s.digests, digest)
	return nil
}

// decodePrivateKey decodes PRIVATE_KEY_HEX (an optional 0x or 0X, then
// hex digits, any number of them) into dst, big-endian, in time that
// depends on the field's length alone. A value of 2^(8·len(dst)) or more
// is an error (it is n or more); Sign finds the others outside [1, n − 1].
func decodePrivateKey(dst []byte, field string) error {
	digits := hexcode.TrimPrefix([]byte(field))
	if len(digits) == 0 {
		return errors.New("not hex: no digits")
	}
	b := make([]byte, max((len(digits)+1)/2, len(dst)))
	defer clear(b)
	if !hexcode.DecodeInto(b, digits) {
		return errors.New("not hex")
	}
	extra := len(b) - len(dst)
	var high byte
	for _, v := range b[:extra] {
		high |= v
	}
	if high != 0 {
		return fmt.Errorf("%w: it is n or more", ecdsa.ErrPrivateKey)
	}
	copy(dst, b[extra:])
	return nil
}

// flush signs the chunk's items and writes every line's answer.
func (s *signer) flush() error {
	if len(s.nums) == 0 {
		return nil
	}
	L := s.c.ByteLen()
	sigs := make([]byte, len(s.digests)*2*L)
	errs := make([]error, len(s.digests))
	defer clear(s.keys)
	if err := ecdsa.Sign(s.ctx, s.eng, sigs, errs, s.digests, s.keys, s.opts); err != nil {
		return err
	}
	for i, num := range s.nums {
		err := s.errs[i]
		if err == nil {
			j := s.idx[i]
			if err = errs[j]; err == nil {
				s.w.WriteString(s.answer(sigs[j*2*L : (j+1)*2*L]))
				continue
			}
			err = itemReason(err, j)
		}
		s.failed++
		msg := fmt.Sprintf("line %d: %s", num, message(err))
		if s.jsonl {
			s.w.Write(append(stream.AppendJSONError(nil, msg), '\n'))
		} else {
			fmt.Fprintf(s.w, "error: %s\n", msg)
		}
	}
	s.items += len(s.nums)
	if s.progress != nil {
		s.progress(len(s.nums))
	}
	s.nums, s.errs, s.idx, s.digests, s.keys = s.nums[:0], s.errs[:0], s.idx[:0], s.digests[:0], s.keys[:0]
	return s.w.Flush()
}

// itemReason is the error of item j of ecdsa.Sign without the item,
// which the answer's line number replaces.
func itemReason(err error, j int) error {
	msg, ok := strings.CutPrefix(message(err), fmt.Sprintf("item %d: ", j))
	if !ok {
		return err
	}
	if errors.Is(err, ecdsa.ErrPrivateKey) {
		msg = "key: " + msg // as for a key the parser refuses
	}
	return errors.New(msg)
}

// answer is the line of a signature r‖s.
func (s *signer) answer(sig []byte) string {
	L := len(sig) / 2
	if s.der {
		der, _ := ecdsa.AppendDER(nil, sig, publicCurve(s.c)) // r‖s of 2·ByteLen bytes: always encodes
		d := hex.EncodeToString(der)
		if s.jsonl {
			return `{"sig":"` + d + "\"}\n"
		}
		return d + "\n"
	}
	r, sv := hex.EncodeToString(sig[:L]), hex.EncodeToString(sig[L:])
	if s.jsonl {
		return `{"r":"` + r + `","s":"` + sv + "\"}\n"
	}
	return r + " " + sv + "\n"
}
