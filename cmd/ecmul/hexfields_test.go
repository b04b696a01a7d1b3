package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/internal/curves"
)

// The hex fields of every command that reads hex, checked against the
// grammar of docs/cli.md as written here, apart from the parsers: an
// optional 0x or 0X, then at least one digit 0-9, a-f or A-F, and nothing
// else (no sign, no blank, no other character); a scalar has at most 512
// digits and 512 bits, a coordinate at most 4·L characters (0x included)
// and a value below p, a SEC1 point and a digest an even number of digits,
// a private key any number of digits and a value in [1, n − 1].

// hexTarget is a command and line format that reads hex fields.
type hexTarget struct {
	args   []string // the command, and its format
	fields []string // the line's fields, in order, by kind
}

var hexTargets = []hexTarget{
	{[]string{"mul", "--format", "hex"}, []string{"scalar", "x", "y"}},
	{[]string{"mul", "--format", "sec1"}, []string{"scalar", "point"}},
	{[]string{"mul", "--format", "jsonl"}, []string{"scalar", "x", "y"}},
	{[]string{"base", "--format", "hex"}, []string{"scalar"}},
	{[]string{"base", "--format", "sec1"}, []string{"scalar"}},
	{[]string{"base", "--format", "jsonl"}, []string{"scalar"}},
	{[]string{"ecdsa-verify"}, []string{"digest", "r", "s", "qx", "qy"}},
	{[]string{"ecdsa-sign"}, []string{"digest", "key"}},
	{[]string{"ecdsa-sign", "--format", "jsonl"}, []string{"digest", "key"}},
}

// format is the line format of mul, base or ecdsa-sign, "" for
// ecdsa-verify and ecdsa-sign's hex lines.
func (h hexTarget) format() string {
	if len(h.args) < 3 {
		return ""
	}
	return h.args[2]
}

func (h hexTarget) jsonl() bool { return h.format() == "jsonl" }

// line writes an item of h with the given field texts: separated by one
// space, or as the values of a JSON object.
func (h hexTarget) line(texts []string) string {
	if !h.jsonl() {
		return strings.Join(texts, " ")
	}
	var b strings.Builder
	for i, t := range texts {
		v, _ := json.Marshal(t)
		fmt.Fprintf(&b, `,%q:%s`, h.fields[i], v)
	}
	return "{" + b.String()[1:] + "}"
}

// hexFixture is a valid item of every target on one curve, as canonical
// field texts by kind.
func hexFixture(c *curves.Curve) map[string]string {
	rng := newRNG(40)
	d := randScalar(rng, c)
	q := mustBaseMult(c, d)
	digest := sha256.Sum256([]byte(c.Name()))
	var r, s *big.Int
	for r == nil {
		r, s = signECDSA(c, d, randScalar(rng, c), digest[:])
	}
	p := mustBaseMult(c, randScalar(rng, c))
	return map[string]string{
		"scalar": fmt.Sprintf("%x", randScalar(rng, c)),
		"x":      fieldHex(c, p.X), "y": fieldHex(c, p.Y),
		"point":  "04" + fieldHex(c, p.X) + fieldHex(c, p.Y),
		"digest": fmt.Sprintf("%x", digest), "r": fmt.Sprintf("%x", r), "s": fmt.Sprintf("%x", s),
		"qx": fieldHex(c, q.X), "qy": fieldHex(c, q.Y),
		"key": fmt.Sprintf("%x", d),
	}
}

// refHex reads a field by the grammar: an optional 0x or 0X, then one or
// more hex digits and nothing else. It returns the value and the number
// of digits; ok is false for any other text.
func refHex(s string) (v *big.Int, digits int, ok bool) {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	if s == "" {
		return nil, 0, false
	}
	v = new(big.Int)
	for i := 0; i < len(s); i++ {
		var d byte
		switch ch := s[i]; {
		case '0' <= ch && ch <= '9':
			d = ch - '0'
		case 'a' <= ch && ch <= 'f':
			d = ch - 'a' + 10
		case 'A' <= ch && ch <= 'F':
			d = ch - 'A' + 10
		default:
			return nil, 0, false
		}
		v.Lsh(v, 4).Or(v, big.NewInt(int64(d)))
	}
	return v, len(s), true
}

