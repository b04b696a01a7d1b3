package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/basext"
	"github.com/rnsec/ecmul/curves"
	"github.com/rnsec/ecmul/internal/par"
	"github.com/rnsec/ecmul/ladder"
)

// maxLine bounds one input line; a longer line is answered with an error
// and skipped without being held in memory.
const maxLine = 4096

const mulHelp = `Usage: ecmul mul [flags] [< input] [> output]

Multiplies points by scalars: reads one item per non-empty line and writes
one line per item, in input order. Blank lines are skipped and answered by
nothing; leading and trailing blanks, \r\n line endings and a UTF-8
byte-order mark at the very start are accepted.

Formats (--format):

  hex (default)
    in:   SCALAR_HEX X_HEX Y_HEX      three fields separated by spaces or tabs
    out:  X_HEX Y_HEX                 lowercase, zero-padded to the field size
                                      (56 digits for P-224, 64 otherwise)
  sec1
    in:   SCALAR_HEX POINT_HEX        POINT_HEX: SEC1, uncompressed 04||x||y
                                      or compressed 02||x / 03||x (y even / odd)
    out:  04||X||Y                    uncompressed SEC1, lowercase hex
  jsonl
    in:   {"scalar":"HEX","x":"HEX","y":"HEX"}
          one JSON object per line with exactly these three keys, each a
          string of hex; unknown or repeated keys, other value types and
          anything after the object make the line an error
    out:  {"x":"HEX","y":"HEX"}
  raw (binary, fixed-size records; L = 28 for P-224, 32 otherwise)
    in:   SCALAR ‖ X ‖ Y               L bytes each, big-endian; the scalar
                                      is any value, reduced mod n
    out:  STATUS ‖ X ‖ Y               STATUS 0: a point, 1: infinity,
                                      2: error; X, Y zero unless STATUS is 0
                                      (STATUS ‖ X with --x-only). A failed
                                      item's reason goes to standard error
                                      as "ecmul mul: item N: REASON", N from
                                      1; a partial last record is a failed
                                      item.

  Hex input is in any case, with or without a 0x prefix, leading zeros
  allowed. The scalar is any non-negative integer of up to 512 bits, reduced
  mod n. A point must be on the curve, coordinates below p, not (0, 0).

  Every format answers the point at infinity (k ≡ 0 mod n) with "infinity"
  ({"infinity":true} in jsonl) and an invalid item (bad hex, coordinate >= p,
  point not on the curve, (0, 0), scalar over 512 bits, a line longer than
  4096 bytes, ...) with "error: line N: REASON" ({"error":"line N: REASON"}
  in jsonl), N its line in the input from 1, blank lines counted; the other
  items are computed all the same.

  --x-only writes only the x coordinate of each result: X_HEX (hex and sec1)
  or {"x":"HEX"} (jsonl).

Streaming: the input is read, computed and written --chunk items at a time;
the next chunk is read and the previous one written while a chunk is
computed, so a stream of any length runs in bounded memory: at most
--inflight + 2 chunks exist, and with the default chunk the peak RSS stays
below 300 MiB on the cpu backend and below 600 MiB on the gpu backend (CUDA
context included). Output keeps the input order and is flushed after every
chunk; a chunk goes on when it is full, when the input ends, or when no line
has come for 2 ms, so the answers to a paused stream do not wait for more
input. --stats prints items, failed items, seconds, op/s, the peak RSS and
the backend that ran to standard error at the end; a progress line (the
backend, items answered so far, op/s) is drawn on standard error once the
run has lasted a second, only when standard error is a terminal.

Exit status: 0 when every item succeeded, 1 when any item failed (their count
goes to standard error) or the run could not complete (unreadable input,
unwritable output, --backend gpu without a GPU), 2 for usage errors.

Examples:

  printf '2 b70e0cbd6bb4bf7f321390b94a03c1d356c21122343280d6115c1d21 bd376388b5f723fb4c22dfe6cd4375a05a07476444d5819985007e34\n' | ecmul mul --backend cpu
  ecmul gen --curve p256 --n 1000000 | ecmul mul --curve p256 --stats > out.txt
  ecmul mul --curve secp256k1 --format jsonl --x-only --in items.jsonl --out x.jsonl

Flags:
`

type mulFlags struct {
	curve, backend, schedule, ext, in, out string
	devices                                string
	chunk, inflight                        int
	format                                 string
	xOnly, stats                           bool
}

