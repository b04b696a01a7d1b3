package main

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
	"github.com/rnsec/ecmul/internal/kernels"
)

// cli runs the command line args with stdin and returns the exit status
// and both outputs.
func cli(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func newRNG(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x853c49e6748fea9b))
}

func randBits(rng *rand.Rand, bits int) *big.Int {
	b := make([]byte, (bits+7)/8)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	k := new(big.Int).SetBytes(b)
	return k.Rsh(k, uint(8*len(b)-bits))
}

// randScalar returns a scalar in [1, n).
func randScalar(rng *rand.Rand, c *curves.Curve) *big.Int {
	k := new(big.Int).Mod(randBits(rng, c.N().BitLen()+64), new(big.Int).Sub(c.N(), big.NewInt(1)))
	return k.Add(k, big.NewInt(1))
}

func randPoint(t *testing.T, rng *rand.Rand, c *curves.Curve) *curves.Point {
	t.Helper()
	x, y, ok, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), randScalar(rng, c))
	require.NoError(t, err)
	require.True(t, ok)
	return &curves.Point{X: x, Y: y}
}

// item is one input line and the output line it must give.
type item struct {
	in, out string
}

// fieldHex writes a field element the way the output must: lowercase,
// exactly 2·ByteLen digits.
func fieldHex(c *curves.Curve, v *big.Int) string {
	return hex.EncodeToString(v.FillBytes(make([]byte, c.ByteLen())))
}

// expect computes the output line for k·p with the reference oracle.
func expect(t *testing.T, c *curves.Curve, p *curves.Point, k *big.Int) string {
	t.Helper()
	x, y, ok, err := c.ReferenceScalarMult(p.X, p.Y, k)
	require.NoError(t, err)
	if !ok {
		return "infinity"
	}
	return fieldHex(c, x) + " " + fieldHex(c, y)
}

// spell writes v in hexadecimal the way a user might: either case, with or
// without a 0x or 0X prefix, sometimes with leading zeros.
func spell(rng *rand.Rand, v *big.Int) string {
	s := v.Text(16)
	if rng.IntN(3) == 0 {
		s = strings.Repeat("0", 1+rng.IntN(6)) + s
	}
	b := []byte(s)
	switch rng.IntN(3) {
	case 0:
		b = bytes.ToUpper(b)
	case 1:
		for i := range b {
			if rng.IntN(2) == 0 {
				b[i] = bytes.ToUpper(b[i : i+1])[0]
			}
		}
	}
	switch rng.IntN(4) {
	case 0:
		return "0x" + string(b)
	case 1:
		return "0X" + string(b)
	}
	return string(b)
}

// separators between fields: any run of spaces and tabs.
var separators = []string{" ", "  ", "\t", " \t "}

// validItems returns count valid lines for curve c, every fifth scalar at
// least n and some of them multiples of n.
func validItems(t *testing.T, rng *rand.Rand, c *curves.Curve, count int) []item {
	t.Helper()
	items := make([]item, count)
	for i := range items {
		p := randPoint(t, rng, c)
		var k *big.Int
		switch i % 10 {
		case 3:
			k = new(big.Int).Mul(c.N(), big.NewInt(int64(1+rng.IntN(1000)))) // → infinity
		case 5:
			k = new(big.Int) // 0 → infinity
		case 7:
			k = randBits(rng, 257+rng.IntN(256))
			k.Add(k, c.N())
		case 9:
			k = new(big.Int).Sub(c.N(), big.NewInt(1))
		default:
			k = randScalar(rng, c)
		}
		sep := func() string { return separators[rng.IntN(len(separators))] }
		in := spell(rng, k) + sep() + spell(rng, p.X) + sep() + spell(rng, p.Y)
		if rng.IntN(5) == 0 {
			in = sep() + in + sep() // leading and trailing blanks
		}
		items[i] = item{in: in, out: expect(t, c, p, k)}
	}
	return items
}

