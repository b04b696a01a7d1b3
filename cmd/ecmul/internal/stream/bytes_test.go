package stream

import (
	"bytes"
	"fmt"
	"math/big"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/hexcode"
)

// TestParseIntoMatchesBigParser: the bytes path's decoding of hex lines
// gives the bytes the *big.Int parser's values encode (the scalar the same
// mod n, reduced when it has more digits than the field), and fails exactly where that
// parser fails, on lines of every shape: odd digit counts, leading zeros,
// 0x prefixes, upper case, tabs, long scalars, bad digits, wrong field
// counts, coordinates of more than L bytes.
func TestParseIntoMatchesBigParser(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for _, c := range curves.All() {
		cd := &codec{c: c, format: Hex}
		L := c.ByteLen()
		field := func() string {
			v := new(big.Int).Rand(rng, new(big.Int).Lsh(big.NewInt(1), uint(rng.Intn(8*L+9))))
			s := v.Text(16)
			switch rng.Intn(8) {
			case 0:
				s = strings.Repeat("0", rng.Intn(6)) + s
			case 1:
				s = "0x" + s
			case 2:
				s = strings.ToUpper(s)
			case 3:
				s = s + "g"
			case 4:
				s = ""
			}
			return s
		}
		for trial := range 3000 {
			sep := []string{" ", "\t", "  "}[rng.Intn(3)]
			fs := []string{field(), field(), field()}
			if trial%50 == 0 {
				fs = append(fs, "1")
			}
			if trial%61 == 0 {
				fs[0] = new(big.Int).Lsh(big.NewInt(3), 500).Text(16)
			}
			line := strings.Join(fs, sep)
			sc, pt := make([]byte, L), make([]byte, 1+2*L)
			err := cd.parseInto(sc, pt, []byte(line))
			p, k, wantErr := cd.parse(line)
			if wantErr != nil {
				require.EqualError(t, err, wantErr.Error(), "%s: %q", c.Name(), line)
				continue
			}
			require.NoError(t, err, "%s: %q", c.Name(), line)
			// the same scalar mod n (reduced here when it has more than 2L digits)
			got := new(big.Int).Mod(new(big.Int).SetBytes(sc), c.N())
			require.Zero(t, got.Cmp(new(big.Int).Mod(k, c.N())), "%s: %q scalar", c.Name(), line)
			require.Equal(t, c.EncodeSEC1((*curves.Point)(p), false), pt, "%s: %q point", c.Name(), line)
		}
	}
}

// TestParseIntoScalarSpellings: every spelling of a scalar that the hex
// format accepts (a 0x or 0X prefix, leading zeros, more than 2L digits up
// to 128, a value of n or more) is decoded and reduced in fixed-width
// words, never through math/big: parseInto allocates nothing for it, and
// gives the *big.Int parser's value mod n. A point field with a prefix
// takes the *big.Int parser, its scalar still decoded in words.
func TestParseIntoScalarSpellings(t *testing.T) {
	rng := rand.New(rand.NewSource(24))
	for _, c := range curves.All() {
		cd := &codec{c: c, format: Hex}
		L := c.ByteLen()
		g := c.Generator()
		x, y := fmt.Sprintf("%0*x", 2*L, g.X), fmt.Sprintf("%0*x", 2*L, g.Y)
		wide := new(big.Int).Rand(rng, new(big.Int).Lsh(big.NewInt(1), 512))
		for _, k := range []string{
			"0x" + fmt.Sprintf("%0*x", 2*L, c.N()), "0X1", "0x0",
			strings.Repeat("0", 2*L) + "5", fmt.Sprintf("%0128x", wide), fmt.Sprintf("0x%0128x", wide),
			strings.Repeat("f", 128), strings.Repeat("F", 2*L+1),
			strings.Repeat("0", 300) + "ab", "0x" + strings.Repeat("0", 400) + fmt.Sprintf("%0112x", new(big.Int).Rsh(wide, 64)),
		} {
			line := []byte(k + " " + x + " " + y)
			sc, pt := make([]byte, L), make([]byte, 1+2*L)
			require.NoError(t, cd.parseInto(sc, pt, line), "%s: %s", c.Name(), k)
			want, err := ParseScalarHex(k)
			require.NoError(t, err)
			got := new(big.Int).Mod(new(big.Int).SetBytes(sc), c.N())
			require.Zero(t, got.Cmp(new(big.Int).Mod(want, c.N())), "%s: %s", c.Name(), k)
			require.Equal(t, c.EncodeSEC1(g, false), pt)
			allocs := testing.AllocsPerRun(20, func() { _ = cd.parseInto(sc, pt, line) })
			require.Zero(t, allocs, "%s: scalar %s goes through math/big", c.Name(), k)
		}
	}
}