func addEngineFlags(fs *flag.FlagSet, f *mulFlags) {
	fs.StringVar(&f.curve, "curve", "p224", "curve: p224, p256 or secp256k1 (also P-224, secp224r1, P-256, secp256r1, prime256v1; any case)")
	fs.StringVar(&f.backend, "backend", "auto", "backend: auto (gpu if one can be used, else cpu), gpu, rns-cpu (the kernel's CPU twin, slow) or cpu")
	fs.StringVar(&f.schedule, "schedule", "default", "ladder schedule of the rns-cpu and gpu backends: coz (the default: Hamburg's co-Z ladder, 11 reductions per bit) or paper (Table I of the paper, 18)")
	fs.StringVar(&f.ext, "ext", "shenoy", "base extension of the rns-cpu and gpu backends: shenoy or kawamura")
	fs.StringVar(&f.devices, "devices", "all", "GPUs of the gpu backend: all, or comma-separated device ordinals such as 0,2 (ecmul devices lists them)")
}

// parseDevices reads --devices: nil for all, else the ordinals listed.
func parseDevices(s string) ([]int, error) {
	if strings.EqualFold(strings.TrimSpace(s), "all") {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("--devices: %q is not a device ordinal (all, or numbers such as 0,2)", f)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("--devices: device %d listed twice", n)
		}
		out = append(out, n)
	}
	return out, nil
}

// newEngine builds the engine the flags describe; a non-nil error is a usage error
// when usage is true.
func newEngine(f *mulFlags) (eng *ecmul.Engine, usage bool, err error) {
	c, err := curves.ByName(f.curve)
	if err != nil {
		return nil, true, err
	}
	b, err := ecmul.ParseBackend(f.backend)
	if err != nil {
		return nil, true, err
	}
	v, err := basext.ParseVariant(f.ext)
	if err != nil {
		return nil, true, err
	}
	s, err := ladder.ParseKind(f.schedule)
	if err != nil {
		return nil, true, err
	}
	devs, err := parseDevices(f.devices)
	if err != nil {
		return nil, true, err
	}
	// a batch is one --chunk: the GPU's launches and pinned buffers take
	// that size too
	eng, err = ecmul.New(c, ecmul.Options{Backend: b, Schedule: s, Ext: v, GPU: ecmul.GPUOptions{Devices: devs, Chunk: f.chunk}})
	return eng, false, err
}

func runMul(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f mulFlags
	fs := flag.NewFlagSet("mul", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), mulHelp); fs.PrintDefaults() }
	addEngineFlags(fs, &f)
	fs.StringVar(&f.in, "in", "-", "input file (- for standard input)")
	fs.StringVar(&f.out, "out", "-", "output file (- for standard output)")
	fs.IntVar(&f.chunk, "chunk", 1<<16, "items read and computed per batch; memory grows with it, the output does not depend on it")
	fs.StringVar(&f.format, "format", "hex", "input and output format: hex, sec1, jsonl or raw")
	fs.BoolVar(&f.xOnly, "x-only", false, "write only the x coordinate of each result")
	fs.IntVar(&f.inflight, "inflight", 0, "chunks computed at once; 0: 2 on the gpu backend (one is validated while the other runs on the GPU), 1 otherwise")
	fs.BoolVar(&f.stats, "stats", false, "print items, failed, seconds, op/s, peak RSS and the backend to standard error at the end")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ecmul mul: unexpected arguments %q\n", fs.Args())
		return exitUsage
	}
	if f.chunk < 1 || f.inflight < 0 {
		fmt.Fprintf(stderr, "ecmul mul: --chunk must be at least 1 and --inflight at least 0, not %d and %d\n", f.chunk, f.inflight)
		return exitUsage
	}
	format, err := parseFormat(f.format)
	if err != nil {
		fmt.Fprintf(stderr, "ecmul mul: %v\n", err)
		return exitUsage
	}
	eng, isUsage, err := newEngine(&f)
	if err != nil {
		fmt.Fprintf(stderr, "ecmul mul: %v\n", err)
		if isUsage {
			return exitUsage
		}
		return exitFail
	}
	defer eng.Close()

	in := stdin
	if f.in != "-" {
		file, err := os.Open(f.in)
		if err != nil {
			fmt.Fprintf(stderr, "ecmul mul: %v\n", err)
			return exitFail
		}
		defer file.Close()
		in = file
	}
	out := stdout
	var outFile *os.File
	if f.out != "-" {
		outFile, err = os.Create(f.out)
		if err != nil {
			fmt.Fprintf(stderr, "ecmul mul: %v\n", err)
			return exitFail
		}
		out = outFile
	}

	counted := &countingReader{r: in}
	var frac func() float64
	if file, ok := in.(*os.File); ok {
		if st, err := file.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
			size := float64(st.Size())
			frac = func() float64 { return float64(counted.n.Load()) / size }
		}
	}
	start := time.Now()
	prog := startProgress(stderr, "ecmul mul ("+string(eng.Backend())+")", frac)
	if format != formatRaw && os.Getenv("GOGC") == "" {
		// the line formats' text buffers, kept by the chunks in flight,
		// would take the heap past the memory ceiling at Go's default
		defer debug.SetGCPercent(debug.SetGCPercent(lineFormatGOGC))
	}
	opts := mulOptions{chunk: f.chunk, inflight: f.inflight, codec: codec{c: eng.Curve(), format: format, xOnly: f.xOnly},
		errOut: stderr, progress: prog.add}
	if opts.inflight == 0 {
		opts.inflight = 1
		if eng.Backend() == ecmul.GPU {
			opts.inflight = 2
		}
	}
	sum, err := mulStream(context.Background(), eng, counted, out, opts)
	if outFile != nil {
		if cerr := outFile.Close(); err == nil {
			err = cerr
		}
	}
	prog.finish()
	if f.stats {
		printStats(stderr, "ecmul mul", sum, time.Since(start), eng.Backend())
	}
	if err != nil {
		fmt.Fprintf(stderr, "ecmul mul: %v\n", err)
		return exitFail
	}
	if sum.failed > 0 {
		fmt.Fprintf(stderr, "ecmul mul: %d item(s) failed\n", sum.failed)
		return exitFail
	}
	return exitOK
}

