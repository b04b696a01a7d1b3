package stream

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/rnsec/ecmul"

	"github.com/rnsec/ecmul/internal/hexcode"
)

// MaxScalarBits is the largest scalar the library takes; it reduces
// scalars mod n.
const MaxScalarBits = 512

// The errors of ParseScalarHex; both match ecmul.ErrInvalidScalar.
var (
	// ErrScalarEncoding reports a scalar that is not hexadecimal.
	ErrScalarEncoding error = scalarError("scalar is not hexadecimal")
	// ErrScalarTooLarge reports a scalar of more than MaxScalarBits bits.
	ErrScalarTooLarge error = scalarError(fmt.Sprintf("scalar exceeds %d bits", MaxScalarBits))
)

// scalarError reads as it says and matches ecmul.ErrInvalidScalar.
type scalarError string

func (e scalarError) Error() string        { return string(e) }
func (e scalarError) Is(target error) bool { return target == ecmul.ErrInvalidScalar }

// maxScalarHex bounds the text of a scalar, leading zeros included, so that
// a huge input is refused before anything of its size is allocated.
const maxScalarHex = MaxScalarBits

// ParseScalarHex parses a non-negative scalar written in hexadecimal (any
// case, an optional 0x prefix, leading zeros allowed, at most 512
// characters after the prefix) of at most 512 bits. The digits are decoded
// in words, without a branch on a digit (package hexcode); the *big.Int it
// returns is not constant time to use.
func ParseScalarHex(s string) (*big.Int, error) {
	digits := hexcode.TrimPrefix([]byte(s))
	if len(digits) > maxScalarHex {
		return nil, scalarTooLong(len(digits))
	}
	if len(digits) == 0 {
		return nil, fmt.Errorf("%w: no digits", ErrScalarEncoding)
	}
	var buf [MaxScalarBits / 8]byte
	if !hexcode.DecodePadded(buf[:], digits, maxScalarHex) {
		at := len(s) - len(digits)
		if i := strings.IndexFunc(s[at:], func(r rune) bool {
			return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F')
		}); i >= 0 {
			return nil, fmt.Errorf("%w: invalid character at offset %d", ErrScalarEncoding, at+i)
		}
		return nil, ErrScalarTooLarge
	}
	return new(big.Int).SetBytes(buf[:]), nil
}

// scalarTooLong is ErrScalarTooLarge for a text of that many characters,
// said in characters.
type scalarTooLong int

func (n scalarTooLong) Error() string {
	return fmt.Sprintf("scalar of %d hex characters, more than %d", int(n), maxScalarHex)
}

func (scalarTooLong) Is(target error) bool {
	return target == ErrScalarTooLarge || target == ecmul.ErrInvalidScalar
}
