package stream

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
)

// The fuzz targets reach the line parser and the stream through these two
// functions only.

func fzParse(c *curves.Curve, format Format, line string) (*ecmul.Point, *big.Int, error) {
	cd := codec{c: c, format: format}
	return cd.parse(line)
}

func fzStream(eng *ecmul.Engine, format Format, in io.Reader, out io.Writer, chunk int) (failed int, err error) {
	sum, err := mulStream(context.Background(), eng, in, out, mulOptions{chunk: chunk, codec: codec{c: CurveOf(eng.Curve()), format: format}})
	return sum.failed, err
}

var fzFormats = []Format{Hex, SEC1, JSONL}

// fzEngines are cpu engines, one per curve, shared by every iteration.
var fzEngines = sync.OnceValue(func() map[*curves.Curve]*ecmul.Engine {
	m := map[*curves.Curve]*ecmul.Engine{}
	for _, c := range curves.All() {
		e, err := ecmul.New(pubCurve(c), ecmul.Options{Backend: ecmul.CPU, Workers: 1})
		if err != nil {
			panic(err)
		}
		m[c] = e
	}
	return m
})

// fzOnCurve checks y² = x³ + a·x + b and the ranges from the definitions.
func fzOnCurve(c *curves.Curve, x, y *big.Int) bool {
	if x == nil || y == nil || x.Sign() < 0 || y.Sign() < 0 || x.Cmp(c.P()) >= 0 || y.Cmp(c.P()) >= 0 {
		return false
	}
	if x.Sign() == 0 && y.Sign() == 0 {
		return false
	}
	l := new(big.Int).Exp(y, big.NewInt(2), c.P())
	r := new(big.Int).Exp(x, big.NewInt(3), nil)
	r.Add(r, new(big.Int).Mul(big.NewInt(c.A()), x)).Add(r, c.B()).Mod(r, c.P())
	return l.Cmp(r) == 0
}

// fzHex reads hex the way the help describes it: an optional 0x or 0X, then
// at least one hex digit in any case; ok is false for anything else.
func fzHex(s string) (*big.Int, bool) {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	if s == "" || strings.Trim(s, "0123456789abcdefABCDEF") != "" {
		return nil, false
	}
	v, ok := new(big.Int).SetString(s, 16)
	return v, ok
}

// fzFields returns the values a line of the given format holds, read
// independently of the parser; ok is false when the line is malformed.
func fzFields(c *curves.Curve, format Format, line string) (k, x, y *big.Int, ok bool) {
	switch format {
	case JSONL:
		var m map[string]string
		if err := json.Unmarshal([]byte(line), &m); err != nil || len(m) != 3 {
			return nil, nil, nil, false
		}
		var okK, okX, okY bool
		k, okK = fzHex(m["scalar"])
		x, okX = fzHex(m["x"])
		y, okY = fzHex(m["y"])
		return k, x, y, okK && okX && okY
	case SEC1:
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, nil, nil, false
		}
		k, okK := fzHex(f[0])
		s := strings.TrimPrefix(strings.TrimPrefix(f[1], "0x"), "0X")
		b, err := hex.DecodeString(s)
		if err != nil || !okK {
			return nil, nil, nil, false
		}
		p, err := c.DecodeSEC1(b)
		if err != nil {
			return nil, nil, nil, false
		}
		return k, p.X, p.Y, true
	}
	f := strings.Fields(line)
	if len(f) != 3 {
		return nil, nil, nil, false
	}
	var okK, okX, okY bool
	k, okK = fzHex(f[0])
	x, okX = fzHex(f[1])
	y, okY = fzHex(f[2])
	return k, x, y, okK && okX && okY
}