// input joins the lines of items, with blank lines between some of them
// and a final newline.
func input(rng *rand.Rand, items []item) string {
	var b strings.Builder
	for _, it := range items {
		if rng.IntN(4) == 0 {
			b.WriteString([]string{"\n", "   \n", "\t\n", "\r\n"}[rng.IntN(4)])
		}
		b.WriteString(it.in)
		if rng.IntN(6) == 0 {
			b.WriteString("\r\n")
		} else {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func output(items []item) string {
	var b strings.Builder
	for _, it := range items {
		b.WriteString(it.out + "\n")
	}
	return b.String()
}

// mulBackends are the backends mul is tested on, with how many items each
// gets.
func mulBackends() []struct {
	args  []string
	items int
} {
	type backend = struct {
		args  []string
		items int
	}
	bs := []backend{
		{[]string{"--backend", "cpu"}, 60},
		{[]string{"--backend", "rns-cpu"}, 16},
		{[]string{"--backend", "rns-cpu", "--ext", "kawamura"}, 8},
	}
	if testing.Short() {
		for i := range bs {
			bs[i].items = max(4, bs[i].items/4)
		}
	}
	return bs
}

func curveFlag(c *curves.Curve) string {
	return map[string]string{"P-224": "p224", "P-256": "p256", "secp256k1": "secp256k1"}[c.Name()]
}

func TestMulMatchesReference(t *testing.T) {
	for _, c := range curves.All() {
		for _, b := range mulBackends() {
			t.Run(c.Name()+"/"+strings.Join(b.args, " "), func(t *testing.T) {
				rng := newRNG(uint64(len(b.args)*1000 + c.ByteLen()))
				items := validItems(t, rng, c, b.items)
				args := append([]string{"mul", "--curve", curveFlag(c)}, b.args...)
				code, out, errOut := cli(t, input(rng, items), args...)
				require.Equal(t, exitOK, code, "stderr: %s", errOut)
				require.Empty(t, errOut)
				require.Equal(t, output(items), out)
			})
		}
	}
}

func TestMulOutputFormat(t *testing.T) {
	c := curves.P256()
	// 1·(0, √b): a coordinate with leading zero bytes keeps them.
	small := &curves.Point{X: big.NewInt(0), Y: nil}
	small.Y = new(big.Int).ModSqrt(c.B(), c.P()) // (0, √b) is on P-256
	require.NotNil(t, small.Y)
	in := "1 " + small.X.Text(16) + " " + small.Y.Text(16) + "\n"
	code, out, errOut := cli(t, in, "mul", "--curve", "p256", "--backend", "cpu")
	require.Equal(t, exitOK, code, errOut)
	want := strings.Repeat("0", 64) + " " + fieldHex(c, small.Y) + "\n"
	require.Equal(t, want, out)

	// Every output line of random items: two lowercase hex fields of
	// exactly 2·ByteLen digits, or infinity.
	for _, c := range curves.All() {
		rng := newRNG(3)
		items := validItems(t, rng, c, 40)
		code, out, _ := cli(t, input(rng, items), "mul", "--curve", curveFlag(c), "--backend", "cpu")
		require.Equal(t, exitOK, code)
		re := regexp.MustCompile(fmt.Sprintf(`^(infinity|[0-9a-f]{%d} [0-9a-f]{%d})$`, 2*c.ByteLen(), 2*c.ByteLen()))
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		require.Len(t, lines, len(items))
		for _, l := range lines {
			require.Regexp(t, re, l)
		}
	}
}

// invalidItems are lines mul must answer with an error, for curve c.
func invalidItems(t *testing.T, c *curves.Curve) []item {
	p := randPoint(t, newRNG(11), c)
	x, y := p.X.Text(16), p.Y.Text(16)
	pHex := c.P().Text(16)
	off := new(big.Int).Add(p.Y, big.NewInt(1))
	lines := []string{
		"5 " + x,                  // two fields
		"5 " + x + " " + y + " 7", // four fields
		"zz " + x + " " + y,       // scalar not hex
		"-5 " + x + " " + y,       // negative scalar
		"0x " + x + " " + y,       // prefix without digits
		"1" + strings.Repeat("0", 128) + " " + x + " " + y, // 513-bit scalar
		"5 " + pHex + " " + y,                              // x = p
		"5 " + x + " " + pHex,                              // y = p
		"5 " + x + " " + off.Text(16),                      // not on the curve
		"5 0 0",                                            // (0, 0)
		"5 0x0 0X00",                                       // (0, 0) again
		"5 " + x + "g " + y,                                // x not hex
		"5 " + strings.Repeat("0", 4*c.ByteLen()+1) + " " + y, // x too long
		"5,1,2", // one field
	}
	items := make([]item, len(lines))
	for i, l := range lines {
		items[i] = item{in: l, out: "error: "}
	}
	return items
}

func TestMulInvalidLines(t *testing.T) {
	for _, c := range curves.All() {
		for _, b := range mulBackends() {
			t.Run(c.Name()+"/"+strings.Join(b.args, " "), func(t *testing.T) {
				rng := newRNG(21)
				valid := validItems(t, rng, c, 4)
				bad := invalidItems(t, c)
				// Valid lines first, in the middle and last.
				items := append([]item{valid[0]}, bad[:len(bad)/2]...)
				items = append(items, valid[1], valid[2])
				items = append(items, bad[len(bad)/2:]...)
				items = append(items, valid[3])
				args := append([]string{"mul", "--curve", curveFlag(c)}, b.args...)
				code, out, errOut := cli(t, input(rng, items), args...)
				require.Equal(t, exitFail, code)
				require.Contains(t, errOut, fmt.Sprintf("%d item(s) failed", len(bad)))
				lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				require.Len(t, lines, len(items))
				for i, it := range items {
					if it.out == "error: " {
						require.True(t, strings.HasPrefix(lines[i], "error: "), "line %d %q gave %q", i, it.in, lines[i])
						require.NotContains(t, lines[i], "item ", "the batch index means nothing to the reader")
						continue
					}
					require.Equal(t, it.out, lines[i], "line %d %q", i, it.in)
				}
			})
		}
	}
}

func TestMulErrorReasons(t *testing.T) {
	c := curves.P224()
	p := randPoint(t, newRNG(4), c)
	x, y := p.X.Text(16), p.Y.Text(16)
	for _, tc := range []struct{ in, reason string }{
		{"5 " + x, "3 fields"},
		{"5 " + c.P().Text(16) + " " + y, "not below p"},
		{"5 " + x + " " + new(big.Int).Add(p.Y, big.NewInt(1)).Text(16), "not on the curve"},
		{"5 0 0", "(0, 0)"},
		{"1" + strings.Repeat("0", 128) + " " + x + " " + y, "512 bits"},
		{"q " + x + " " + y, "hexadecimal"},
	} {
		code, out, _ := cli(t, tc.in+"\n", "mul", "--backend", "cpu")
		require.Equal(t, exitFail, code, tc.in)
		require.True(t, strings.HasPrefix(out, "error: "), out)
		require.Contains(t, out, tc.reason)
		require.Equal(t, 1, strings.Count(out, "\n"), "one line per item")
	}
}

func TestMulLongLine(t *testing.T) {
	c := curves.P224()
	rng := newRNG(8)
	items := validItems(t, rng, c, 3)
	long := strings.Repeat("a", 5000)
	huge := "1 " + strings.Repeat("f", 1<<20) + " 2"
	in := items[0].in + "\n" + long + "\n" + items[1].in + "\n" + huge + "\n\n" + items[2].in + "\n" + long
	code, out, errOut := cli(t, in, "mul", "--backend", "cpu")
	require.Equal(t, exitFail, code)
	require.Contains(t, errOut, "3 item(s) failed")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 6, out)
	require.Equal(t, items[0].out, lines[0])
	require.Equal(t, "error: line 2: longer than 4096 bytes", lines[1])
	require.Equal(t, items[1].out, lines[2])
	require.Equal(t, "error: line 4: longer than 4096 bytes", lines[3])
	require.Equal(t, items[2].out, lines[4])
	require.Equal(t, "error: line 7: longer than 4096 bytes", lines[5], "the blank line counts")

	// Shorter lines are read whole, blanks included.
	for _, n := range []int{1000, 4000, 4094} {
		for _, eol := range []string{"\n", "\r\n"} {
			padded := items[0].in + strings.Repeat(" ", n-len(items[0].in))
			require.Len(t, padded, n)
			code, out, errOut = cli(t, padded+eol+items[1].in+"\n", "mul", "--backend", "cpu")
			require.Equal(t, exitOK, code, "a line of %d bytes and %q: %s", n, eol, errOut)
			require.Equal(t, items[0].out+"\n"+items[1].out+"\n", out)
		}
	}
}

// TestMulLineAtLimit reads lines of exactly 4096 bytes, which the help
// ("Lines longer than 4096 bytes are answered with an error") accepts.
func TestMulLineAtLimit(t *testing.T) {
	items := validItems(t, newRNG(8), curves.P224(), 1)
	for _, n := range []int{4095, 4096} {
		for _, eol := range []string{"\n", "\r\n", ""} {
			line := items[0].in + strings.Repeat(" ", n-len(items[0].in))
			code, out, errOut := cli(t, line+eol, "mul", "--backend", "cpu")
			require.Equal(t, exitOK, code, "a line of %d bytes and %q: %s", n, eol, errOut)
			require.Equal(t, items[0].out+"\n", out)
		}
	}
}

func TestMulFiles(t *testing.T) {
	c := curves.Secp256k1()
	rng := newRNG(9)
	items := validItems(t, rng, c, 12)
	dir := t.TempDir()
	inPath := filepath.Join(dir, "in.txt")
	outPath := filepath.Join(dir, "out.txt")
	require.NoError(t, os.WriteFile(inPath, []byte(input(rng, items)), 0o644))

	code, out, errOut := cli(t, "this stdin is not read\n", "mul", "--curve", "secp256k1", "--backend", "cpu", "--in", inPath, "--out", outPath)
	require.Equal(t, exitOK, code, errOut)
	require.Empty(t, out)
	got, err := os.ReadFile(outPath)
	require.NoError(t, err)
	require.Equal(t, output(items), string(got))

	// -in alone writes to stdout; -out alone reads stdin.
	code, out, _ = cli(t, "", "mul", "-curve", "secp256k1", "-backend", "cpu", "-in", inPath)
	require.Equal(t, exitOK, code)
	require.Equal(t, output(items), out)
	require.NoError(t, os.Remove(outPath))
	code, out, _ = cli(t, input(rng, items), "mul", "--curve=secp256k1", "--backend=cpu", "--out="+outPath)
	require.Equal(t, exitOK, code)
	require.Empty(t, out)
	got, err = os.ReadFile(outPath)
	require.NoError(t, err)
	require.Equal(t, output(items), string(got))

	code, _, errOut = cli(t, "", "mul", "--backend", "cpu", "--in", filepath.Join(dir, "missing.txt"))
	require.Equal(t, exitFail, code)
	require.NotEmpty(t, errOut)
	code, _, errOut = cli(t, "", "mul", "--backend", "cpu", "--out", filepath.Join(dir, "no", "such", "dir.txt"))
	require.Equal(t, exitFail, code)
	require.NotEmpty(t, errOut)
}

func TestMulChunk(t *testing.T) {
	c := curves.P224()
	rng := newRNG(10)
	items := validItems(t, rng, c, 20)
	bad := invalidItems(t, c)
	for i, b := range bad {
		at := (i * 3) % len(items)
		items = slices.Insert(items, at, b)
	}
	in := input(rng, items)
	for _, backend := range []string{"cpu", "rns-cpu"} {
		if backend == "rns-cpu" && testing.Short() {
			continue
		}
		code, want, _ := cli(t, in, "mul", "--backend", backend)
		require.Equal(t, exitFail, code)
		for _, chunk := range []string{"1", "2", "7", "1000000"} {
			code, out, _ := cli(t, in, "mul", "--backend", backend, "--chunk", chunk)
			require.Equal(t, exitFail, code)
			require.Equal(t, want, out, "--chunk %s", chunk)
		}
	}
}

func TestMulEmptyInput(t *testing.T) {
	for _, in := range []string{"", "\n", "  \n\t\n\r\n", "   "} {
		code, out, errOut := cli(t, in, "mul", "--backend", "cpu")
		require.Equal(t, exitOK, code, "%q", in)
		require.Empty(t, out)
		require.Empty(t, errOut)
	}
}

func TestMulAutoBackend(t *testing.T) {
	if _, err := gpu.DefaultDriver(); err == nil {
		t.Skip("a CUDA driver is present")
	}
	rng := newRNG(12)
	items := validItems(t, rng, curves.P256(), 6)
	code, out, errOut := cli(t, input(rng, items), "mul", "--curve", "P-256")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, output(items), out)

	code, _, errOut = cli(t, input(rng, items), "mul", "--curve", "p256", "--backend", "gpu")
	require.Equal(t, exitFail, code)
	require.Contains(t, errOut, "no CUDA device")
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"mul", "--nope"},
		{"mul", "--curve", "p384"},
		{"mul", "--curve", ""},
		{"mul", "--backend", "fpga"},
		{"mul", "--ext", "montgomery"},
		{"mul", "--chunk", "0"},
		{"mul", "--chunk", "-3"},
		{"mul", "--chunk", "many"},
		{"mul", "extra"},
		{"params", "--curve", "p521"},
		{"params", "--nope"},
		{"devices", "--nope"},
		{"devices", "extra"},
		{"params", "p256"},
		{"params", "--schedule", "nope"},
		{"mul", "--inflight", "-1"},
		{"mul", "--format", "xml"},
		{"mul", "--channel-bits", "17"},
		{"help", "mul", "extra"},
	} {
		code, out, errOut := cli(t, "1 2 3\n", args...)
		require.Equal(t, exitUsage, code, "%q", args)
		require.Empty(t, out, "%q", args)
		require.NotEmpty(t, errOut, "%q", args)
	}
}

