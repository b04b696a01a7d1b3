// Package stream answers a stream of scalar multiplications in order, in
// bounded memory: it reads items in one of four formats (hex, SEC1 and
// JSON lines, or raw binary records), computes them chunk by chunk through
// an ecmul.Engine, and writes one answer per item. It is what ecmul mul
// runs.
package stream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/hexcode"
	"github.com/rnsec/ecmul/internal/par"
)

// MaxLine bounds one input line; a longer line is answered with an error
// and skipped without being held in memory.
const MaxLine = 4096

// Format names an input and output format of mul.
type Format string

const (
	Hex   Format = "hex"
	SEC1  Format = "sec1"
	JSONL Format = "jsonl"
)

// LineFormats are the line formats; Raw is the binary one.
var LineFormats = []Format{Hex, SEC1, JSONL}

// Raw is fixed-size binary records: in, scalar ‖ x ‖ y (L bytes each,
// big-endian, L the field's byte length); out, a status byte (RawPoint,
// RawInfinity or RawError) ‖ x ‖ y, the coordinates zero unless the status
// is RawPoint (status ‖ x with --x-only).
const Raw Format = "raw"

// The status bytes of raw output records: a point, the point at infinity,
// or a failed item.
const (
	RawPoint    = 0
	RawInfinity = 1
	RawError    = 2
)