// printStats writes the --stats line, naming the backend that ran.
func printStats(w io.Writer, prefix string, sum mulSummary, el time.Duration, backend ecmul.Backend) {
	rss := "n/a"
	if b, ok := peakRSS(); ok {
		rss = fmt.Sprintf("%.1f", float64(b)/(1<<20))
	}
	sec := el.Seconds()
	fmt.Fprintf(w, "%s: stats: items=%d failed=%d seconds=%.3f op/s=%.0f peak_rss_mib=%s backend=%s\n",
		prefix, sum.items, sum.failed, sec, float64(sum.items)/max(sec, 1e-9), rss, backend)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// mulFormat names an input and output format of mul.
type mulFormat string

const (
	formatHex   mulFormat = "hex"
	formatSEC1  mulFormat = "sec1"
	formatJSONL mulFormat = "jsonl"
)

// mulFormats are the line formats; formatRaw is the binary one.
var mulFormats = []mulFormat{formatHex, formatSEC1, formatJSONL}

// formatRaw is fixed-size binary records: in, scalar ‖ x ‖ y (L bytes each,
// big-endian, L the field's byte length); out, a status byte (rawPoint,
// rawInfinity or rawError) ‖ x ‖ y, the coordinates zero unless the status
// is rawPoint (status ‖ x with --x-only).
const formatRaw mulFormat = "raw"

// The status bytes of raw output records.
const (
	rawPoint    = 0
	rawInfinity = 1
	rawError    = 2
)

func parseFormat(s string) (mulFormat, error) {
	for _, f := range append(mulFormats, formatRaw) {
		if strings.EqualFold(s, string(f)) {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q (want hex, sec1, jsonl or raw)", s)
}

// codec reads items and writes results in one format.
type codec struct {
	c      *curves.Curve
	format mulFormat
	xOnly  bool
}

// parse reads one input line (not blank, blanks around it trimmed), or one
// raw record.
func (cd *codec) parse(line string) (*ecmul.Point, *big.Int, error) {
	switch cd.format {
	case formatSEC1:
		return cd.parseSEC1(line)
	case formatJSONL:
		return cd.parseJSONL(line)
	case formatRaw:
		return cd.parseRaw(line)
	}
	return cd.parseHex(line)
}

// unit names what an error's number counts: input lines, or raw records.
func (cd *codec) unit() string {
	if cd.format == formatRaw {
		return "item"
	}
	return "line"
}

// recordSize is the length of a raw input record.
func (cd *codec) recordSize() int { return 3 * cd.c.ByteLen }

// parseRaw reads a raw record: scalar ‖ x ‖ y, the coordinates checked
// against p when the engine validates the point.
func (cd *codec) parseRaw(rec string) (*ecmul.Point, *big.Int, error) {
	if len(rec) != cd.recordSize() {
		return nil, nil, fmt.Errorf("a partial record of %d bytes at the end of the input (want %d)", len(rec), cd.recordSize())
	}
	L := cd.c.ByteLen
	k := new(big.Int).SetBytes([]byte(rec[:L]))
	x := new(big.Int).SetBytes([]byte(rec[L : 2*L]))
	y := new(big.Int).SetBytes([]byte(rec[2*L:]))
	return &ecmul.Point{X: x, Y: y}, k, nil
}

func (cd *codec) parseHex(line string) (*ecmul.Point, *big.Int, error) {
	fields := fieldsOf(line)
	if len(fields) != 3 {
		return nil, nil, fmt.Errorf("want 3 fields (SCALAR_HEX X_HEX Y_HEX), got %d", len(fields))
	}
	return cd.parseXY(fields[0], fields[1], fields[2])
}

func (cd *codec) parseXY(scalar, xs, ys string) (*ecmul.Point, *big.Int, error) {
	k, err := ecmul.ParseScalarHex(scalar)
	if err != nil {
		return nil, nil, err
	}
	x, err := cd.c.ParseHexCoordinate(xs)
	if err != nil {
		return nil, nil, fmt.Errorf("x: %w", err)
	}
	y, err := cd.c.ParseHexCoordinate(ys)
	if err != nil {
		return nil, nil, fmt.Errorf("y: %w", err)
	}
	return &ecmul.Point{X: x, Y: y}, k, nil
}

func (cd *codec) parseSEC1(line string) (*ecmul.Point, *big.Int, error) {
	fields := fieldsOf(line)
	if len(fields) != 2 {
		return nil, nil, fmt.Errorf("want 2 fields (SCALAR_HEX POINT_HEX), got %d", len(fields))
	}
	k, err := ecmul.ParseScalarHex(fields[0])
	if err != nil {
		return nil, nil, err
	}
	s := fields[1]
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	if limit := 2 * (1 + 2*cd.c.ByteLen); len(s) > limit {
		return nil, nil, fmt.Errorf("point: SEC1 hex is %d digits, more than %d", len(s), limit)
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, nil, fmt.Errorf("point: SEC1 encoding is not hexadecimal: %v", err)
	}
	p, err := cd.c.DecodeSEC1(b)
	if err != nil {
		return nil, nil, fmt.Errorf("point: %w", err)
	}
	return p, k, nil
}

// parseJSONL reads {"scalar":"HEX","x":"HEX","y":"HEX"}: exactly these
// keys, compared exactly, each once, each a string, nothing after the object.
func (cd *codec) parseJSONL(line string) (*ecmul.Point, *big.Int, error) {
	dec := json.NewDecoder(strings.NewReader(line))
	tok, err := dec.Token()
	if d, ok := tok.(json.Delim); err != nil || !ok || d != '{' {
		return nil, nil, errors.New(`not a JSON object (want {"scalar":"HEX","x":"HEX","y":"HEX"})`)
	}
	var vals [3]string
	var seen [3]bool
	keys := [3]string{"scalar", "x", "y"}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("invalid JSON: %v", err)
		}
		key, _ := tok.(string)
		i := 0
		for i < len(keys) && keys[i] != key {
			i++
		}
		if i == len(keys) {
			if len(key) > 32 {
				key = key[:32] + "..."
			}
			return nil, nil, fmt.Errorf("unknown key %q (want scalar, x and y)", key)
		}
		if seen[i] {
			return nil, nil, fmt.Errorf("key %q appears twice", key)
		}
		tok, err = dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("invalid JSON: %v", err)
		}
		s, ok := tok.(string)
		if !ok {
			return nil, nil, fmt.Errorf("the value of %q is not a string of hex", key)
		}
		vals[i], seen[i] = s, true
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("data after the JSON object")
	}
	for i, ok := range seen {
		if !ok {
			return nil, nil, fmt.Errorf("key %q is missing", keys[i])
		}
	}
	return cd.parseXY(vals[0], vals[1], vals[2])
}