// TestWideParams: by default params shows the 30-bit channels, their
// 64-bit bounds holding.
func TestWideParams(t *testing.T) {
	code, out, errOut := cli(t, "", "params", "--curve", "p256")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "n = 9 channels of 30 bits per base")
	require.Regexp(t, `64-bit extension sums .* yes`, out)
	require.Regexp(t, `1 folds reduce 64 bits in B .* yes`, out)
	require.Contains(t, out, "reductions per bit: 11")
	require.Contains(t, out, "additions per bit: 5, 4 of them lazy")
	for _, b := range []string{"pair α: Φ covers Δ", "pair α exact", "pair α in a byte", "pair α lane sums fit 32 bits", "pair extensions in 32 bits"} {
		require.Regexp(t, regexp.QuoteMeta(b)+` .* yes`, out)
	}
	code, _, _ = cli(t, "", "params", "--channel-bits", "24")
	require.Equal(t, exitUsage, code)
}

func TestParams(t *testing.T) {
	code, out, errOut := cli(t, "", "params", "--curve", "p224", "--channel-bits", "16")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "n = 15")

	// The moduli 2^16 − c of both bases.
	cs := []int{1, 3, 5, 9, 15, 17, 27, 33, 39, 45, 47, 57, 59, 63, 77, 87, 89, 99, 105, 113, 117, 123, 125, 129, 143, 153, 155, 165, 167, 173}
	var want []int
	for _, c := range cs {
		want = append(want, 1<<16-c)
	}
	var got []int
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "moduli:"); ok {
			for _, f := range strings.Fields(strings.Trim(strings.TrimSpace(rest), "[]")) {
				m, err := strconv.Atoi(f)
				require.NoError(t, err, l)
				got = append(got, m)
			}
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	require.Equal(t, want, got)

	for _, name := range []string{"p224", "p256", "secp256k1"} {
		for bits, least := range map[string]int{"16": 12, "30": 10} {
			code, out, errOut := cli(t, "", "params", "--curve", name, "--channel-bits", bits)
			require.Equal(t, exitOK, code, errOut)
			m := regexp.MustCompile(`(?m)^all (\d+) bounds hold$`).FindStringSubmatch(out)
			require.NotNil(t, m, out)
			bounds, _ := strconv.Atoi(m[1])
			require.GreaterOrEqual(t, bounds, least)
			// The table has one row per bound, and none says NO.
			rows := 0
			for _, l := range strings.Split(out, "\n") {
				fields := strings.Fields(l)
				require.NotContains(t, fields, "NO", l)
				if slices.Contains(fields, "yes") {
					rows++
				}
			}
			require.Equal(t, bounds, rows, out)
		}
	}
}