// refOnCurve checks y² = x³ + a·x + b and (x, y) ≠ (0, 0) from the
// definitions, for coordinates below p.
func refOnCurve(c *curves.Curve, x, y *big.Int) bool {
	if x.Sign() == 0 && y.Sign() == 0 {
		return false
	}
	l := new(big.Int).Exp(y, big.NewInt(2), c.P())
	r := new(big.Int).Exp(x, big.NewInt(3), nil)
	r.Add(r, new(big.Int).Mul(big.NewInt(c.A()), x)).Add(r, c.B()).Mod(r, c.P())
	return l.Cmp(r) == 0
}

// refAnswer is the answer the grammar and the references give to a line
// of h with the given field texts: the output line, or ok false for an
// error line.
func refAnswer(c *curves.Curve, h hexTarget, texts []string) (answer string, ok bool) {
	line := h.line(texts)
	if len(line) > stream.MaxLine {
		return "", false
	}
	vals := texts
	if h.jsonl() {
		vals = make([]string, len(texts))
		for i, t := range texts { // what JSON makes of the text (invalid UTF-8 becomes U+FFFD)
			b, _ := json.Marshal(t)
			_ = json.Unmarshal(b, &vals[i])
		}
	} else {
		// a line's ends are trimmed of white space (the reading of
		// lines, FuzzMulStream's), its fields split at spaces and tabs
		vals = strings.FieldsFunc(strings.TrimSpace(line), func(r rune) bool { return r == ' ' || r == '\t' })
		if len(vals) != len(h.fields) {
			return "", false
		}
	}
	L, p, n := c.ByteLen(), c.P(), c.N()
	v := map[string]*big.Int{}
	var digest, point []byte
	for i, kind := range h.fields {
		val, digits, ok := refHex(vals[i])
		if !ok {
			return "", false
		}
		switch kind {
		case "scalar":
			if digits > 512 || val.BitLen() > 512 {
				return "", false
			}
		case "x", "y", "qx", "qy":
			if len(vals[i]) > 4*L || val.Cmp(p) >= 0 {
				return "", false
			}
		case "key":
			if val.Sign() == 0 || val.Cmp(n) >= 0 {
				return "", false
			}
		case "point", "digest":
			if digits%2 == 1 || kind == "point" && digits > 2*(1+2*L) {
				return "", false
			}
			b := val.FillBytes(make([]byte, digits/2))
			if kind == "point" {
				point = b
			} else {
				digest = b
			}
		}
		v[kind] = val
	}
	if h.args[0] == "ecdsa-sign" {
		if digestHash(digest) == 0 {
			return "", false
		}
		r, s := textbookSign(c, v["key"], digest)
		if h.jsonl() {
			return fmt.Sprintf(`{"r":"%s","s":"%s"}`, fieldHex(c, r), fieldHex(c, s)), true
		}
		return fieldHex(c, r) + " " + fieldHex(c, s), true
	}
	if h.args[0] == "ecdsa-verify" {
		if !refOnCurve(c, v["qx"], v["qy"]) {
			return "", false
		}
		it := ecdsaItem{digest: digest, r: v["r"], s: v["s"], q: &curves.Point{X: v["qx"], Y: v["qy"]}}
		return textbookVerify(c, &it).String(), true
	}
	x, y := c.Gx(), c.Gy()
	switch {
	case point != nil:
		pt, err := c.DecodeSEC1(point)
		if err != nil {
			return "", false
		}
		x, y = pt.X, pt.Y
	case v["x"] != nil:
		x, y = v["x"], v["y"]
		if !refOnCurve(c, x, y) {
			return "", false
		}
	}
	k := new(big.Int).Mod(v["scalar"], n)
	rx, ry, finite, err := c.ReferenceScalarMult(x, y, k)
	if err != nil {
		panic(err)
	}
	switch {
	case !finite && h.jsonl():
		return `{"infinity":true}`, true
	case !finite:
		return "infinity", true
	case h.jsonl():
		return fmt.Sprintf(`{"x":"%s","y":"%s"}`, fieldHex(c, rx), fieldHex(c, ry)), true
	case h.format() == "sec1":
		return "04" + fieldHex(c, rx) + fieldHex(c, ry), true
	}
	return fieldHex(c, rx) + " " + fieldHex(c, ry), true
}

