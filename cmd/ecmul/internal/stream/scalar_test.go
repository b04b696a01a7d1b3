package stream_test

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/stretchr/testify/require"
)

// TestParseScalarHex: every spelling of a scalar the grammar allows, and
// the errors of the rest, each also ecmul.ErrInvalidScalar.
func TestParseScalarHex(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // decimal; "" for an error
		err  error
	}{
		{"0", "0", nil},
		{"0x0", "0", nil},
		{"0XfF", "255", nil},
		{"00000000000000000001", "1", nil},
		{"DeadBeef", "3735928559", nil},
		{"", "", stream.ErrScalarEncoding},
		{"0x", "", stream.ErrScalarEncoding},
		{"-1", "", stream.ErrScalarEncoding},
		{"+1", "", stream.ErrScalarEncoding},
		{"12g4", "", stream.ErrScalarEncoding},
		{"1 2", "", stream.ErrScalarEncoding},
		{"1\u0661", "", stream.ErrScalarEncoding},
		{"1" + repeat("0", 128), "", stream.ErrScalarTooLarge},
		{repeat("f", 128), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 512), big.NewInt(1)).String(), nil},
		{repeat("0", 200) + "7", "7", nil},
		{repeat("0", 4000) + "7", "", stream.ErrScalarTooLarge},
		{"0x" + repeat("0", 511) + "7", "7", nil},
		{"0x" + repeat("0", 512) + "7", "", stream.ErrScalarTooLarge},
		{repeat("0", 300) + "1" + repeat("0", 128), "", stream.ErrScalarTooLarge},
		{repeat("0", 300) + "g", "", stream.ErrScalarEncoding},
	} {
		k, err := stream.ParseScalarHex(tc.in)
		if tc.err != nil {
			require.ErrorIs(t, err, tc.err, "%.40q", tc.in)
			require.ErrorIs(t, err, ecmul.ErrInvalidScalar, "%.40q: the library's class", tc.in)
			require.Nil(t, k)
			continue
		}
		require.NoError(t, err, "%.40q", tc.in)
		require.Equal(t, tc.want, k.String(), "%.40q", tc.in)
	}
}

// TestParseScalarHexMessages: the errors say what is wrong in one unit:
// characters for a text too long, bits for a value too large, and the
// offset of a bad character.
func TestParseScalarHexMessages(t *testing.T) {
	for in, want := range map[string]string{
		repeat("0", 513):       "scalar of 513 hex characters, more than 512",
		"1" + repeat("0", 128): "scalar exceeds 512 bits",
		"0x12g4":               "scalar is not hexadecimal: invalid character at offset 4",
		"0x":                   "scalar is not hexadecimal: no digits",
	} {
		_, err := stream.ParseScalarHex(in)
		require.EqualError(t, err, want, "%.40q", in)
	}
}

func repeat(s string, n int) string {
	b := make([]byte, 0, len(s)*n)
	for range n {
		b = append(b, s...)
	}
	return string(b)
}

// FuzzParseScalarHex checks ParseScalarHex against the grammar it
// documents: an optional 0x or 0X, then 1 to 512 hexadecimal digits (leading
// zeros count) whose value has at most 512 bits. Too many digits or too many
// bits is ErrScalarTooLarge, anything else malformed ErrScalarEncoding;
// accepted text gives the value math/big reads, and the lowercase hex of an
// accepted value parses back to it.
func FuzzParseScalarHex(f *testing.F) {
	f.Add("0")
	f.Add("0x1")
	f.Fuzz(func(t *testing.T, s string) {
		k, err := stream.ParseScalarHex(s)

		digits := s
		if len(digits) >= 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') {
			digits = digits[2:]
		}
		var want *big.Int
		var wantErr error
		switch {
		case len(digits) > stream.MaxScalarBits:
			wantErr = stream.ErrScalarTooLarge
		case digits == "" || strings.Trim(digits, "0123456789abcdefABCDEF") != "":
			wantErr = stream.ErrScalarEncoding
		default:
			want, _ = new(big.Int).SetString(digits, 16)
			if want.BitLen() > stream.MaxScalarBits {
				want, wantErr = nil, stream.ErrScalarTooLarge
			}
		}
		if wantErr != nil {
			if err == nil || k != nil {
				t.Fatalf("%.80q: got (%v, %v), want %v", s, k, err, wantErr)
			}
			if !errors.Is(err, wantErr) {
				t.Fatalf("%.80q: error %v, want %v", s, err, wantErr)
			}
			if len(err.Error()) > 200 {
				t.Fatalf("%.80q: the error repeats the input: %d bytes", s, len(err.Error()))
			}
			return
		}
		if err != nil || k == nil || k.Cmp(want) != 0 {
			t.Fatalf("%.80q: got (%v, %v), want %v", s, k, err, want)
		}
		again, err := stream.ParseScalarHex(k.Text(16))
		if err != nil || again.Cmp(k) != 0 {
			t.Fatalf("%.80q: %x does not parse back: (%v, %v)", s, k, again, err)
		}
	})
}