func TestDevicesWithoutGPU(t *testing.T) {
	if _, err := gpu.DefaultDriver(); err == nil {
		t.Skip("a CUDA driver is present")
	}
	code, out, errOut := cli(t, "", "devices")
	require.Equal(t, exitFail, code)
	require.Empty(t, out)
	require.Contains(t, errOut, "no CUDA device")
}

// TestListDevices: every device of a fake driver is listed with whether
// the kernels load on it.
func TestListDevices(t *testing.T) {
	d := fakecuda.New(fakecuda.H100(), fakecuda.H100())
	d.FailOn(1, "ModuleLoadData", 1, nil)
	var b strings.Builder
	require.NoError(t, listDevices(&b, d, []byte("fatbin")))
	require.Equal(t, "CUDA driver 12.8\n"+
		"0: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 80.0 GiB, 1980 MHz), kernels load\n"+
		"1: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 80.0 GiB, 1980 MHz), kernels do not load: cuModuleLoadData: CUDA_ERROR_UNKNOWN (999): unknown error\n",
		b.String())
	require.Zero(t, d.Live())
}

func TestHelp(t *testing.T) {
	code, out, _ := cli(t, "", "help")
	require.Equal(t, exitOK, code)
	for _, c := range commands() {
		require.Contains(t, out, c.name)
	}
	code, _, errOut := cli(t, "")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "Usage: ecmul COMMAND")
	code, out, errOut = cli(t, "", "help", "bogus")
	require.Equal(t, exitUsage, code, "help for an unknown command is a usage error")
	require.Contains(t, errOut, `unknown command "bogus"`)
	require.Empty(t, out)

	registered := registeredFlags()
	for _, c := range commands() {
		flags := registered[c.name]
		for _, args := range [][]string{{c.name, "-h"}, {c.name, "--help"}, {"help", c.name}} {
			var out, errOut bytes.Buffer
			code := run(args, strings.NewReader(""), &out, &errOut)
			require.Equal(t, exitOK, code, "%q", args)
			text := out.String() + errOut.String()
			require.Contains(t, text, "Usage: ecmul "+c.name, "%q", args)
			for _, f := range flags {
				require.Regexp(t, `(?m)^\s*-`+regexp.QuoteMeta(f)+`\b`, text, "%q: flag -%s is not in the help", args, f)
			}
		}
	}
	require.ElementsMatch(t, []string{"curve", "backend", "schedule", "ext", "channel-bits", "devices", "no-spin", "in", "out", "chunk", "inflight", "format", "x-only", "stats", "cpuprofile"}, registered["mul"])
	require.ElementsMatch(t, []string{"curve", "schedule", "channel-bits"}, registered["params"])
}

