package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ecdsasign"
	"github.com/rnsec/ecmul/internal/hexcode"
)

// The core of "ecmul ecdsa-sign": one item per line, DIGEST_HEX
// PRIVATE_KEY_HEX ({"digest":"HEX","key":"HEX"} in jsonl), answered by
// R_HEX S_HEX, or SIG_DER_HEX with --der ({"r":"HEX","s":"HEX"} or
// {"sig":"HEX"} in jsonl), or "error: line N: REASON" as mul answers.

// signOptions resolves ecdsa-sign's options for curve c: hash names the
// hash of the nonces' HMAC ("" for the one each digest's length implies);
// lowS, when not nil, says whether s is made low, which by default it is
// on secp256k1 alone, as libsecp256k1 signs; hedged mixes 32 bytes of
// crypto/rand into each nonce.
func signOptions(c *curves.Curve, hash string, lowS *bool, hedged bool) (ecdsasign.Options, error) {
	var opt ecdsasign.Options
	if hash != "" {
		h, err := ecdsasign.ParseHash(hash)
		if err != nil {
			return opt, fmt.Errorf("--hash: %w", err)
		}
		opt.Hash = h
	}
	opt.LowS = c == curves.Secp256k1()
	if lowS != nil {
		opt.LowS = *lowS
	}
	if hedged {
		opt.Randomness = rand.Reader
	}
	return opt, nil
}

// engineBaseMult is the k·G of signing on e: ScalarBaseMultBytes, the
// engine's constant-time comb, its out x alone.
func engineBaseMult(e *ecmul.Engine) ecdsasign.BaseMult {
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

// signer gathers the items of a chunk, signs them in one call and writes
// their answers.
type signer struct {
	c          *curves.Curve
	s          *ecdsasign.Signer
	base       ecdsasign.BaseMult
	opt        ecdsasign.Options
	der, jsonl bool // answers in DER, lines and answers in jsonl
	w          *stream.ItemWriter
	nums       []int   // line numbers of the chunk's lines
	errs       []error // a line's error, nil for an item
	idx        []int   // a line's item, -1 for none
	digests    [][]byte
	keys       []byte
	items      int
	failed     int
}

func newSigner(c *curves.Curve, base ecdsasign.BaseMult, opt ecdsasign.Options, der, jsonl bool, out io.Writer) (*signer, error) {
	s, err := ecdsasign.New(c)
	if err != nil {
		return nil, err
	}
	return &signer{c: c, s: s, base: base, opt: opt, der: der, jsonl: jsonl, w: stream.NewLineWriter(out)}, nil
}

// add takes one line: an item, or its error.
func (s *signer) add(line []byte, num int, tooLong bool) {
	s.nums = append(s.nums, num)
	var err error
	if tooLong {
		err = fmt.Errorf("longer than %d bytes", stream.MaxLine)
	} else {
		err = s.parse(string(line))
	}
	s.errs = append(s.errs, err)
	if err != nil {
		s.idx = append(s.idx, -1)
	} else {
		s.idx = append(s.idx, len(s.digests)-1)
	}
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
	key := make([]byte, s.c.ByteLen())
	if err := decodePrivateKey(key, fields[1]); err != nil {
		return fmt.Errorf("key: %w", err)
	}
	s.digests = append(s.digests, digest)
	s.keys = append(s.keys, key...)
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
		return fmt.Errorf("%w: it is n or more", ecdsasign.ErrKey)
	}
	copy(dst, b[extra:])
	return nil
}

// flush signs the chunk's items and writes every line's answer.
func (s *signer) flush(ctx context.Context) error {
	if len(s.nums) == 0 {
		return nil
	}
	L := s.c.ByteLen()
	sigs := make([]byte, len(s.digests)*2*L)
	errs := make([]error, len(s.digests))
	defer clear(s.keys)
	if err := s.s.Sign(ctx, sigs, errs, s.digests, s.keys, s.base, s.opt); err != nil {
		return err
	}
	for i, num := range s.nums {
		err := s.errs[i]
		if err == nil {
			j := s.idx[i]
			if err = itemReason(errs[j]); err == nil {
				s.w.WriteString(s.answer(sigs[j*2*L : (j+1)*2*L]))
				continue
			}
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
	s.nums, s.errs, s.idx, s.digests, s.keys = s.nums[:0], s.errs[:0], s.idx[:0], s.digests[:0], s.keys[:0]
	return s.w.Flush()
}

// itemReason is an item's error without the item's index, which the
// answer replaces by its line.
func itemReason(err error) error {
	var ie *ecdsasign.ItemError
	if errors.As(err, &ie) {
		return ie.Err
	}
	return err
}

// answer is the line of a signature r‖s.
func (s *signer) answer(sig []byte) string {
	L := len(sig) / 2
	r, sv := hex.EncodeToString(sig[:L]), hex.EncodeToString(sig[L:])
	if s.der {
		der, _ := ecdsasign.AppendDER(nil, sig) // r‖s of 2·ByteLen bytes: always encodes
		d := hex.EncodeToString(der)
		if s.jsonl {
			return `{"sig":"` + d + "\"}\n"
		}
		return d + "\n"
	}
	if s.jsonl {
		return `{"r":"` + r + `","s":"` + sv + "\"}\n"
	}
	return r + " " + sv + "\n"
}