// runHexLines runs h on curve c over lines (the first at line 1) and
// returns one answer per line.
func runHexLines(t *testing.T, c *curves.Curve, h hexTarget, lines []string) []string {
	t.Helper()
	args := append(append([]string{}, h.args...), "--curve", c.Name(), "--backend", "cpu")
	_, out, errOut := cli(t, strings.Join(lines, "\n")+"\n", args...)
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, got, len(lines), "%q: %s", args, errOut)
	return got
}

// errorOf returns the reason of an error line answering line num, "" for
// an answer that is no error line or names another line.
func errorOf(h hexTarget, answer string, num int) string {
	prefix := fmt.Sprintf("line %d: ", num)
	if h.jsonl() {
		var e struct{ Error string }
		if json.Unmarshal([]byte(answer), &e) != nil || !strings.HasPrefix(e.Error, prefix) {
			return ""
		}
		return strings.TrimPrefix(e.Error, prefix)
	}
	if !strings.HasPrefix(answer, "error: "+prefix) {
		return ""
	}
	return strings.TrimPrefix(answer, "error: "+prefix)
}

// The outcomes of a spelling in TestHexFieldSpellings.
const (
	spellSame    = iota // the answer to the canonical spelling
	spellError          // an error line that names the field (or the field count)
	spellInvalid        // ecdsa-verify's "invalid": a value past 2^(8L)
)

// hexSpellings are spellings of a field whose canonical text is v, with
// their outcomes, for every kind of field (L the field's byte length).
func hexSpellings(kind, v string, L int) map[string]int {
	up := strings.ToUpper(v)
	m := map[string]int{
		"0x" + v: spellSame, "0X" + up: spellSame, up: spellSame, up[:3] + v[3:]: spellSame,
		"0x-" + v: spellError, "0x+" + v: spellError, "0X-" + v: spellError, "0X+" + v: spellError,
		"-" + v: spellError, "+" + v: spellError, "-0x" + v: spellError, "+0x" + v: spellError,
		"0x0x" + v: spellError, "x" + v: spellError, "00x" + v: spellError, "0x": spellError, "0X": spellError,
		v + "g": spellError, v[:1] + "_" + v[1:]: spellError, v[:2] + " " + v[2:]: spellError, v[:2] + "\t" + v[2:]: spellError,
		v + "é": spellError, "é" + v: spellError, "\uff10x" + v: spellError, "٣" + v: spellError, "0x\u200b" + v: spellError,
		v + "\x00": spellError, v + "\xff": spellError, v[:2] + "\u00a0" + v[2:]: spellError, v[:2] + "\v" + v[2:]: spellError,
		v[:2] + "\f" + v[2:]: spellError, v[:2] + "\u0085" + v[2:]: spellError,
	}
	switch kind {
	case "scalar":
		m["00"+v] = spellSame
		m["0x"+strings.Repeat("0", 512-len(v))+v] = spellSame
		m[strings.Repeat("0", 513-len(v))+v] = spellError // 513 digits
		m["1"+strings.Repeat("0", 128)] = spellError      // 513 bits
	case "x", "y", "qx", "qy":
		m[strings.Repeat("0", 4*L-len(v))+v] = spellSame
		m["0x"+strings.Repeat("0", 4*L-2-len(v))+v] = spellSame
		m[strings.Repeat("0", 4*L+1-len(v))+v] = spellError // 4L+1 characters
		m["1"+strings.Repeat("0", 2*L)] = spellError        // 2^(8L): not below p
	case "point":
		m[v[1:]] = spellError        // odd
		m["00"+v] = spellError       // one byte too many for SEC1
		m[v+"00"] = spellError       // the same at the end
		m["0x0"+v[1:]] = spellSame   // 04 written 04
		m[v[:len(v)-1]] = spellError // odd, the last digit cut
	case "digest":
		m[v[1:]] = spellError // odd
		m["0"+v] = spellError
	case "key":
		m["0"+v] = spellSame // odd: a key has any number of digits
		m["0x"+strings.Repeat("0", 300)+v] = spellSame
		m["0"] = spellError                            // outside [1, n − 1]
		m["1"+strings.Repeat("0", 2*L)] = spellError   // 2^(8L): n or more
		m["0x1"+strings.Repeat("0", 2*L)] = spellError // the same with 0x
	case "r", "s":
		m["00"+v] = spellSame
		m["0"+v] = spellSame
		m["1"+strings.Repeat("0", 2*L)] = spellInvalid // 2^(8L)
		m["0x1"+strings.Repeat("0", 2*L)] = spellInvalid
	}
	return m
}