// FuzzParseLine parses arbitrary lines in every format and curve. The
// parser never panics. A line it accepts holds exactly the values an
// independent reading of the line gives, with a non-negative scalar of at
// most 512 bits and both coordinates below p; the item it yields is then
// computed by the engine only if the point is on the curve and not (0, 0)
// (checked here from the curve equation), so an accepted line that is
// computed always has a valid point. A rejected line's reason is bounded by
// the line: at most what quoting the whole line would take.
func FuzzParseLine(f *testing.F) {
	f.Add(uint8(0), uint8(0), "2 b70e0cbd6bb4bf7f321390b94a03c1d356c21122343280d6115c1d21 bd376388b5f723fb4c22dfe6cd4375a05a07476444d5819985007e34")
	f.Fuzz(func(t *testing.T, curve, format uint8, line string) {
		all := curves.All()
		c := all[int(curve)%len(all)]
		fm := fzFormats[int(format)%len(fzFormats)]
		p, k, err := fzParse(c, fm, line)
		if err != nil {
			if p != nil || k != nil {
				t.Fatalf("%s %s %q: error %v with a value", c.Name(), fm, line, err)
			}
			if msg := OneLine(err.Error()); len(msg) > 256+4*len(line) {
				t.Fatalf("%s %s %.80q: a %d-byte reason for a %d-byte line", c.Name(), fm, line, len(msg), len(line))
			}
			return
		}
		if p == nil || k == nil || p.X == nil || p.Y == nil {
			t.Fatalf("%s %s %q: accepted with a missing value", c.Name(), fm, line)
		}
		if k.Sign() < 0 || k.BitLen() > MaxScalarBits {
			t.Fatalf("%s %s %q: accepted scalar %x", c.Name(), fm, line, k)
		}
		for _, v := range []*big.Int{p.X, p.Y} {
			if v.Sign() < 0 || v.Cmp(c.P()) >= 0 {
				t.Fatalf("%s %s %q: accepted coordinate %x, not below p", c.Name(), fm, line, v)
			}
		}
		wk, wx, wy, ok := fzFields(c, fm, line)
		if !ok {
			t.Fatalf("%s %s %q: accepted a line that does not read as an item", c.Name(), fm, line)
		}
		if wk.Cmp(k) != 0 || wx.Cmp(p.X) != 0 || wy.Cmp(p.Y) != 0 {
			t.Fatalf("%s %s %q: parsed (%x, %x, %x), the line says (%x, %x, %x)", c.Name(), fm, line, k, p.X, p.Y, wk, wx, wy)
		}
		if fm == SEC1 && !fzOnCurve(c, p.X, p.Y) {
			t.Fatalf("%s %s %q: accepted a point off the curve", c.Name(), fm, line)
		}
		res := make([]ecmul.Result, 1)
		err = fzEngines()[c].ScalarMult(context.Background(), res, []*big.Int{k}, []*ecmul.Point{p})
		if err != nil {
			t.Fatal(err)
		}
		if valid := fzOnCurve(c, p.X, p.Y); valid != (res[0].Err == nil) {
			t.Fatalf("%s %s %q: point valid: %v, computed: %v (%v)", c.Name(), fm, line, valid, res[0].Err == nil, res[0].Err)
		}
	})
}

// fzSpell writes v in hex as a user might, driven by style: case, a 0x or
// 0X prefix, leading zeros, never longer than limit characters.
func fzSpell(v *big.Int, style uint32, limit int) string {
	s := v.Text(16)
	switch style & 3 {
	case 1:
		s = strings.ToUpper(s)
	case 2:
		b := []byte(s)
		for i := range b {
			if (style>>(i%16))&1 == 1 {
				b[i] = bytes.ToUpper(b[i : i+1])[0]
			}
		}
		s = string(b)
	}
	prefix := []string{"", "0x", "0X", ""}[style>>2&3]
	zeros := int(style >> 4 & 0x3ff)
	zeros = max(0, min(zeros, limit-len(prefix)-len(s)))
	return prefix + strings.Repeat("0", zeros) + s
}

// fzFormat writes the item (k, p) as a line of the format, spelled by style.
func fzFormat(c *curves.Curve, fm Format, k *big.Int, p *curves.Point, style uint32) string {
	seps := []string{" ", "\t", "  ", " \t "}
	sep := func(i uint) string { return seps[style>>(16+2*i)&3] }
	ks := fzSpell(k, style, MaxScalarBits)
	switch fm {
	case SEC1:
		enc := c.EncodeSEC1(p, style>>22&1 == 1)
		ps := hex.EncodeToString(enc)
		if style>>23&1 == 1 {
			ps = strings.ToUpper(ps)
		}
		return sep(0) + ks + sep(1) + ps + sep(2)
	case JSONL:
		xs := fzSpell(p.X, style>>1, 4*c.ByteLen())
		ys := fzSpell(p.Y, style>>2, 4*c.ByteLen())
		keys := []string{`"scalar":"` + ks + `"`, `"x":"` + xs + `"`, `"y":"` + ys + `"`}
		r := int(style>>24) % 3
		keys = append(keys[r:], keys[:r]...)
		return sep(0) + "{" + strings.Join(keys, ","+sep(3)) + "}"
	}
	xs := fzSpell(p.X, style>>1, 4*c.ByteLen())
	ys := fzSpell(p.Y, style>>2, 4*c.ByteLen())
	return sep(0) + ks + sep(1) + xs + sep(2) + ys + sep(3)
}

