package hexcode

import (
	"bytes"
	"encoding/hex"
	"math/rand"
	"strings"
	"testing"
)

// refDecodeInto is DecodeInto by encoding/hex: an odd field gets a leading zero.
func refDecodeInto(dst, field []byte) bool {
	if len(field) == 0 || len(field) > 2*len(dst) {
		return false
	}
	if len(field)%2 == 1 {
		field = append([]byte{'0'}, field...)
	}
	b, err := hex.DecodeString(string(field))
	if err != nil {
		return false
	}
	clear(dst)
	copy(dst[len(dst)-len(b):], b)
	return true
}

// TestDecodeIntoEveryByte: every byte value, at every place of fields of
// every length up to 2·L+1, is accepted and decoded as encoding/hex does.
func TestDecodeIntoEveryByte(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	const digits = "0123456789abcdefABCDEF"
	for _, L := range []int{1, 4, 28, 32} {
		got, want := make([]byte, L), make([]byte, L)
		for n := 0; n <= 2*L+1; n++ {
			field := make([]byte, n)
			for at := range n {
				for c := range 256 {
					for i := range field {
						field[i] = digits[rng.Intn(len(digits))]
					}
					field[at] = byte(c)
					ok, wantOK := DecodeInto(got, field), refDecodeInto(want, field)
					if ok != wantOK || ok && !bytes.Equal(got, want) {
						t.Fatalf("L %d, %q: %v %x, want %v %x", L, field, ok, got, wantOK, want)
					}
				}
			}
			if n == 0 && DecodeInto(got, field) {
				t.Fatalf("L %d: the empty field is accepted", L)
			}
		}
	}
}

// TestAppend: Append writes what encoding/hex writes, for every byte
// value at every place and every length up to 40.
func TestAppend(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for n := range 41 {
		b := make([]byte, n)
		for at := range n {
			for c := range 256 {
				rng.Read(b)
				b[at] = byte(c)
				if got, want := Append([]byte("x"), b), hex.AppendEncode([]byte("x"), b); !bytes.Equal(got, want) {
					t.Fatalf("%x: %q, want %q", b, got, want)
				}
			}
		}
	}
}

// TestTrimPrefix: 0x and 0X go, nothing else does.
func TestTrimPrefix(t *testing.T) {
	for in, want := range map[string]string{
		"0x12": "12", "0X": "", "0xx": "x", "00x1": "00x1", "x0": "x0", "0": "0", "": "", "0y1": "0y1", "1x": "1x", "0\x78": "",
	} {
		if got := string(TrimPrefix([]byte(in))); got != want {
			t.Errorf("TrimPrefix(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDecodePadded: leading zeros beyond the destination's digits are
// accepted up to the length limit, a non-zero or non-hex character among
// them is refused, and the rest decodes as DecodeInto does.
func TestDecodePadded(t *testing.T) {
	dst := make([]byte, 2)
	for _, tc := range []struct {
		in   string
		max  int
		want []byte // nil: refused
	}{
		{"abcd", 8, []byte{0xab, 0xcd}},
		{"0000abcd", 8, []byte{0xab, 0xcd}},
		{"00000abcd", 8, nil},
		{"0001abcd", 8, nil},
		{"000gabcd", 8, nil},
		{"00 0abcd", 8, nil},
		{"000abcdx", 8, nil},
		{"1", 8, []byte{0, 1}},
		{"", 8, nil},
	} {
		ok := DecodePadded(dst, []byte(tc.in), tc.max)
		if ok != (tc.want != nil) || ok && !bytes.Equal(dst, tc.want) {
			t.Errorf("DecodePadded(%q, %d) = %v, %x; want %x", tc.in, tc.max, ok, dst, tc.want)
		}
	}
}

// TestIndexNonHex: every byte value, at every place of a field of digits,
// is found exactly when strings.ContainsRune of the hex digits refuses it.
func TestIndexNonHex(t *testing.T) {
	const digits = "0123456789abcdefABCDEF"
	for n := 1; n <= 9; n++ {
		for at := range n {
			for c := range 256 {
				field := bytes.Repeat([]byte{'7'}, n)
				field[at] = byte(c)
				want := -1
				if !strings.ContainsRune(digits, rune(c)) {
					want = at
				}
				if got := IndexNonHex(field); got != want {
					t.Fatalf("IndexNonHex(%q) = %d, want %d", field, got, want)
				}
			}
		}
	}
	if got := IndexNonHex(nil); got != -1 {
		t.Fatalf("IndexNonHex(nil) = %d", got)
	}
}

// TestQuoteByte: printable ASCII is quoted, any other byte is shown by
// its value, never as the rune of its value.
func TestQuoteByte(t *testing.T) {
	for b, want := range map[byte]string{'g': "'g'", ' ': "' '", '\'': `'\''`, 0: "0x00", '\n': "0x0a", 0x7f: "0x7f", 0xc3: "0xc3", 0xff: "0xff"} {
		if got := QuoteByte(b); got != want {
			t.Errorf("QuoteByte(%#x) = %s, want %s", b, got, want)
		}
	}
}