// appendHex appends v as lowercase hex, zero-padded to the field size.
func (cd *codec) appendHex(dst []byte, v *big.Int) []byte {
	var buf [64]byte
	return hex.AppendEncode(dst, v.FillBytes(buf[:cd.c.ByteLen]))
}

// appendRaw appends the raw output record of one item.
func (cd *codec) appendRaw(dst []byte, r *ecmul.Result, err error) []byte {
	L := cd.c.ByteLen
	n := 1 + L
	if !cd.xOnly {
		n += L
	}
	at := len(dst)
	dst = append(dst, make([]byte, n)...)
	rec := dst[at:]
	switch {
	case err != nil:
		rec[0] = rawError
	case r.Infinity:
		rec[0] = rawInfinity
	default:
		rec[0] = rawPoint
		r.X.FillBytes(rec[1 : 1+L])
		if !cd.xOnly {
			r.Y.FillBytes(rec[1+L:])
		}
	}
	return dst
}

// appendResult appends the output line of one item: its result, or err.
func (cd *codec) appendResult(dst []byte, r *ecmul.Result, err error) []byte {
	if cd.format == formatRaw {
		return cd.appendRaw(dst, r, err)
	}
	isJSON := cd.format == formatJSONL
	switch {
	case err != nil:
		msg := oneLine(err.Error())
		if isJSON {
			b, _ := jsonMarshal(map[string]string{"error": msg})
			dst = append(dst, b...)
		} else {
			dst = append(append(dst, "error: "...), msg...)
		}
	case r.Infinity:
		if isJSON {
			dst = append(dst, `{"infinity":true}`...)
		} else {
			dst = append(dst, "infinity"...)
		}
	case isJSON:
		dst = cd.appendHex(append(dst, `{"x":"`...), r.X)
		if !cd.xOnly {
			dst = cd.appendHex(append(dst, `","y":"`...), r.Y)
		}
		dst = append(dst, `"}`...)
	case cd.xOnly:
		dst = cd.appendHex(dst, r.X)
	case cd.format == formatSEC1:
		dst = cd.appendHex(cd.appendHex(append(dst, "04"...), r.X), r.Y)
	default:
		dst = cd.appendHex(append(cd.appendHex(dst, r.X), ' '), r.Y)
	}
	return append(dst, '\n')
}