// TestHexFieldSpellings: every hex field of mul, base (each line format),
// ecdsa-verify and ecdsa-sign (each line format), on every curve, written with a sign after 0x or
// before it, a blank, an empty or doubled prefix, a non-hex or non-ASCII
// character, an odd or excessive length, gets an error line that names
// the field, or the field count when a blank splits it (for r and s,
// exactly "r: not hex: TEXT"); spellings the grammar allows (either
// case, 0x or 0X, leading zeros) get the canonical spelling's answer.
// Every answer is also what the grammar and the references give.
func TestHexFieldSpellings(t *testing.T) {
	for _, c := range curves.All() {
		fx := hexFixture(c)
		for _, h := range hexTargets {
			canonical := make([]string, len(h.fields))
			for i, kind := range h.fields {
				canonical[i] = fx[kind]
			}
			want, ok := refAnswer(c, h, canonical)
			require.True(t, ok, "%s %q: the fixture is an item", c.Name(), h.args)
			if h.args[0] == "ecdsa-verify" {
				require.Equal(t, "valid", want, c.Name())
			}
			for i, kind := range h.fields {
				lines := []string{h.line(canonical)}
				var spellings []string
				var outcomes []int
				for s, o := range hexSpellings(kind, canonical[i], c.ByteLen()) {
					texts := append([]string{}, canonical...)
					texts[i] = s
					lines = append(lines, h.line(texts))
					spellings, outcomes = append(spellings, s), append(outcomes, o)
				}
				got := runHexLines(t, c, h, lines)
				require.Equal(t, want, got[0], "%s %q: the canonical line", c.Name(), h.args)
				for j, s := range spellings {
					num, answer := j+2, got[j+1]
					texts := append([]string{}, canonical...)
					texts[i] = s
					ref, refOK := refAnswer(c, h, texts)
					reason := errorOf(h, answer, num)
					where := fmt.Sprintf("%s %q, %s spelt %q: %q", c.Name(), h.args, kind, s, answer)
					switch outcomes[j] {
					case spellSame:
						require.Equal(t, want, answer, where)
					case spellInvalid:
						require.Equal(t, "invalid", answer, where)
					case spellError:
						require.NotEmpty(t, reason, where)
						split := !h.jsonl() && strings.ContainsAny(s, " \t")
						switch {
						case split:
							require.Contains(t, reason, "want ", where)
						case kind == "r" || kind == "s":
							require.Equal(t, fmt.Sprintf("%s: not hex: %q", kind, s), reason, where)
						case kind == "scalar":
							require.True(t, strings.HasPrefix(reason, "scalar "), where)
						default:
							require.True(t, strings.HasPrefix(reason, kind+": "), where)
						}
					}
					if refOK {
						require.Equal(t, ref, answer, "%s: the grammar and the references", where)
					} else {
						require.NotEmpty(t, reason, "%s: the grammar refuses it", where)
					}
				}
			}
		}
	}
}