// registeredFlags returns the names of the flags each command registers.
func registeredFlags() map[string][]string {
	out := map[string][]string{}
	for _, c := range commands() {
		out[c.name] = []string{}
		c.flags().VisitAll(func(f *flag.Flag) { out[c.name] = append(out[c.name], f.Name) })
	}
	return out
}

// TestExampleFile runs the README's first command on the cpu backend: the
// example input must succeed, and give the reference results.
func TestExampleFile(t *testing.T) {
	in, err := os.ReadFile(filepath.Join(sourceDir(), "..", "..", "testdata", "example-p224.txt"))
	require.NoError(t, err)
	c := curves.P224()
	var want strings.Builder
	infinities := 0
	for _, l := range strings.Split(strings.TrimSpace(string(in)), "\n") {
		f := strings.Fields(l)
		require.Len(t, f, 3, l)
		var v [3]*big.Int
		for i, s := range f {
			s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
			var ok bool
			v[i], ok = new(big.Int).SetString(s, 16)
			require.True(t, ok, s)
		}
		line := expect(t, c, &curves.Point{X: v[1], Y: v[2]}, v[0])
		if line == "infinity" {
			infinities++
		}
		want.WriteString(line + "\n")
	}
	require.Positive(t, infinities, "the example shows a multiple of n")
	for _, backend := range []string{"cpu", "rns-cpu"} {
		code, out, errOut := cli(t, string(in), "mul", "--curve", "p224", "--backend", backend)
		require.Equal(t, exitOK, code, errOut)
		require.Equal(t, want.String(), out, backend)
	}
}