// FuzzParseLineRoundTrip writes a valid item (a point s·G, a scalar of up
// to 512 bits) as a line of every format, spelled in the ways the help
// allows, and checks that the parser reads it back, that mul answers it with
// the reference result, and that mul's own output, written back as the
// point of a new hex line with scalar 1, reads as the same point.
func FuzzParseLineRoundTrip(f *testing.F) {
	f.Add(uint8(0), uint8(0), uint32(0), []byte{1}, []byte{2})
	f.Fuzz(func(t *testing.T, curve, format uint8, style uint32, sb, kb []byte) {
		all := curves.All()
		c := all[int(curve)%len(all)]
		fm := fzFormats[int(format)%len(fzFormats)]
		if len(kb) > 64 {
			kb = kb[:64]
		}
		k := new(big.Int).SetBytes(kb)
		s := new(big.Int).SetBytes(sb)
		if s.Mod(s, c.N()).Sign() == 0 {
			s.SetInt64(1)
		}
		x, y, ok, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), s)
		if err != nil || !ok {
			t.Fatal(err)
		}
		p := &curves.Point{X: x, Y: y}
		line := fzFormat(c, fm, k, p, style)
		if len(line) > MaxLine {
			t.Fatalf("line of %d bytes", len(line))
		}
		gp, gk, err := fzParse(c, fm, strings.TrimSpace(line))
		if err != nil {
			t.Fatalf("%s %s %q: %v", c.Name(), fm, line, err)
		}
		if gk.Cmp(k) != 0 || !(*curves.Point)(gp).Equal(p) {
			t.Fatalf("%s %s %q: read (%x, %v), wrote (%x, %v)", c.Name(), fm, line, gk, gp, k, p)
		}

		var out bytes.Buffer
		failed, err := fzStream(fzEngines()[c], fm, strings.NewReader(line+"\n"), &out, 1)
		if err != nil || failed != 0 {
			t.Fatalf("%s %s %q: failed=%d err=%v out=%q", c.Name(), fm, line, failed, err, out.String())
		}
		wx, wy, ok, err := c.ReferenceScalarMult(x, y, k)
		if err != nil {
			t.Fatal(err)
		}
		want := "infinity"
		pad := func(v *big.Int) string { return hex.EncodeToString(v.FillBytes(make([]byte, c.ByteLen()))) }
		if ok {
			switch fm {
			case SEC1:
				want = "04" + pad(wx) + pad(wy)
			case JSONL:
				want = `{"x":"` + pad(wx) + `","y":"` + pad(wy) + `"}`
			default:
				want = pad(wx) + " " + pad(wy)
			}
		} else if fm == JSONL {
			want = `{"infinity":true}`
		}
		if got := strings.TrimSuffix(out.String(), "\n"); got != want {
			t.Fatalf("%s %s %q: mul wrote %q, want %q", c.Name(), fm, line, got, want)
		}
		if !ok {
			return
		}
		// mul's hex output is valid hex input.
		again := "1 " + pad(wx) + " " + pad(wy)
		out.Reset()
		if failed, err := fzStream(fzEngines()[c], Hex, strings.NewReader(again), &out, 1); err != nil || failed != 0 {
			t.Fatalf("%s %q: failed=%d err=%v", c.Name(), again, failed, err)
		}
		if got := strings.TrimSuffix(out.String(), "\n"); got != pad(wx)+" "+pad(wy) {
			t.Fatalf("%s: 1·(%s) = %q", c.Name(), again, got)
		}
	})
}