// jsonMarshal is json.Marshal without HTML escaping and without the
// trailing newline.
func jsonMarshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// lineReader yields non-empty lines with their numbers, cutting any line
// longer than maxLine and a UTF-8 byte-order mark at the start of the input.
type lineReader struct {
	r          *bufio.Reader
	err        error
	n          int    // lines read so far, blank ones included
	beforeWait func() // when not nil, called before a read that may wait for input
}

// utf8BOM is the byte-order mark some editors put at the start of a file.
var utf8BOM = []byte("\xef\xbb\xbf")

// next returns the next non-empty line, blanks trimmed, valid until the
// next call, and its number from 1; tooLong reports a line longer than
// maxLine, skipped.
func (lr *lineReader) next() (line []byte, num int, tooLong, ok bool) {
	for lr.err == nil {
		if lr.beforeWait != nil {
			if buf, _ := lr.r.Peek(lr.r.Buffered()); bytes.IndexByte(buf, '\n') < 0 {
				lr.beforeWait() // no whole line is buffered: the read may wait
			}
		}
		b, err := lr.r.ReadSlice('\n')
		lr.n++
		if lr.n == 1 {
			b = bytes.TrimPrefix(b, utf8BOM)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			for errors.Is(err, bufio.ErrBufferFull) { // skip the rest of the line
				_, err = lr.r.ReadSlice('\n')
			}
			lr.err = err
			return nil, lr.n, true, true
		}
		if err != nil {
			lr.err = err
		}
		if len(bytes.TrimRight(b, "\r\n")) > maxLine {
			return nil, lr.n, true, true
		}
		if s := bytes.TrimSpace(b); len(s) > 0 {
			return s, lr.n, false, true
		}
	}
	return nil, 0, false, false
}

// nextRecord returns the next raw record of size bytes, or the shorter rest
// of the input at its end, valid until the next call, and its number from 1.
func (lr *lineReader) nextRecord(size int, buf []byte) (rec []byte, num int, ok bool) {
	if lr.err != nil {
		return nil, 0, false
	}
	if lr.beforeWait != nil && lr.r.Buffered() < size {
		lr.beforeWait()
	}
	n, err := io.ReadFull(lr.r, buf[:size])
	if err != nil {
		lr.err = err
		if errors.Is(err, io.ErrUnexpectedEOF) {
			lr.err = io.EOF
		}
		if n == 0 {
			return nil, 0, false
		}
	}
	lr.n++
	return buf[:n], lr.n, true
}

