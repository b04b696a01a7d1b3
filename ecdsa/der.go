package ecdsa

import (
	"fmt"

	"github.com/rnsec/ecmul"
)

// ParseDER converts an ASN.1 DER signature, SEQUENCE { r INTEGER, s INTEGER },
// to the r‖s form Verify takes: 2·c.ByteLen() bytes, each of r and s
// big-endian and zero-padded. It is strict: anything but the one DER
// encoding of the sequence (BER lengths, indefinite or long-form where the
// short form fits, integers with a redundant leading byte, negative
// integers, other tags, trailing bytes) is an error. A value of 0 or at
// least n parses, and Verify finds it Invalid; one too long for ByteLen
// bytes (so at least n) is left zero, which Verify finds Invalid too.
// Every error matches ErrInvalidSignature. ParseDER does not panic on any
// input.
func ParseDER(sig []byte, c ecmul.Curve) (rs []byte, err error) {
	L := c.ByteLen()
	if L == 0 {
		return nil, derErrorf("no curve")
	}
	r, s, err := parseDER(sig)
	if err != nil {
		return nil, err
	}
	rs = make([]byte, 2*L)
	for i, x := range [2][]byte{r, s} {
		if len(x) <= L {
			copy(rs[(i+1)*L-len(x):(i+1)*L], x)
		}
	}
	return rs, nil
}

// derErrorf is an error of ParseDER: it matches ErrInvalidSignature.
func derErrorf(format string, a ...any) error {
	return fmt.Errorf("%w: DER: %s", ErrInvalidSignature, fmt.Sprintf(format, a...))
}

// parseDER checks the DER grammar of an ECDSA signature and returns the
// magnitudes of r and s, big-endian without leading zero bytes (empty for
// 0), as slices of sig.
func parseDER(sig []byte) (r, s []byte, err error) {
	body, rest, err := derElement(sig, 0x30, "the signature")
	if err != nil {
		return nil, nil, err
	}
	if len(rest) > 0 {
		return nil, nil, derErrorf("%d byte(s) after the signature", len(rest))
	}
	r, body, err = derInteger(body, "r")
	if err != nil {
		return nil, nil, err
	}
	s, body, err = derInteger(body, "s")
	if err != nil {
		return nil, nil, err
	}
	if len(body) > 0 {
		return nil, nil, derErrorf("%d byte(s) after s in the sequence", len(body))
	}
	return r, s, nil
}

// derInteger reads a non-negative INTEGER, minimally encoded, from the
// front of b and returns its magnitude and what follows it.
func derInteger(b []byte, name string) (mag, rest []byte, err error) {
	v, rest, err := derElement(b, 0x02, name)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case len(v) == 0:
		return nil, nil, derErrorf("%s is an INTEGER of no bytes", name)
	case v[0]&0x80 != 0:
		return nil, nil, derErrorf("%s is negative", name)
	case len(v) > 1 && v[0] == 0 && v[1]&0x80 == 0:
		return nil, nil, derErrorf("%s has a redundant leading zero byte (not minimal)", name)
	}
	if v[0] == 0 {
		v = v[1:]
	}
	return v, rest, nil
}

// derElement reads one element of the given tag from the front of b, in
// DER's definite, minimal length form, and returns its contents and what
// follows it. name says what the element is, for the errors.
func derElement(b []byte, tag byte, name string) (contents, rest []byte, err error) {
	if len(b) == 0 {
		return nil, nil, derErrorf("%s is missing", name)
	}
	if b[0] != tag {
		return nil, nil, derErrorf("%s: want tag 0x%02x, got 0x%02x", name, tag, b[0])
	}
	if len(b) < 2 {
		return nil, nil, derErrorf("%s: no length", name)
	}
	n, head := int(b[1]), 2
	switch {
	case n == 0x80:
		return nil, nil, derErrorf("%s: indefinite length (BER, not DER)", name)
	case n > 0x82:
		return nil, nil, derErrorf("%s: a length of %d bytes is too long", name, n&0x7f)
	case n > 0x80:
		k := n & 0x7f
		if len(b) < 2+k {
			return nil, nil, derErrorf("%s: truncated length", name)
		}
		if b[2] == 0 {
			return nil, nil, derErrorf("%s: long-form length with a leading zero byte (BER, not DER)", name)
		}
		n = 0
		for _, x := range b[2 : 2+k] {
			n = n<<8 | int(x)
		}
		if n < 0x80 {
			return nil, nil, derErrorf("%s: long-form length %d, which the short form holds (BER, not DER)", name, n)
		}
		head += k
	}
	if len(b)-head < n {
		return nil, nil, derErrorf("%s: length %d, but %d byte(s) follow", name, n, len(b)-head)
	}
	return b[head : head+n], b[head+n:], nil
}