func ParseFormat(s string) (Format, error) {
	for _, f := range append(LineFormats, Raw) {
		if strings.EqualFold(s, string(f)) {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q (want hex, sec1, jsonl or raw)", s)
}

// codec reads items and writes results in one format.
type codec struct {
	c      *curves.Curve
	format Format
	xOnly  bool
	// base says every item's point is the curve's generator and the input
	// holds the scalar alone (ecmul base).
	base bool
}

// command is the name of the command whose stream cd reads, which prefixes
// the raw format's error messages.
func (cd *codec) command() string {
	if cd.base {
		return "ecmul base"
	}
	return "ecmul mul"
}

// parse reads one input line (not blank, blanks around it trimmed), or one
// raw record.
func (cd *codec) parse(line string) (*ecmul.Point, *big.Int, error) {
	switch cd.format {
	case SEC1:
		return cd.parseSEC1(line)
	case JSONL:
		return cd.parseJSONL(line)
	case Raw:
		return cd.parseRaw(line)
	}
	return cd.parseHex(line)
}

// unit names what an error's number counts: input lines, or raw records.
func (cd *codec) unit() string {
	if cd.format == Raw {
		return "item"
	}
	return "line"
}

// recordSize is the length of a raw input record: scalar ‖ x ‖ y, or the
// scalar alone for base.
func (cd *codec) recordSize() int {
	if cd.base {
		return cd.c.ByteLen()
	}
	return 3 * cd.c.ByteLen()
}

// parseRaw reads a raw record: scalar ‖ x ‖ y, the coordinates checked
// against p when the engine validates the point.
func (cd *codec) parseRaw(rec string) (*ecmul.Point, *big.Int, error) {
	if len(rec) != cd.recordSize() {
		return nil, nil, fmt.Errorf("a partial record of %d bytes at the end of the input (want %d)", len(rec), cd.recordSize())
	}
	L := cd.c.ByteLen()
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
	k, err := ParseScalarHex(scalar)
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
	k, err := ParseScalarHex(fields[0])
	if err != nil {
		return nil, nil, err
	}
	b, err := decodeSEC1Hex(fields[1], 1+2*cd.c.ByteLen())
	if err != nil {
		return nil, nil, fmt.Errorf("point: %w", err)
	}
	p, err := cd.c.DecodeSEC1(b)
	if err != nil {
		return nil, nil, fmt.Errorf("point: %w", err)
	}
	return &ecmul.Point{X: p.X, Y: p.Y}, k, nil
}

// decodeSEC1Hex decodes the hex of a SEC1 encoding of at most limit bytes
// (an optional 0x or 0X, then an even number of digits) by package
// hexcode; the encoding's own checks are curves.Curve.DecodeSEC1's.
func decodeSEC1Hex(field string, limit int) ([]byte, error) {
	digits := hexcode.TrimPrefix([]byte(field))
	switch {
	case len(digits) > 2*limit:
		return nil, fmt.Errorf("SEC1 hex is %d digits, more than %d", len(digits), 2*limit)
	case len(digits) == 0:
		return nil, errors.New("SEC1 encoding is not hexadecimal: no digits")
	}
	b := make([]byte, (len(digits)+1)/2)
	if !hexcode.DecodeInto(b, digits) {
		i := hexcode.IndexNonHex(digits)
		return nil, fmt.Errorf("SEC1 encoding is not hexadecimal: invalid character %s at offset %d", hexcode.QuoteByte(digits[i]), len(field)-len(digits)+i)
	}
	if len(digits)%2 == 1 {
		return nil, errors.New("SEC1 encoding is not hexadecimal: an odd number of digits")
	}
	return b, nil
}

// parseJSONL reads {"scalar":"HEX","x":"HEX","y":"HEX"}: exactly these
// keys, compared exactly, each once, each a string, nothing after the object.
func (cd *codec) parseJSONL(line string) (*ecmul.Point, *big.Int, error) {
	vals, err := jsonStrings(line, jsonItemKeys[:])
	if err != nil {
		return nil, nil, err
	}
	return cd.parseXY(vals[0], vals[1], vals[2])
}

// jsonItemKeys are the keys of a jsonl item of mul; one of base has the
// first alone.
var jsonItemKeys = [3]string{"scalar", "x", "y"}

// jsonStrings reads a JSON object of exactly the keys given, compared
// exactly, each once, each a string, nothing after the object, and returns
// their values in the order of keys.
func jsonStrings(line string, keys []string) ([]string, error) {
	want := `{"` + strings.Join(keys, `":"HEX","`) + `":"HEX"}`
	dec := json.NewDecoder(strings.NewReader(line))
	tok, err := dec.Token()
	if d, ok := tok.(json.Delim); err != nil || !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object (want %s)", want)
	}
	vals := make([]string, len(keys))
	seen := make([]bool, len(keys))
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("invalid JSON: %v", err)
		}
		key, _ := tok.(string)
		i := slices.Index(keys, key)
		if i < 0 {
			if len(key) > 32 {
				key = key[:32] + "..."
			}
			return nil, fmt.Errorf("unknown key %q (want %s)", key, keyList(keys))
		}
		if seen[i] {
			return nil, fmt.Errorf("key %q appears twice", key)
		}
		tok, err = dec.Token()
		if err != nil {
			return nil, fmt.Errorf("invalid JSON: %v", err)
		}
		s, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("the value of %q is not a string of hex", key)
		}
		vals[i], seen[i] = s, true
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	for i, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("key %q is missing", keys[i])
		}
	}
	return vals, nil
}

// keyList names keys as prose: "scalar", "scalar and x", "scalar, x and y".
func keyList(keys []string) string {
	if len(keys) == 1 {
		return keys[0]
	}
	return strings.Join(keys[:len(keys)-1], ", ") + " and " + keys[len(keys)-1]
}

// AppendCoordinate appends 0 <= v < 2^(8·ByteLen) as lowercase hex,
// zero-padded to c's field size: how every format writes a coordinate.
func AppendCoordinate(dst []byte, c *curves.Curve, v *big.Int) []byte {
	var buf [64]byte
	return hexcode.Append(dst, v.FillBytes(buf[:c.ByteLen()]))
}