// sourceDir returns the folder of this package's source: where this file
// was compiled from when it is still there, otherwise the working
// directory.
func sourceDir() string {
	if _, file, _, ok := runtime.Caller(0); ok {
		dir := filepath.Dir(file)
		if _, err := os.Stat(filepath.Join(dir, "main.go")); err == nil {
			return dir
		}
	}
	return "."
}

// TestVersion checks that "ecmul version" names the kernel the binary
// embeds (the hash is recomputed from the sources) and rejects arguments.
func TestVersion(t *testing.T) {
	code, out, errOut := cli(t, "", "version")
	require.Equal(t, exitOK, code, errOut)
	sum, err := kernels.SourcesHash(os.DirFS(filepath.Join(sourceDir(), "..", "..", "internal", "kernels")))
	require.NoError(t, err)
	require.Regexp(t, `^ecmul commit (unknown|[0-9a-f]{40}(-dirty)?)\ngo1\.[0-9.]+ `+runtime.GOOS+`/`+runtime.GOARCH+`\n`, out)
	require.Contains(t, out, "kernel sources sha256 "+sum+"\n")

	code, _, errOut = cli(t, "", "version", "extra")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, `unexpected argument "extra"`)
}

// TestMulLineNumbers: an error names its input line, blank lines counted,
// and a UTF-8 byte-order mark at the very start is no part of the first line.
func TestMulLineNumbers(t *testing.T) {
	c := curves.P224()
	items := validItems(t, newRNG(9), c, 1)
	in := "\xef\xbb\xbf" + items[0].in + "\n\n  \r\n5 1 2\nzz\n"
	code, out, _ := cli(t, in, "mul", "--backend", "cpu")
	require.Equal(t, exitFail, code)
	require.Equal(t, items[0].out+"\nerror: line 4: P-224: point is not on the curve\n"+
		"error: line 5: want 3 fields (SCALAR_HEX X_HEX Y_HEX), got 1\n", out)
	code, out, _ = cli(t, "\xef\xbb\xbf\n{\"scalar\":\"5\",\"x\":\"1\",\"y\":\"2\"}\n", "mul", "--backend", "cpu", "--format", "jsonl")
	require.Equal(t, exitFail, code)
	require.Equal(t, `{"error":"line 2: P-224: point is not on the curve"}`+"\n", out)
	// a byte-order mark anywhere else is data
	code, out, _ = cli(t, items[0].in+"\n\xef\xbb\xbf"+items[0].in+"\n", "mul", "--backend", "cpu")
	require.Equal(t, exitFail, code)
	require.Contains(t, out, "error: line 2: ")
}