// fzLines splits a stream the way the help describes it: a UTF-8
// byte-order mark at the start is skipped, lines end at \n (the \r of a
// \r\n ending, or of several, is not counted in the line's length), a line
// longer than MaxLine is one item answered with an error, a blank line is
// no item. nums are the items' line numbers, from 1, blank lines counted.
func fzLines(in []byte) (lines []string, tooLong []bool, nums []int) {
	in = bytes.TrimPrefix(in, []byte("\xef\xbb\xbf"))
	for num := 1; len(in) > 0; num++ {
		var l []byte
		if i := bytes.IndexByte(in, '\n'); i >= 0 {
			l, in = in[:i], in[i+1:]
		} else {
			l, in = in, nil
		}
		content := bytes.TrimRight(l, "\r")
		switch {
		case len(content) > MaxLine:
			lines, tooLong, nums = append(lines, ""), append(tooLong, true), append(nums, num)
		case len(bytes.TrimSpace(l)) > 0:
			lines, tooLong, nums = append(lines, string(bytes.TrimSpace(l))), append(tooLong, false), append(nums, num)
		}
	}
	return lines, tooLong, nums
}

// FuzzMulStream runs arbitrary input through mul's stream in every format,
// chunk size 1 to 4, on the cpu backend. Every item gets exactly one output
// line, in input order: an error line naming its input line for a line too
// long or one the parser rejects, and otherwise what the engine gives for
// the parsed item (a result in the format, infinity, or an error naming its
// line); the count of failed items is the count of error lines; nothing
// fails as a whole.
func FuzzMulStream(f *testing.F) {
	f.Add(uint8(0), uint8(0), []byte("2 b70e0cbd6bb4bf7f321390b94a03c1d356c21122343280d6115c1d21 bd376388b5f723fb4c22dfe6cd4375a05a07476444d5819985007e34\n\n5 1 2\r\n"))
	f.Add(uint8(2), uint8(1), []byte("\xef\xbb\xbf{\"scalar\":\"5\",\"x\":\"1\",\"y\":\"2\"}\n\n\nzz\n"))
	f.Fuzz(func(t *testing.T, format, chunk uint8, in []byte) {
		c := curves.P224()
		fm := fzFormats[int(format)%len(fzFormats)]
		eng := fzEngines()[c]
		var out bytes.Buffer
		failed, err := fzStream(eng, fm, bytes.NewReader(in), &out, 1+int(chunk%4))
		if err != nil {
			t.Fatalf("%s: the stream failed: %v", fm, err)
		}
		lines, tooLong, nums := fzLines(in)
		got := strings.Split(out.String(), "\n")
		if got[len(got)-1] != "" {
			t.Fatalf("%s: output does not end with a newline: %q", fm, out.String())
		}
		got = got[:len(got)-1]
		if len(got) != len(lines) {
			t.Fatalf("%s: %d items, %d output lines\n%q\n%q", fm, len(lines), len(got), in, out.String())
		}
		errLines := 0
		isErr := func(s string) bool {
			if fm == JSONL {
				var m map[string]string
				return json.Unmarshal([]byte(s), &m) == nil && len(m) == 1 && m["error"] != ""
			}
			return strings.HasPrefix(s, "error: ")
		}
		for i, g := range got {
			if isErr(g) {
				errLines++
			}
			if isErr(g) && !strings.Contains(g, fmt.Sprintf("line %d: ", nums[i])) {
				t.Fatalf("%s: the error of input line %d does not name it: %q", fm, nums[i], g)
			}
			if tooLong[i] {
				if !isErr(g) {
					t.Fatalf("%s: line %d is too long, answered %q", fm, i, g)
				}
				continue
			}
			p, k, perr := fzParse(c, fm, lines[i])
			if perr != nil {
				if !isErr(g) {
					t.Fatalf("%s: line %d %q is invalid (%v), answered %q", fm, i, lines[i], perr, g)
				}
				continue
			}
			var alone bytes.Buffer
			if _, err := fzStream(eng, fm, strings.NewReader(lines[i]), &alone, 1); err != nil {
				t.Fatal(err)
			}
			// alone, the item is on line 1
			want := alone.String()
			if isErr(strings.TrimSuffix(want, "\n")) {
				want = strings.Replace(want, "line 1: ", fmt.Sprintf("line %d: ", nums[i]), 1)
			}
			if g+"\n" != want {
				t.Fatalf("%s: line %d %q answered %q in the stream, %q alone", fm, i, lines[i], g, want)
			}
			if !isErr(g) && !fzOnCurve(c, p.X, p.Y) {
				t.Fatalf("%s: line %d %q: computed with an invalid point", fm, i, lines[i])
			}
			_ = k
		}
		if failed != errLines {
			t.Fatalf("%s: %d failed items reported, %d error lines", fm, failed, errLines)
		}
	})
}

