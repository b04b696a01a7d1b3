package ecdsa_test

import (
	"bytes"
	"encoding/asn1"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/ecdsa"
)

// refDERLength is DER's length octets of n: the short form below 0x80,
// else 0x80|k and n's k big-endian bytes, none of them a leading zero.
func refDERLength(n int) []byte {
	if n < 0x80 {
		return []byte{byte(n)}
	}
	var b []byte
	for ; n > 0; n >>= 8 {
		b = append([]byte{byte(n)}, b...)
	}
	return append([]byte{0x80 | byte(len(b))}, b...)
}

// refDERInteger is the DER INTEGER of x ≥ 0: its big-endian bytes, one
// zero byte first when the top bit would read as a sign, 0 as one zero
// byte.
func refDERInteger(x *big.Int) []byte {
	v := x.Bytes()
	if len(v) == 0 || v[0]&0x80 != 0 {
		v = append([]byte{0}, v...)
	}
	return append(append([]byte{0x02}, refDERLength(len(v))...), v...)
}

// refDER is the one DER encoding of SEQUENCE { r INTEGER, s INTEGER }.
func refDER(r, s *big.Int) []byte {
	body := append(refDERInteger(r), refDERInteger(s)...)
	return append(append([]byte{0x30}, refDERLength(len(body))...), body...)
}

// refLooseTLV reads a tag, a length in any BER definite form and the
// contents, without judging the form.
func refLooseTLV(b []byte) (tag byte, contents, rest []byte, ok bool) {
	if len(b) < 2 {
		return 0, nil, nil, false
	}
	tag, n, i := b[0], 0, 2
	if b[1] < 0x80 {
		n = int(b[1])
	} else {
		k := int(b[1] & 0x7f)
		if k == 0 || k > 4 || len(b) < 2+k {
			return 0, nil, nil, false
		}
		for _, x := range b[2 : 2+k] {
			n = n<<8 | int(x)
		}
		i += k
	}
	if n > len(b)-i {
		return 0, nil, nil, false
	}
	return tag, b[i : i+n], b[i+n:], true
}

// refParseDER is the reference grammar: read the signature loosely as a
// sequence of two integers, taken as unsigned, then accept it only when
// it is byte for byte the DER encoding of their values (which rules out
// every BER form, a negative integer, whose top bit DER would pad, and
// trailing bytes).
func refParseDER(sig []byte) (r, s *big.Int, ok bool) {
	tag, body, rest, ok := refLooseTLV(sig)
	if !ok || tag != 0x30 || len(rest) != 0 {
		return nil, nil, false
	}
	var ints [2]*big.Int
	for i := range ints {
		tag, v, after, ok := refLooseTLV(body)
		if !ok || tag != 0x02 {
			return nil, nil, false
		}
		ints[i], body = new(big.Int).SetBytes(v), after
	}
	if len(body) != 0 || !bytes.Equal(refDER(ints[0], ints[1]), sig) {
		return nil, nil, false
	}
	return ints[0], ints[1], true
}

// refRS is r‖s as ParseDER returns it: L bytes each, a value too long
// for L bytes as zero.
func refRS(r, s *big.Int, L int) []byte {
	rs := make([]byte, 2*L)
	for i, x := range []*big.Int{r, s} {
		if x.BitLen() <= 8*L {
			x.FillBytes(rs[i*L : (i+1)*L])
		}
	}
	return rs
}

// FuzzParseDER: ParseDER accepts exactly what the reference grammar
// accepts, with the same r and s; what Go's encoding/asn1 accepts of it
// has the same values; it never panics.
func FuzzParseDER(f *testing.F) {
	n := ecmul.P256().Order()
	for _, seed := range [][]byte{
		{0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01},
		{0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x02, 0x00, 0x80},
		{0x30, 0x81, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01},
		{0x30, 0x06, 0x02, 0x01, 0xff, 0x02, 0x01, 0x01},
		refDER(n, new(big.Int).Sub(n, big.NewInt(1))),
		refDER(new(big.Int).Lsh(n, 300), big.NewInt(0)),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, der []byte) {
		for _, c := range []ecmul.Curve{ecmul.P224(), ecmul.P256()} {
			L := c.ByteLen()
			rs, err := ecdsa.ParseDER(der, c)
			r, s, ok := refParseDER(der)
			require.Equal(t, ok, err == nil, "%x: %v", der, err)
			if !ok {
				require.ErrorIs(t, err, ecdsa.ErrInvalidSignature)
				continue
			}
			require.Equal(t, refRS(r, s, L), rs, "%x", der)
			var v struct{ R, S *big.Int }
			if rest, err := asn1.Unmarshal(der, &v); err == nil && len(rest) == 0 {
				require.Zero(t, v.R.Cmp(r), "%x", der)
				require.Zero(t, v.S.Cmp(s), "%x", der)
			}
		}
	})
}