// appendResult appends the output line of one item of the SEC1 or JSON
// lines format (hex and raw go through the bytes API): its result, or err,
// as appendBytesResult writes them.
func (cd *codec) appendResult(dst []byte, r *ecmul.Result, err error) []byte {
	if err != nil || r.Infinity {
		return cd.appendBytesResult(dst, ecmul.StatusInfinity, nil, err)
	}
	var buf [2 * curves.MaxScalarBytes]byte
	L := cd.c.ByteLen()
	xy := buf[:2*L]
	r.X.FillBytes(xy[:L])
	r.Y.FillBytes(xy[L:])
	return cd.appendBytesResult(dst, ecmul.StatusPoint, xy, nil)
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
// longer than MaxLine and a UTF-8 byte-order mark at the start of the input:
// how Lines reads, and the reference of the reading stage of Mul
// (chunkReader), which splits its text the same way.
type lineReader struct {
	r   *bufio.Reader
	err error
	n   int // lines read so far, blank ones included
}

// utf8BOM is the byte-order mark some editors put at the start of a file.
var utf8BOM = []byte("\xef\xbb\xbf")

// next returns the next non-empty line, blanks trimmed, valid until the
// next call, and its number from 1; tooLong reports a line longer than
// MaxLine, skipped.
func (lr *lineReader) next() (line []byte, num int, tooLong, ok bool) {
	for lr.err == nil {
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
		if len(trimEOL(b)) > MaxLine {
			return nil, lr.n, true, true
		}
		if s := bytes.TrimSpace(b); len(s) > 0 {
			return s, lr.n, false, true
		}
	}
	return nil, 0, false, false
}

// trimEOL cuts the \r and \n bytes at the end of b.
func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
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
	// bytesMul, when set, stands for the engine's bytes API (mul's, not
	// base's): the benchmarks' fake engine, which fills results without
	// computing them.
	bytesMul func(ctx context.Context, out []byte, status []ecmul.Status, scalars, points []byte, progress func(done, total int)) error
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
	text      []byte    // the input as read, the lines' blanks and endings included
	spans     [][2]int  // where each line's item is in text; {-1, -1}: too long
	flat      flatItems // the valid items of the hex and raw formats, for the bytes API
	err       error     // the batch as a whole failed
	done      chan struct{}
	out       [][]byte // the output lines, one buffer per part
	errOut    [][]byte // the raw format's error messages, one buffer per part
	formatted bool     // out holds the chunk's output
	failed    int
}

func (ch *mulChunk) reset() {
	ch.flat.scalars, ch.flat.points = ch.flat.scalars[:0], ch.flat.points[:0]
	ch.text, ch.spans = ch.text[:0], ch.spans[:0]
	clear(ch.errs)
	clear(ch.pts)
	clear(ch.ks)
	ch.pts, ch.ks = ch.pts[:0], ch.ks[:0]
	ch.lines, ch.nums, ch.errs, ch.valid, ch.err, ch.formatted, ch.failed = 0, ch.nums[:0], ch.errs[:0], ch.valid[:0], nil, false, 0
}

// pauseFlush is how long the reading stage waits for more input, after
// the last item came, before it hands on a chunk that is not full: the answers to a paused stream come within
// about this much more than their computing.
var pauseFlush = 2 * time.Millisecond

