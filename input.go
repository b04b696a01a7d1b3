package ecmul

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// ErrScalarEncoding reports a scalar that is not hexadecimal.
var ErrScalarEncoding = errors.New("scalar is not hexadecimal")

// maxScalarHex bounds the text of a scalar, leading zeros included, so that
// a huge input is refused before anything of its size is allocated.
const maxScalarHex = 4 * MaxScalarBits / 4

// ParseScalarHex parses a non-negative scalar written in hexadecimal (any
// case, an optional 0x prefix, leading zeros allowed) of at most 512 bits.
func ParseScalarHex(s string) (*big.Int, error) {
	digits := s
	if len(digits) >= 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') {
		digits = digits[2:]
	}
	if len(digits) > maxScalarHex {
		return nil, fmt.Errorf("%w: %d digits, more than %d", ErrScalarTooLarge, len(digits), maxScalarHex)
	}
	if digits == "" {
		return nil, fmt.Errorf("%w: no digits", ErrScalarEncoding)
	}
	if i := strings.IndexFunc(digits, func(r rune) bool {
		return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F')
	}); i >= 0 {
		return nil, fmt.Errorf("%w: invalid character at offset %d", ErrScalarEncoding, len(s)-len(digits)+i)
	}
	k, _ := new(big.Int).SetString(digits, 16)
	if k.BitLen() > MaxScalarBits {
		return nil, ErrScalarTooLarge
	}
	return k, nil
}
