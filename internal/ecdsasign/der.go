package ecdsasign

import "errors"

// AppendDER appends to dst the ASN.1 DER encoding of the signature sig =
// r‖s (two big-endian halves of equal length, at most 32 bytes each):
// SEQUENCE { r INTEGER, s INTEGER }, each integer in its minimal form.
// It returns an error for a sig of odd length or longer than 64 bytes.
func AppendDER(dst, sig []byte) ([]byte, error) {
	if len(sig)%2 != 0 || len(sig) > 64 {
		return dst, errors.New("ecdsasign: DER: a signature r‖s is two halves of at most 32 bytes")
	}
	r, s := derInteger(sig[:len(sig)/2]), derInteger(sig[len(sig)/2:])
	dst = append(dst, 0x30, byte(len(r)+len(s))) // at most 70: the short form
	dst = append(dst, r...)
	return append(dst, s...), nil
}

// derInteger returns the DER INTEGER of the non-negative big-endian x:
// no leading zero byte, except one before a high bit, and 0 as one zero
// byte.
func derInteger(x []byte) []byte {
	for len(x) > 0 && x[0] == 0 {
		x = x[1:]
	}
	v := make([]byte, 0, 3+len(x))
	v = append(v, 0x02, 0)
	if len(x) == 0 || x[0]&0x80 != 0 {
		v = append(v, 0)
	}
	v = append(v, x...)
	v[1] = byte(len(v) - 2)
	return v
}