// lazyReader yields size bytes of fill without holding them, then tail.
type lazyReader struct {
	fill byte
	size int64
	tail string
	done int64
}

func (r *lazyReader) Read(p []byte) (int, error) {
	if r.done < r.size {
		n := int(min(int64(len(p)), r.size-r.done))
		for i := range p[:n] {
			p[i] = r.fill
		}
		r.done += int64(n)
		return n, nil
	}
	if r.tail == "" {
		return 0, io.EOF
	}
	n := copy(p, r.tail)
	r.tail = r.tail[n:]
	return n, nil
}

// TestMulHugeLineBoundedMemory sends a 100 MB line, then a valid one,
// through mul: the long line is answered with an error, the valid one with
// its result, and what mul allocates stays far below the line's size.
func TestMulHugeLineBoundedMemory(t *testing.T) {
	c := curves.P224()
	g := fmt.Sprintf("2 %x %x\n", c.Gx(), c.Gy())
	x, y, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), big.NewInt(2))
	if err != nil {
		t.Fatal(err)
	}
	eng := cpuEngine(t, c)
	const size = 100 << 20
	for _, fill := range []byte{'f', ' '} {
		r := &lazyReader{fill: fill, size: size, tail: "\n" + g}
		var out, errOut bytes.Buffer
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		sum, err := Mul(context.Background(), eng, r, &out, Options{ErrOut: &errOut})
		runtime.ReadMemStats(&after)
		if err != nil || sum.Failed != 1 {
			t.Fatalf("fill %q: %v, %d failed, stderr %q", fill, err, sum.Failed, errOut.String())
		}
		want := fmt.Sprintf("error: line 1: longer than %d bytes\n%056x %056x\n", MaxLine, x, y)
		if out.String() != want {
			t.Fatalf("fill %q: output %q, want %q", fill, out.String(), want)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
			t.Fatalf("fill %q: mul allocated %d MB for a %d MB line", fill, alloc>>20, size>>20)
		} else {
			t.Logf("fill %q: %d MB line, %.1f MB allocated", fill, size>>20, float64(alloc)/(1<<20))
		}
	}
}

// TestMulHugeChunkBoundedMemory: Options.Chunk is a bound, not a size to
// allocate up front; the largest int gives the same output as the default,
// in bounded memory.
func TestMulHugeChunkBoundedMemory(t *testing.T) {
	c := curves.P224()
	eng := cpuEngine(t, c)
	in := fmt.Sprintf("2 %x %x\n5 1 2\n", c.Gx(), c.Gy())
	var want bytes.Buffer
	if sum, err := Mul(context.Background(), eng, strings.NewReader(in), &want, Options{}); err != nil || sum.Failed != 1 {
		t.Fatalf("%v, %d failed", err, sum.Failed)
	}
	for _, chunk := range []int{1000000000, 1099511627776, int(^uint(0) >> 1)} {
		var out bytes.Buffer
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		sum, err := Mul(context.Background(), eng, strings.NewReader(in), &out, Options{Chunk: chunk})
		runtime.ReadMemStats(&after)
		if err != nil || sum.Failed != 1 || out.String() != want.String() {
			t.Fatalf("chunk %d: %v, %d failed, output %q, want %q", chunk, err, sum.Failed, out.String(), want.String())
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
			t.Fatalf("chunk %d: %d MB allocated for two lines", chunk, alloc>>20)
		}
	}
}

// cpuEngine returns an Engine on the cpu backend, closed at the end of the test.
func cpuEngine(t *testing.T, c *curves.Curve) *ecmul.Engine {
	t.Helper()
	eng, err := ecmul.New(pubCurve(c), ecmul.Options{Backend: ecmul.CPU})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// pubCurve is c as the library names it.
func pubCurve(c *curves.Curve) ecmul.Curve {
	pc, err := ecmul.ParseCurve(c.Name())
	if err != nil {
		panic(err)
	}
	return pc
}