// lineError is an item's error with the number of its input line (or, in
// the raw format, of its record).
type lineError struct {
	line int
	err  error
	unit string // "line" or "item"
}

func (e *lineError) Error() string { return fmt.Sprintf("%s %d: %v", e.unit, e.line, e.err) }
func (e *lineError) Unwrap() error { return e.err }

// mulOptions configure mulStream.
type mulOptions struct {
	chunk    int // items per batch
	inflight int // batches computed at once (default 1)
	codec    codec
	errOut   io.Writer       // the raw format's error messages; may be nil
	progress func(items int) // called with each group of items answered; may be nil
}

// mulSummary counts what mulStream answered.
type mulSummary struct {
	items, failed int
}

// mulChunk is one batch of input lines on its way through the pipeline.
type mulChunk struct {
	lines     int
	nums      []int          // per line: its number in the input, from 1
	errs      []error        // per line: why it failed, nil for a valid item
	valid     []int          // the lines of the valid items, in order
	pts       []*ecmul.Point // the valid items
	ks        []*big.Int
	text      []byte   // the lines back to back, until the chunk is parsed
	spans     [][2]int // where each line is in text; {-1, -1}: too long
	raw       rawItems // the raw format's valid items, for the bytes API
	err       error    // the batch as a whole failed
	done      chan struct{}
	out       [][]byte // the output lines, one buffer per part
	errOut    [][]byte // the raw format's error messages, one buffer per part
	formatted bool     // out holds the chunk's output
	failed    int
}

func (ch *mulChunk) reset() {
	ch.raw.scalars, ch.raw.points = ch.raw.scalars[:0], ch.raw.points[:0]
	ch.text, ch.spans = ch.text[:0], ch.spans[:0]
	clear(ch.errs)
	clear(ch.pts)
	clear(ch.ks)
	ch.pts, ch.ks = ch.pts[:0], ch.ks[:0]
	ch.lines, ch.nums, ch.errs, ch.valid, ch.err, ch.formatted, ch.failed = 0, ch.nums[:0], ch.errs[:0], ch.valid[:0], nil, false, 0
}

// lineFormatGOGC is the garbage collector's target for the line formats:
// on an H200 host it kept P-224 and P-256 hex streams at 410 and 421 MiB
// peak (644 and 631 MiB at Go's default of 100) for 8% of their speed.
const lineFormatGOGC = 25

// pauseFlush is how long the parser waits for more input before it hands
// on a chunk that is not full: the answers to a paused stream come within
// about this much more than their computing.
var pauseFlush = 2 * time.Millisecond

// lineBatch is up to parseBatch input lines, copied out of the reader.
type lineBatch struct {
	text  []byte   // the lines back to back
	spans [][2]int // where each line is in text; {-1, -1}: too long
	nums  []int    // each line's number in the input
}

func (b *lineBatch) reset() { b.text, b.spans, b.nums = b.text[:0], b.spans[:0], b.nums[:0] }

func (b *lineBatch) add(line []byte, num int, tooLong bool) {
	b.nums = append(b.nums, num)
	if tooLong {
		b.spans = append(b.spans, [2]int{-1, -1})
		return
	}
	b.spans = append(b.spans, [2]int{len(b.text), len(b.text) + len(line)})
	b.text = append(b.text, line...)
}

// addLines copies lines [lo, hi) of b into ch, unparsed: a chunk is parsed
// as a whole, on all cores, once it is handed on.
func (ch *mulChunk) addLines(b *lineBatch, lo, hi int) {
	for i := lo; i < hi; i++ {
		sp := b.spans[i]
		if sp[0] < 0 {
			ch.spans = append(ch.spans, sp)
			continue
		}
		at := len(ch.text)
		ch.text = append(ch.text, b.text[sp[0]:sp[1]]...)
		ch.spans = append(ch.spans, [2]int{at, len(ch.text)})
	}
	ch.nums = append(ch.nums, b.nums[lo:hi]...)
	ch.lines += hi - lo
}