// parse parses every line of ch on all cores into its items, errors and
// list of valid lines; the text stays until the chunk is reset, for the
// reasons of refused points.
func (ch *mulChunk) parse(cd *codec) {
	if cd.usesBytes() {
		ch.parseBytes(cd)
		return
	}
	n := ch.lines
	ch.errs = append(ch.errs[:0], make([]error, n)...)
	pts, ks := make([]*ecmul.Point, n), make([]*big.Int, n)
	par.DoAllCores(n, func(_, a, z int) {
		for i := a; i < z; i++ {
			if sp := ch.spans[i]; sp[0] < 0 {
				ch.errs[i] = fmt.Errorf("longer than %d bytes", MaxLine)
			} else {
				pts[i], ks[i], ch.errs[i] = cd.parse(string(ch.text[sp[0]:sp[1]]))
			}
			if ch.errs[i] != nil {
				ch.errs[i] = &lineError{ch.nums[i], ch.errs[i], cd.unit()}
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

// mulStream answers every line of in on out, in order. Three stages run
// at once: reading a chunk (read: the input read straight into its text,
// split into lines), computing up to opts.inflight chunks (each parsed,
// computed and formatted, the parsing and formatting on all cores), and
// writing the chunk before them; at most inflight+2 chunks exist.
func mulStream(ctx context.Context, eng *ecmul.Engine, in io.Reader, out io.Writer, opts mulOptions) (mulSummary, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := newMulPipeline(ctx, eng, opts)
	go p.read(in)
	go p.compute()
	return p.write(out)
}

// mulPipeline is what the stages of mulStream share: the chunks and line
// batches they hand each other, and the channels they hand them on.
type mulPipeline struct {
	ctx      context.Context // ends every stage
	eng      *ecmul.Engine
	opts     mulOptions
	cd       *codec // &opts.codec
	inflight int    // chunks computed at once, at least 1

	free     chan *mulChunk // chunks to fill; inflight+2 exist
	parsed   chan *mulChunk // chunks filled with lines, in order
	computed chan *mulChunk // chunks being computed or computed, in order
	// drained is set, before computed is closed, when compute ends with
	// the context still going: the reader came to the end of the input
	// (or to a read error) and every chunk it handed on is in computed.
	drained bool
	// readErr is why reading stopped, other than io.EOF. It is set before
	// parsed is closed, but a cancelled pipeline's writer may finish while
	// the reader still runs, so it is read and written under its own lock.
	readErr struct {
		sync.Mutex
		err error
	}
}

func newMulPipeline(ctx context.Context, eng *ecmul.Engine, opts mulOptions) *mulPipeline {
	inflight := max(opts.inflight, 1)
	p := &mulPipeline{
		ctx:      ctx,
		eng:      eng,
		opts:     opts,
		inflight: inflight,
		free:     make(chan *mulChunk, inflight+2),
		parsed:   make(chan *mulChunk),
		computed: make(chan *mulChunk, inflight),
	}
	p.cd = &p.opts.codec
	for range cap(p.free) {
		p.free <- &mulChunk{done: make(chan struct{}, 1)}
	}
	return p
}

// compute parses, computes and formats up to inflight chunks at once,
// handing them on in order; each chunk's done is sent when it is finished.
func (p *mulPipeline) compute() {
	ctx := p.ctx
	defer close(p.computed)
	sem := make(chan struct{}, p.inflight)
	defer func() { p.drained = ctx.Err() == nil }()
	for ch := range p.parsed {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		go func() {
			defer func() { <-sem; ch.done <- struct{}{} }()
			p.computeChunk(ch)
		}()
		select {
		case p.computed <- ch:
		case <-ctx.Done():
			return
		}
	}
}

// computeChunk parses ch, computes its valid items and formats its output,
// reporting progress as the engine does; ch.err is why the chunk failed as
// a whole, and ch.formatted is false when nothing of it was computed.
func (p *mulPipeline) computeChunk(ch *mulChunk) {
	cd := p.cd
	ch.parse(cd)
	reported := 0
	progress := func(done, _ int) {
		if p.opts.progress != nil {
			p.opts.progress(done - reported)
		}
		reported = done
	}
	if cd.usesBytes() {
		ch.err = p.computeBytes(&ch.flat, len(ch.valid), progress)
		if ch.err != nil && p.ctx.Err() != nil {
			ch.lines = answeredBytes(ch)
		}
		if ch.err == nil || !errors.Is(ch.err, ecmul.ErrBatchLayout) {
			formatBytesChunk(cd, ch)
		}
		return
	}
	res := make([]ecmul.Result, len(ch.pts))
	err := p.eng.ScalarMult(ecmul.WithProgress(p.ctx, progress), res, ch.ks, ch.pts)
	ch.err = err
	if errors.Is(err, ecmul.ErrBatchLayout) || errors.Is(err, ecmul.ErrClosed) && closedBefore(res, err) {
		return
	}
	if err != nil && p.ctx.Err() != nil {
		ch.lines = answered(ch, res, err)
	}
	formatChunk(cd, ch, res)
}

// closedBefore says whether the engine was closed before the batch, res,
// started: every item then carries err.
func closedBefore(res []ecmul.Result, err error) bool {
	for i := range res {
		if res[i].Err != err {
			return false
		}
	}
	return true
}

// answered is the number of lines at the start of ch that have their
// answer, when the batch of its items, res, ended with the context (err):
// the lines before its first item left without a result. Only they are
// written, so that the output of a stream stopped by its context is the
// start of its whole output.
func answered(ch *mulChunk, res []ecmul.Result, err error) int {
	for n, i := range ch.valid {
		if r := &res[n]; r.X == nil && !r.Infinity && errors.Is(r.Err, err) {
			return i
		}
	}
	return ch.lines
}

// answeredBytes is answered for a chunk computed through the bytes API:
// an item without a result has StatusNotComputed.
func answeredBytes(ch *mulChunk) int {
	for n, i := range ch.valid {
		if ch.flat.status[n] == ecmul.StatusNotComputed {
			return i
		}
	}
	return ch.lines
}

// write writes the computed chunks to out in order, flushing after each,
// and hands each chunk back to be filled again; every write to out ends
// where an item ends (ItemWriter). It stops at the first chunk that failed
// as a whole, after writing what of it was computed. When the context
// ends, it writes the chunks computed before, and the answered start of
// the one being computed, and returns the context's error.
func (p *mulPipeline) write(out io.Writer) (sum mulSummary, err error) {
	w := NewLineWriter(out)
	if p.cd.format == Raw {
		w = newRecordWriter(out, p.cd.pointSize())
	}
	for ch := range p.computed {
		<-ch.done
		if !ch.formatted {
			return sum, p.stopErr(ch.err) // nothing of the chunk was computed
		}
		for _, b := range ch.out {
			if _, err := w.Write(b); err != nil {
				return sum, err
			}
		}
		if p.opts.errOut != nil {
			for _, b := range ch.errOut {
				p.opts.errOut.Write(b)
			}
		}
		sum.items += ch.lines
		sum.failed += ch.failed
		if ch.err != nil {
			w.Flush()
			return sum, p.stopErr(ch.err)
		}
		if err := w.Flush(); err != nil {
			return sum, err
		}
		if p.opts.progress != nil {
			p.opts.progress(ch.lines - len(ch.valid)) // the lines refused by the parser
		}
		ch.reset()
		p.free <- ch
	}
	if !p.drained {
		w.Flush()
		return sum, p.ctx.Err()
	}
	p.readErr.Lock()
	readErr := p.readErr.err
	p.readErr.Unlock()
	if readErr != nil {
		return sum, readErr
	}
	return sum, w.Flush()
}

// stopErr is err, the error of a chunk that failed as a whole, or the
// context's error when the context has ended.
func (p *mulPipeline) stopErr(err error) error {
	if ctxErr := p.ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	return err
}

// formatChunk writes the output lines of a computed chunk into ch.out, on
// all cores, counts its failed items, and lets go of its points, scalars
// and results.
func formatChunk(cd *codec, ch *mulChunk, res []ecmul.Result) {
	for n, i := range ch.valid {
		if e := res[n].Err; e != nil {
			ch.errs[i] = &lineError{ch.nums[i], e, cd.unit()}
		}
	}
	b := par.BoundsAllCores(ch.lines)
	for len(ch.out) < len(b)-1 {
		ch.out = append(ch.out, nil)
	}
	ch.out = ch.out[:len(b)-1]
	for len(ch.errOut) < len(ch.out) {
		ch.errOut = append(ch.errOut, nil)
	}
	ch.errOut = ch.errOut[:len(ch.out)]
	failed := make([]int, len(ch.out))
	par.DoAllCores(ch.lines, func(p, lo, hi int) {
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
				if cd.format == Raw { // the reason goes to standard error
					msgs = append(append(append(append(msgs, cd.command()...), ": "...), OneLine(ch.errs[i].Error())...), '\n')
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

// OneLine is s with every carriage return and line feed replaced by a
// space: an error message kept on the single output line that answers an
// item.
func OneLine(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "\r", " "), "\n", " ") }

// fieldsOf splits a line on runs of spaces and tabs, the only separators
// the line formats allow.
func fieldsOf(line string) []string {
	return strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
}

// Options configure Mul.
type Options struct {
	Format   Format // of both input and output; "" is Hex
	XOnly    bool   // write only the x coordinate of each result
	Chunk    int    // items read and computed per batch; 0 is 65,536
	Inflight int    // batches computed at once; 0 is 1
	// ErrOut receives the raw format's reasons for failed items, one line
	// each ("ecmul mul: item N: REASON", "ecmul base: ..." with Base); nil
	// drops them.
	ErrOut io.Writer
	// Base makes every item's point the curve's generator G (k·G, through
	// Engine.ScalarBaseMultBytes), and the input the scalar alone:
	// SCALAR_HEX per line in the hex and sec1 formats, {"scalar":"HEX"} in
	// jsonl, records of L bytes in raw. The output is mul's. It is what
	// ecmul base runs.
	Base bool
	// Progress, when set, is called with each group of items answered.
	Progress func(items int)
}

// Summary counts what Mul answered.
type Summary struct {
	Items  int // every answered item, failed ones included
	Failed int
}

// DefaultChunk is the chunk of Options.Chunk 0.
const DefaultChunk = 1 << 16

// Mul answers every item of in on out, in input order: reading and parsing
// a chunk, computing up to Inflight chunks (each formatted as soon as it is
// computed) and writing the one before run at once, at most Inflight+2
// chunks exist, and output is flushed after every chunk. A chunk goes to
// the engine when it is full, when the input ends, or when no input has
// come for 2 ms, so a paused stream is answered at once. A bad item is
// answered with its error (its line number in the line formats) and the
// others are computed all the same; the error is non-nil only when the
// stream failed as a whole (reading, writing, the engine), after the
// chunks before it were written.
//
// Every write to out ends where an answer ends (a line, or a raw record),
// in writes of at most WriteSize bytes: a process stopped between two
// writes leaves whole answers. When ctx ends, Mul stops reading and
// computing, writes the answers it has (the chunks computed, then the
// answered lines at the start of the chunk being computed, so that the
// output is the start of the whole stream's) and returns ctx's error; a
// read that waits for input is left to its goroutine.
func Mul(ctx context.Context, eng *ecmul.Engine, in io.Reader, out io.Writer, o Options) (Summary, error) {
	if o.Format == "" {
		o.Format = Hex
	}
	if _, err := ParseFormat(string(o.Format)); err != nil {
		return Summary{}, err
	}
	if o.Chunk <= 0 {
		o.Chunk = DefaultChunk
	}
	opts := mulOptions{chunk: o.Chunk, inflight: max(o.Inflight, 1), codec: codec{c: CurveOf(eng.Curve()), format: o.Format, xOnly: o.XOnly, base: o.Base},
		errOut: o.ErrOut, progress: o.Progress}
	sum, err := mulStream(ctx, eng, in, out, opts)
	return Summary{Items: sum.items, Failed: sum.failed}, err
}

// ParseLine parses one input item of format f on curve c (a line, blanks
// around it trimmed, or a raw record), as Mul does before validating the
// point: the scalar is any non-negative value of up to 512 bits.
func ParseLine(c *curves.Curve, f Format, line string) (*ecmul.Point, *big.Int, error) {
	cd := codec{c: c, format: f}
	return cd.parse(line)
}

// CurveOf returns the implementation of c, nil for the zero Curve: the
// codec reads and writes points with it.
func CurveOf(c ecmul.Curve) *curves.Curve {
	k, err := curves.ByName(c.String())
	if err != nil {
		return nil
	}
	return k
}