// TestParseDER: good signatures give r‖s, zero-padded, a value too long
// for L bytes as zero; every BER form, padded or negative integer, wrong
// tag and stray byte is an error that says what is wrong.
func TestParseDER(t *testing.T) {
	c := ecmul.P256()
	n := c.Order()
	one := big.NewInt(1)
	for name, tc := range map[string]struct {
		der  []byte
		r, s *big.Int
	}{
		"s takes a zero byte":  {[]byte{0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x02, 0x00, 0x80}, one, big.NewInt(0x80)},
		"r of 0":               {[]byte{0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x01}, new(big.Int), one},
		"r of n":               {refDER(n, one), n, one},
		"s of n-1":             {refDER(one, new(big.Int).Sub(n, one)), one, new(big.Int).Sub(n, one)},
		"r too long for L":     {refDER(new(big.Int).Lsh(one, 256), one), new(big.Int), one},
		"long-form length 200": {refDER(new(big.Int).Lsh(one, 1500), one), new(big.Int), one},
	} {
		rs, err := ecdsa.ParseDER(tc.der, c)
		require.NoError(t, err, name)
		require.Equal(t, refRS(tc.r, tc.s, 32), rs, name)
	}
	for name, tc := range map[string]struct {
		der  []byte
		want string
	}{
		"empty":                  {nil, "the signature is missing"},
		"trailing":               {[]byte{0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00}, "1 byte(s) after the signature"},
		"BER length 0x81":        {[]byte{0x30, 0x81, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01}, "the signature: long-form length 6"},
		"BER length 0x82":        {[]byte{0x30, 0x82, 0x00, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01}, "leading zero byte (BER"},
		"BER length of r":        {[]byte{0x30, 0x07, 0x02, 0x81, 0x01, 0x01, 0x02, 0x01, 0x01}, "r: long-form length 1"},
		"length of 3 bytes":      {[]byte{0x30, 0x83, 0x00, 0x00, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01}, "a length of 3 bytes"},
		"indefinite":             {[]byte{0x30, 0x80, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00, 0x00}, "indefinite length"},
		"leading zero of r":      {[]byte{0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x01}, "r has a redundant leading zero"},
		"leading zero of s":      {[]byte{0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x02, 0x00, 0x7f}, "s has a redundant leading zero"},
		"negative r":             {[]byte{0x30, 0x06, 0x02, 0x01, 0xff, 0x02, 0x01, 0x01}, "r is negative"},
		"negative s":             {[]byte{0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x80}, "s is negative"},
		"empty integer":          {[]byte{0x30, 0x05, 0x02, 0x00, 0x02, 0x01, 0x01}, "r is an INTEGER of no bytes"},
		"missing s":              {[]byte{0x30, 0x03, 0x02, 0x01, 0x01}, "s is missing"},
		"extra element":          {[]byte{0x30, 0x09, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01}, "3 byte(s) after s"},
		"SET":                    {[]byte{0x31, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01}, "want tag 0x30, got 0x31"},
		"octet string":           {[]byte{0x30, 0x06, 0x04, 0x01, 0x01, 0x02, 0x01, 0x01}, "r: want tag 0x02, got 0x04"},
		"truncated":              {[]byte{0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01}, "length 7, but 6 byte(s) follow"},
		"truncated long length":  {[]byte{0x30, 0x82, 0x01}, "truncated length"},
		"no length":              {[]byte{0x30}, "no length"},
		"s overruns the seq":     {[]byte{0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x02, 0x01}, "s: length 2, but 1 byte(s) follow"},
		"sequence in a sequence": {[]byte{0x30, 0x08, 0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01}, "r: want tag 0x02, got 0x30"},
	} {
		_, err := ecdsa.ParseDER(tc.der, c)
		require.ErrorIs(t, err, ecdsa.ErrInvalidSignature, name)
		require.ErrorContains(t, err, tc.want, name)
		_, _, ok := refParseDER(tc.der)
		require.False(t, ok, "the reference accepts %s", name)
	}
	_, err := ecdsa.ParseDER([]byte{0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01}, ecmul.Curve{})
	require.Error(t, err)
}