// FuzzHexFields puts any text in place of one field of a valid item of
// mul, base (each line format), ecdsa-verify or ecdsa-sign, on any curve, and checks
// the command's answer against the grammar and the references: an error
// line exactly when the grammar or the item's validity refuses the line,
// else the references' result.
func FuzzHexFields(f *testing.F) {
	fx := hexFixture(curves.P256())
	for target, h := range hexTargets {
		for field, kind := range h.fields {
			v := fx[kind]
			for _, s := range []string{v, "0x-" + v, "0x+" + v, "-" + v, "0X" + v, "0x", "0x0x" + v} {
				f.Add(uint8(1), uint8(target), uint8(field), s)
			}
		}
	}
	f.Add(uint8(0), uint8(3), uint8(0), " \u00a0")
	fixtures := map[*curves.Curve]map[string]string{}
	for _, c := range curves.All() {
		fixtures[c] = hexFixture(c)
	}
	f.Fuzz(func(t *testing.T, curve, target, field uint8, text string) {
		if strings.ContainsAny(text, "\r\n") {
			return // the reading of lines is FuzzMulStream's
		}
		all := curves.All()
		c := all[int(curve)%len(all)]
		h := hexTargets[int(target)%len(hexTargets)]
		i := int(field) % len(h.fields)
		canonical := make([]string, len(h.fields))
		for j, kind := range h.fields {
			canonical[j] = fixtures[c][kind]
		}
		texts := append([]string{}, canonical...)
		texts[i] = text
		if strings.TrimSpace(h.line(texts)) == "" {
			return // a blank line, skipped: the reading of lines again
		}
		// the canonical item first, so that the text is not the input's start
		got := runHexLines(t, c, h, []string{h.line(canonical), h.line(texts)})[1:]
		want, ok := refAnswer(c, h, texts)
		if reason := errorOf(h, got[0], 2); ok != (reason == "") || ok && got[0] != want {
			t.Fatalf("%s %q, %s = %q: answered %q, want %q (an item: %v)", c.Name(), h.args, h.fields[i], text, got[0], want, ok)
		}
	})
}

// TestHexDecodedByHexcode: no source file of the packages that read the
// commands' input (this one, package stream, package curves, the root
// package, ecdsa and diag) decodes hex but through package hexcode: no
// math/big SetString in base 16 or 0, no encoding/hex decoding, no
// strconv or fmt scanning of hex. math/big takes a sign, encoding/hex
// branches on every digit.
func TestHexDecodedByHexcode(t *testing.T) {
	root := filepath.Join(sourceDir(), "..", "..")
	dirs := []string{"cmd/ecmul", "internal/engine", "internal/curves", ".", "ecdsa", "diag"}
	files := 0
	for _, dir := range dirs {
		walkRoot := filepath.Join(root, dir)
		err := filepath.WalkDir(walkRoot, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != walkRoot && (dir == "." || d.Name() == "testdata") {
					return filepath.SkipDir // the root package alone, not the module
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			files++
			for _, call := range hexDecodingCalls(t, path) {
				t.Errorf("%s decodes hex outside package hexcode", call)
			}
			return nil
		})
		require.NoError(t, err)
	}
	require.Greater(t, files, 20, "the sources were found")
}

// hexDecodingCalls lists the calls of a Go file that decode hex by other
// means than package hexcode.
func hexDecodingCalls(t *testing.T, path string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, 0)
	require.NoError(t, err)
	imports := map[string]string{} // local name → import path
	for _, im := range f.Imports {
		p := strings.Trim(im.Path.Value, `"`)
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = p
	}
	isInt := func(e ast.Expr, vals ...string) bool {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.INT {
			return false
		}
		for _, v := range vals {
			if lit.Value == v {
				return true
			}
		}
		return false
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg := ""
		if id, ok := sel.X.(*ast.Ident); ok {
			pkg = imports[id.Name]
		}
		name := sel.Sel.Name
		bad := false
		switch {
		case pkg == "encoding/hex":
			bad = strings.HasPrefix(name, "Decode") || name == "NewDecoder"
		case pkg == "strconv":
			bad = (name == "ParseInt" || name == "ParseUint") && len(call.Args) > 1 && isInt(call.Args[1], "0", "16")
		case pkg == "fmt":
			bad = strings.HasPrefix(name, "Sscan") || strings.HasPrefix(name, "Fscan")
		case pkg == "" && name == "SetString": // a method: math/big's
			bad = len(call.Args) == 2 && isInt(call.Args[1], "0", "16")
		}
		if bad {
			found = append(found, fset.Position(call.Pos()).String()+": "+name)
		}
		return true
	})
	return found
}
