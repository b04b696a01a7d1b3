package ecdsa

import (
	"bytes"
	"encoding/asn1"
	"fmt"
	"math/big"

	"github.com/rnsec/ecmul"
)

// ParseDER converts an ASN.1 DER signature, SEQUENCE { r INTEGER, s INTEGER },
// to the r‖s form Verify takes: 2·c.ByteLen() bytes, each of r and s
// big-endian and zero-padded. It is strict: anything but the one DER
// encoding of the sequence (BER lengths, padded or negative integers,
// other types, trailing bytes) is an error, as is an r or s too long for
// ByteLen bytes. A value of 0 or at least n parses, and Verify finds it
// Invalid. Every error matches ErrInvalidSignature.
func ParseDER(sig []byte, c ecmul.Curve) (rs []byte, err error) {
	L := c.ByteLen()
	if L == 0 {
		return nil, fmt.Errorf("%w: DER: no curve", ErrInvalidSignature)
	}
	var v struct{ R, S *big.Int }
	rest, err := asn1.Unmarshal(sig, &v)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: DER: %v", ErrInvalidSignature, err)
	case len(rest) > 0:
		return nil, fmt.Errorf("%w: DER: %d bytes after the signature", ErrInvalidSignature, len(rest))
	}
	if again, err := asn1.Marshal(v); err != nil || !bytes.Equal(again, sig) {
		return nil, fmt.Errorf("%w: DER: not the canonical encoding", ErrInvalidSignature)
	}
	rs = make([]byte, 2*L)
	for i, x := range []*big.Int{v.R, v.S} {
		if x.Sign() < 0 {
			return nil, fmt.Errorf("%w: DER: %c is negative", ErrInvalidSignature, "rs"[i])
		}
		if x.BitLen() > 8*L {
			return nil, fmt.Errorf("%w: DER: %c has more than %d bytes", ErrInvalidSignature, "rs"[i], L)
		}
		x.FillBytes(rs[i*L : (i+1)*L])
	}
	return rs, nil
}