func TestThreeFields(t *testing.T) {
	for line, want := range map[string][]string{
		"a b c":        {"a", "b", "c"},
		"  a\t\tb c  ": {"a", "b", "c"},
		"a b":          nil,
		"a b c d":      nil,
		"":             nil,
	} {
		f, ok := threeFields([]byte(line))
		require.Equal(t, want != nil, ok, "%q", line)
		if ok {
			require.Equal(t, want, []string{string(f[0]), string(f[1]), string(f[2])}, "%q", line)
		}
	}
}

// TestSpaceFields: the fast split takes lines of three fields and two
// single spaces only, and gives threeFields' fields wherever no field holds
// a tab (which the hex decoding then refuses).
func TestSpaceFields(t *testing.T) {
	for line, want := range map[string][]string{
		"a b c": {"a", "b", "c"}, "ab\tc d e": {"ab\tc", "d", "e"},
		" a b c": nil, "a  b c": nil, "a b c ": nil, "a b": nil, "a b c d": nil, "abc": nil, "": nil, "a\tb c": nil,
	} {
		f, ok := spaceFields([]byte(line))
		require.Equal(t, want != nil, ok, "%q", line)
		if ok {
			require.Equal(t, want, []string{string(f[0]), string(f[1]), string(f[2])}, "%q", line)
		}
	}
	rng := rand.New(rand.NewSource(3))
	alphabet := []byte("ab \t")
	for range 20000 {
		line := make([]byte, rng.Intn(9))
		for i := range line {
			line[i] = alphabet[rng.Intn(len(alphabet))]
		}
		f, ok := spaceFields(line)
		if !ok || bytes.ContainsRune(line, '\t') {
			continue
		}
		g, ok3 := threeFields(line)
		require.True(t, ok3, "%q", line)
		require.Equal(t, g, f, "%q", line)
	}
}

func TestHexInto(t *testing.T) {
	dst := make([]byte, 4)
	for field, want := range map[string][]byte{
		"1":         {0, 0, 0, 1},
		"abc":       {0, 0, 0x0a, 0xbc},
		"DEADbeef":  {0xde, 0xad, 0xbe, 0xef},
		"0deadbee":  {0x0d, 0xea, 0xdb, 0xee},
		"123456789": nil, "": nil, "xy": nil, "0x12": nil,
	} {
		ok := hexcode.DecodeInto(dst, []byte(field))
		require.Equal(t, want != nil, ok, "%q", field)
		if ok {
			require.True(t, bytes.Equal(want, dst), fmt.Sprintf("%q: %x", field, dst))
		}
	}
}

// TestPointSize: pointSize is the length of the output appendBytesResult
// and putPoint write for a point, in every format, with and without
// --x-only, on every curve.
func TestPointSize(t *testing.T) {
	for _, c := range curves.All() {
		L := c.ByteLen()
		xy := bytes.Repeat([]byte{0xa5}, 2*L)
		for _, f := range append(LineFormats, Raw) {
			for _, xOnly := range []bool{false, true} {
				cd := &codec{c: c, format: f, xOnly: xOnly}
				want := cd.appendBytesResult([]byte("x"), ecmul.StatusPoint, xy, nil)[1:]
				require.Len(t, want, cd.pointSize(), "%s %s x-only %v", c.Name(), f, xOnly)
				got := make([]byte, cd.pointSize())
				if cd.putPoint(got, xy) {
					require.Equal(t, want, got, "%s %s x-only %v", c.Name(), f, xOnly)
				}
			}
		}
	}
}