// parse parses every line of ch on all cores into its items, errors and
// list of valid lines; the text stays until the chunk is reset, for the
// reasons of refused points.
func (ch *mulChunk) parse(cd *codec) {
	n := ch.lines
	ch.errs = append(ch.errs[:0], make([]error, n)...)
	if cd.usesBytes() {
		ch.parseBytes(cd)
	} else {
		pts, ks := make([]*ecmul.Point, n), make([]*big.Int, n)
		each(n, func(_, a, z int) {
			for i := a; i < z; i++ {
				if sp := ch.spans[i]; sp[0] < 0 {
					ch.errs[i] = fmt.Errorf("longer than %d bytes", maxLine)
				} else {
					pts[i], ks[i], ch.errs[i] = cd.parse(string(ch.text[sp[0]:sp[1]]))
				}
			}
		})
		for i := range n {
			if ch.errs[i] == nil {
				ch.valid = append(ch.valid, i)
				ch.pts, ch.ks = append(ch.pts, pts[i]), append(ch.ks, ks[i])
			}
		}
	}
	for i, err := range ch.errs {
		if err != nil {
			ch.errs[i] = &lineError{ch.nums[i], err, cd.unit()}
		}
	}
}

// parts splits n items among the cores: the bounds of each part.
func parts(n int) []int { return par.Bounds(n, runtime.GOMAXPROCS(0), 256) }

// each runs do on every part of [0, n) concurrently.
func each(n int, do func(part, lo, hi int)) { par.Do(n, runtime.GOMAXPROCS(0), 256, do) }

// parseBatch is how many lines are read before they are parsed on all
// cores; it bounds the raw text held at once.
const parseBatch = 4096

// mulStream answers every line of in on out, in order. Three stages run
// at once: reading and parsing a chunk, computing up to opts.inflight
// chunks (each formatted as soon as it is computed), and writing the chunk
// before them; at most inflight+2 chunks exist.
func mulStream(ctx context.Context, eng *ecmul.Engine, in io.Reader, out io.Writer, opts mulOptions) (sum mulSummary, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inflight := max(opts.inflight, 1)
	cd := &opts.codec

	free := make(chan *mulChunk, inflight+2)
	for range cap(free) {
		free <- &mulChunk{done: make(chan struct{}, 1)}
	}
	parsed := make(chan *mulChunk)
	computed := make(chan *mulChunk, inflight)

	// Read: lines in batches of up to parseBatch, each batch handed on as
	// soon as it is full or the next read may wait for input.
	batches := make(chan *lineBatch)
	spare := make(chan *lineBatch, 3)
	for range cap(spare) {
		spare <- new(lineBatch)
	}
	var readErr error
	go func() {
		defer close(batches)
		var b *lineBatch
		send := func() {
			if b == nil || len(b.nums) == 0 {
				return
			}
			select {
			case batches <- b:
				b = nil
			case <-ctx.Done():
			}
		}
		lr := &lineReader{r: bufio.NewReaderSize(in, max(maxLine+2, 1<<16)), beforeWait: send} // room for "\r\n"
		read := lr.next
		if cd.format == formatRaw {
			rec := make([]byte, cd.recordSize())
			read = func() ([]byte, int, bool, bool) {
				r, num, ok := lr.nextRecord(len(rec), rec)
				return r, num, false, ok
			}
		}
		for ctx.Err() == nil {
			line, num, tooLong, ok := read()
			if !ok {
				break
			}
			if b == nil {
				select {
				case b = <-spare:
					b.reset()
				case <-ctx.Done():
					return
				}
			}
			b.add(line, num, tooLong)
			if len(b.nums) == parseBatch {
				send()
			}
		}
		send()
		if lr.err != nil && lr.err != io.EOF {
			readErr = lr.err
		}
	}()

	// Parse, into chunks: a chunk goes on when it is full, when the input
	// ends, or when no line has come for pauseFlush (so that a pause in the
	// input never holds back the answers to the lines before it).
	go func() {
		defer close(parsed)
		var ch *mulChunk
		hand := func() bool {
			select {
			case parsed <- ch:
				ch = nil
				return true
			case <-ctx.Done():
				return false
			}
		}
		pause := time.NewTimer(pauseFlush)
		pause.Stop()
		for {
			var b *lineBatch
			var ok bool
			if ch != nil && ch.lines > 0 {
				pause.Reset(pauseFlush)
				select {
				case b, ok = <-batches:
					pause.Stop()
				case <-pause.C:
					if !hand() {
						return
					}
					continue
				case <-ctx.Done():
					return
				}
			} else {
				select {
				case b, ok = <-batches:
				case <-ctx.Done():
					return
				}
			}
			if !ok {
				break
			}
			for off := 0; off < len(b.nums); {
				if ch == nil {
					select {
					case ch = <-free:
					case <-ctx.Done():
						return
					}
				}
				n := min(len(b.nums)-off, opts.chunk-ch.lines)
				ch.addLines(b, off, off+n)
				off += n
				if ch.lines == opts.chunk && !hand() {
					return
				}
			}
			spare <- b
		}
		if ch != nil && ch.lines > 0 {
			hand()
		}
	}()

	// Compute and format, up to inflight chunks at once, handing them on in
	// order.
	go func() {
		defer close(computed)
		sem := make(chan struct{}, inflight)
		for ch := range parsed {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go func() {
				defer func() { <-sem; ch.done <- struct{}{} }()
				ch.parse(cd)
				reported := 0
				progress := func(done, _ int) {
					if opts.progress != nil {
						opts.progress(done - reported)
					}
					reported = done
				}
				if cd.usesBytes() {
					ch.err = computeBytes(ctx, eng, &ch.raw, len(ch.valid), progress)
					if ch.err == nil || !errors.Is(ch.err, ecmul.ErrBytesLayout) {
						formatBytesChunk(cd, ch)
					}
					return
				}
				res, err := eng.ScalarMultProgress(ctx, ch.pts, ch.ks, progress)
				ch.err = err
				if res == nil && err != nil {
					return
				}
				formatChunk(cd, ch, res)
			}()
			select {
			case computed <- ch:
			case <-ctx.Done():
				return
			}
		}
	}()

	// Write, in order.
	w := bufio.NewWriterSize(out, 1<<16)
	for ch := range computed {
		<-ch.done
		if !ch.formatted {
			return sum, ch.err // nothing of the chunk was computed
		}
		for _, b := range ch.out {
			if _, err := w.Write(b); err != nil {
				return sum, err
			}
		}
		if opts.errOut != nil {
			for _, b := range ch.errOut {
				opts.errOut.Write(b)
			}
		}
		sum.items += ch.lines
		sum.failed += ch.failed
		if ch.err != nil {
			w.Flush()
			return sum, ch.err
		}
		if err := w.Flush(); err != nil {
			return sum, err
		}
		if opts.progress != nil {
			opts.progress(ch.lines - len(ch.valid)) // the lines refused by the parser
		}
		ch.reset()
		free <- ch
	}
	if readErr != nil {
		return sum, readErr
	}
	return sum, w.Flush()
}

// formatChunk writes the output lines of a computed chunk into ch.out, on
// all cores, counts its failed items, and lets go of its points, scalars
// and results.
func formatChunk(cd *codec, ch *mulChunk, res []ecmul.Result) {
	for n, i := range ch.valid {
		if e := res[n].Err; e != nil {
			var ie *ecmul.ItemError
			if errors.As(e, &ie) {
				e = ie.Err // the item index of a batch means nothing to the reader
			}
			ch.errs[i] = &lineError{ch.nums[i], e, cd.unit()}
		}
	}
	b := parts(ch.lines)
	for len(ch.out) < len(b)-1 {
		ch.out = append(ch.out, nil)
	}
	ch.out = ch.out[:len(b)-1]
	for len(ch.errOut) < len(ch.out) {
		ch.errOut = append(ch.errOut, nil)
	}
	ch.errOut = ch.errOut[:len(ch.out)]
	failed := make([]int, len(ch.out))
	each(ch.lines, func(p, lo, hi int) {
		buf, msgs := ch.out[p][:0], ch.errOut[p][:0]
		n, _ := slices.BinarySearch(ch.valid, lo)
		for i := lo; i < hi; i++ {
			var r *ecmul.Result
			if ch.errs[i] == nil {
				for ch.valid[n] != i {
					n++
				}
				r = &res[n]
			} else {
				failed[p]++
				if cd.format == formatRaw { // the reason goes to standard error
					msgs = append(append(append(msgs, "ecmul mul: "...), oneLine(ch.errs[i].Error())...), '\n')
				}
			}
			buf = cd.appendResult(buf, r, ch.errs[i])
		}
		ch.out[p], ch.errOut[p] = buf, msgs
	})
	for _, f := range failed {
		ch.failed += f
	}
	clear(ch.pts)
	clear(ch.ks)
	ch.pts, ch.ks, ch.formatted = ch.pts[:0], ch.ks[:0], true
}

// oneLine keeps an error message on a single output line.
func oneLine(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "\r", " "), "\n", " ") }

// fieldsOf splits a line on runs of spaces and tabs, the only separators
// the line formats allow.
func fieldsOf(line string) []string {
	return strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
}
