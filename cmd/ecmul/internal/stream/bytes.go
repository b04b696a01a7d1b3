package stream

import (
	"bytes"
	"fmt"
	"math/big"
	"slices"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/hexcode"
	"github.com/rnsec/ecmul/internal/par"
)

// The hex and raw formats go through Engine.ScalarMultBytes: each chunk's
// valid items are laid out as fixed-width scalars and uncompressed SEC1
// points, with no allocation per item. Every format of base goes through
// Engine.ScalarBaseMultBytes, with the scalars alone.

// usesBytes reports whether a format's chunks go through the bytes API.
func (cd *codec) usesBytes() bool { return cd.base || cd.format == Raw || cd.format == Hex }

// flatItems are a chunk's valid items as Engine.ScalarMultBytes takes them,
// and its results.
type flatItems struct {
	scalars, points, out []byte
	status               []ecmul.Status
}

// parseBytes parses ch's lines (or records) into ch.flat on all cores, each
// failed one's error (with its number) into ch.errs, then keeps the valid
// ones, in order: all of them, in place, when none failed, as in a long
// stream of good items, so that nothing but the parsing runs per item.
func (ch *mulChunk) parseBytes(cd *codec) {
	n, L := ch.lines, cd.c.ByteLen()
	P := 1 + 2*L // of a point; none for base
	if cd.base {
		P = 0
	}
	ch.flat.scalars = resize(ch.flat.scalars, n*L)
	ch.flat.points = resize(ch.flat.points, n*P)
	ch.errs = resizeTo(ch.errs, n) // every element is set below
	ch.valid = resizeTo(ch.valid, n)
	failed := make([]int, len(par.BoundsAllCores(n))-1)
	par.DoAllCores(n, func(part, a, z int) {
		for i := a; i < z; i++ {
			sc, pt := ch.flat.scalars[i*L:(i+1)*L], ch.flat.points[i*P:(i+1)*P]
			var err error
			switch sp := ch.spans[i]; {
			case sp[0] < 0:
				err = fmt.Errorf("longer than %d bytes", MaxLine)
			case cd.base:
				err = cd.parseBaseInto(sc, ch.text[sp[0]:sp[1]])
			default:
				err = cd.parseInto(sc, pt, ch.text[sp[0]:sp[1]])
			}
			if err != nil {
				err = &lineError{ch.nums[i], err, cd.unit()}
				failed[part]++
			}
			ch.errs[i], ch.valid[i] = err, i
		}
	})
	for _, f := range failed {
		if f > 0 {
			ch.keepValid(L, P)
			return
		}
	}
}

// keepValid moves the valid items of ch.flat to its front, in order, and
// lists them in ch.valid.
func (ch *mulChunk) keepValid(L, P int) {
	ch.valid = ch.valid[:0]
	k := 0
	for i := range ch.lines {
		if ch.errs[i] != nil {
			continue
		}
		ch.valid = append(ch.valid, i)
		if k < i {
			copy(ch.flat.scalars[k*L:], ch.flat.scalars[i*L:(i+1)*L])
			copy(ch.flat.points[k*P:], ch.flat.points[i*P:(i+1)*P])
		}
		k++
	}
	ch.flat.scalars, ch.flat.points = ch.flat.scalars[:k*L], ch.flat.points[:k*P]
}

// resizeTo is s with length n, its elements kept up to the old length and
// undefined past it.
func resizeTo[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// parseBaseInto reads one item of base, the scalar alone, into L bytes: a
// raw record of L bytes, a line of one hex field (hex and sec1), or
// {"scalar":"HEX"} (jsonl). The hex is decoded, and reduced mod n, as
// parseInto decodes a hex line's scalar.
func (cd *codec) parseBaseInto(scalar, text []byte) error {
	switch cd.format {
	case Raw:
		if len(text) != cd.recordSize() {
			return fmt.Errorf("a partial record of %d bytes at the end of the input (want %d)", len(text), cd.recordSize())
		}
		copy(scalar, text)
		return nil
	case JSONL:
		vals, err := jsonStrings(string(text), jsonItemKeys[:1])
		if err != nil {
			return err
		}
		text = []byte(vals[0])
	default:
		if bytes.ContainsAny(text, " \t") {
			return fmt.Errorf("want 1 field (SCALAR_HEX), got %d", len(fieldsOf(string(text))))
		}
	}
	if cd.decodeScalar(scalar, text) {
		return nil
	}
	if _, err := ParseScalarHex(string(text)); err != nil {
		return err
	}
	return fmt.Errorf("a scalar the hex parser reads but the bytes path does not: %q", text)
}

func resize(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// parseInto reads one hex line or raw record into a scalar of L bytes and
// an uncompressed SEC1 point. A hex line's scalar, in every spelling the
// format accepts (a 0x prefix, leading zeros, up to 128 digits), is decoded
// and reduced mod n without a branch or an address that depends on its
// digits (decodeScalar); its coordinates are public, and take the
// *big.Int parser when they are not plain fields of at most 2L digits.
// The errors are the *big.Int parser's, which the other formats share.
func (cd *codec) parseInto(scalar, point, text []byte) error {
	L := cd.c.ByteLen()
	point[0] = 4
	if cd.format == Raw {
		if len(text) != cd.recordSize() {
			return fmt.Errorf("a partial record of %d bytes at the end of the input (want %d)", len(text), cd.recordSize())
		}
		copy(scalar, text[:L])
		copy(point[1:], text[L:])
		return nil
	}
	decode := func(f [3][]byte) bool {
		return cd.decodeScalar(scalar, f[0]) && hexcode.DecodeInto(point[1:1+L], f[1]) && hexcode.DecodeInto(point[1+L:], f[2])
	}
	if f, ok := paddedFields(text, L); ok && decode(f) {
		return nil
	}
	if f, ok := spaceFields(text); ok && decode(f) {
		return nil
	}
	f, ok := threeFields(text)
	if !ok {
		return cd.parseError(text) // the field count's
	}
	if !cd.decodeScalar(scalar, f[0]) {
		if _, err := ParseScalarHex(string(f[0])); err != nil {
			return err
		}
		return cd.parseError(text)
	}
	for j, name := range [2]string{"x", "y"} {
		dst := point[1+j*L : 1+(j+1)*L]
		if hexcode.DecodeInto(dst, f[1+j]) {
			continue
		}
		v, err := cd.c.ParseHexCoordinate(string(f[1+j]))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		v.FillBytes(dst) // below p
	}
	return nil
}

// parseError is the *big.Int parser's error for a line parseInto refuses.
func (cd *codec) parseError(text []byte) error {
	if _, _, err := cd.parse(string(text)); err != nil {
		return err
	}
	return fmt.Errorf("a line the hex parser reads but the bytes path does not: %q", text)
}

// decodeScalar decodes a hex scalar field, in any spelling ParseScalarHex
// accepts (an optional 0x or 0X prefix, leading zeros, up to 512 bits),
// into L bytes, reduced mod n when it has more than 2L digits, and reports
// whether it is such a field. Whether there is a prefix is found without a
// branch on the digits; after it, only the field's length and whether it
// is hex decide a branch (package hexcode, curves.Curve.ReduceScalar).
func (cd *codec) decodeScalar(dst, field []byte) bool {
	digits := hexcode.TrimPrefix(field)
	if len(digits) <= 2*len(dst) {
		return hexcode.DecodeInto(dst, digits)
	}
	var wide [curves.MaxScalarBytes]byte
	return hexcode.DecodePadded(wide[:], digits, maxScalarText) && cd.c.ReduceScalar(dst, wide[:]) == nil
}

// maxScalarText is the longest scalar field ParseScalarHex reads after
// its prefix: 512 characters, leading zeros included.
const maxScalarText = MaxScalarBits

// paddedFields splits the line gen writes, three fields of 2·L digits and
// two single spaces, by its length alone. A space or tab inside a field it
// returns fails the hex decoding, so whatever it accepts spaceFields splits
// the same way.
func paddedFields(line []byte, L int) (f [3][]byte, ok bool) {
	w := 2 * L
	if len(line) != 3*w+2 || line[w] != ' ' || line[2*w+1] != ' ' {
		return f, false
	}
	return [3][]byte{line[:w], line[w+1 : 2*w+1], line[2*w+2:]}, true
}

// spaceFields splits the usual line, three fields and two single spaces,
// with the vectorised byte search (threeFields, a byte at a time, takes
// the rest). A tab inside a field it returns fails the hex decoding, so
// whatever it accepts threeFields splits the same way.
func spaceFields(line []byte) (f [3][]byte, ok bool) {
	i := bytes.IndexByte(line, ' ')
	if i <= 0 {
		return f, false
	}
	j := bytes.IndexByte(line[i+1:], ' ')
	if j <= 0 {
		return f, false
	}
	j += i + 1
	if j+1 == len(line) || bytes.IndexByte(line[j+1:], ' ') >= 0 {
		return f, false
	}
	return [3][]byte{line[:i], line[i+1 : j], line[j+1:]}, true
}

// threeFields splits a line into exactly three fields separated by spaces
// or tabs, without allocating.
func threeFields(line []byte) (f [3][]byte, ok bool) {
	n := 0
	for i := 0; i < len(line); {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == len(line) {
			break
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		if n == 3 {
			return f, false
		}
		f[n], n, i = line[i:j], n+1, j
	}
	return f, n == 3
}

// computeBytes runs a chunk's n valid items through the bytes API: k·G for
// base.
func (p *mulPipeline) computeBytes(r *flatItems, n int, progress func(done, total int)) error {
	size := 1 + 2*p.cd.c.ByteLen()
	r.out = resize(r.out, n*size)
	if cap(r.status) < n {
		r.status = make([]ecmul.Status, n)
	}
	r.status = r.status[:n]
	switch {
	case p.cd.base:
		return p.eng.ScalarBaseMultBytes(ecmul.WithProgress(p.ctx, progress), r.out, r.status, r.scalars)
	case p.opts.bytesMul != nil:
		return p.opts.bytesMul(p.ctx, r.out, r.status, r.scalars, r.points, progress)
	}
	return p.eng.ScalarMultBytes(ecmul.WithProgress(p.ctx, progress), r.out, r.status, r.scalars, r.points)
}

// formatBytesChunk writes a computed chunk's output, on all cores: raw
// records, or hex lines; a failed item's reason goes to standard error
// (raw) or its line (hex). A point the engine refused is parsed again by
// the *big.Int parser and validated, so its reason reads as in the other
// formats.
func formatBytesChunk(cd *codec, ch *mulChunk) {
	b := par.BoundsAllCores(ch.lines)
	ch.out = resizeBufs(ch.out, len(b)-1)
	ch.errOut = resizeBufs(ch.errOut, len(b)-1)
	failed := make([]int, len(ch.out))
	size, pointSize := 1+2*cd.c.ByteLen(), cd.pointSize()
	allValid := len(ch.valid) == ch.lines
	par.DoAllCores(ch.lines, func(p, lo, hi int) {
		buf, msgs := slices.Grow(ch.out[p][:0], (hi-lo)*pointSize), ch.errOut[p][:0]
		n := lo
		if !allValid {
			n, _ = slices.BinarySearch(ch.valid, lo)
		}
		for i := lo; i < hi; i++ {
			var st ecmul.Status
			var xy []byte
			if ch.errs[i] == nil {
				for ch.valid[n] != i {
					n++
				}
				st, xy = ch.flat.status[n], ch.flat.out[n*size+1:(n+1)*size]
				if at := len(buf); st == ecmul.StatusPoint && cap(buf)-at >= pointSize && cd.putPoint(buf[at:at+pointSize], xy) {
					buf = buf[:at+pointSize]
					continue
				}
				if st != ecmul.StatusPoint && st != ecmul.StatusInfinity {
					ch.errs[i] = &lineError{ch.nums[i], cd.reason(ch, i, st), cd.unit()}
				}
			}
			if ch.errs[i] != nil {
				failed[p]++
				if cd.format == Raw {
					msgs = append(append(append(append(msgs, cd.command()...), ": "...), OneLine(ch.errs[i].Error())...), '\n')
				}
				buf = cd.appendBytesResult(buf, ecmul.StatusNotComputed, nil, ch.errs[i])
				continue
			}
			buf = cd.appendBytesResult(buf, st, xy, nil)
		}
		ch.out[p], ch.errOut[p] = buf, msgs
	})
	for _, f := range failed {
		ch.failed += f
	}
	ch.formatted = true
}

// pointSize is the length of a point's output, as appendBytesResult
// appends it.
func (cd *codec) pointSize() int {
	L, xy := cd.c.ByteLen(), 2
	if cd.xOnly {
		xy = 1
	}
	switch cd.format {
	case Raw:
		return 1 + xy*L
	case JSONL: // {"x":"X","y":"Y"}
		return len(`{"x":""}`) + 2*L + (xy-1)*(len(`,"y":""`)+2*L) + 1
	case SEC1:
		if !cd.xOnly {
			return len("04") + 4*L + 1
		}
	}
	return xy*2*L + xy // the hex digits, then a space between x and y, and \n
}

// putPoint writes the output of a point, from xy (x ‖ y), into dst, of
// exactly its length, as appendBytesResult appends it, and reports whether
// it did: it does for the hex and raw formats, the ones of the bytes API's
// long streams, with no check nor allocation per item.
func (cd *codec) putPoint(dst, xy []byte) bool {
	L := cd.c.ByteLen()
	switch {
	case cd.format == Raw:
		dst[0] = RawPoint
		copy(dst[1:], xy)
	case cd.format != Hex:
		return false
	case cd.xOnly:
		hexcode.Append(dst[:0], xy[:L])
		dst[2*L] = '\n'
	default:
		hexcode.Append(dst[:0], xy[:L])
		dst[2*L] = ' '
		hexcode.Append(dst[2*L+1:2*L+1], xy[L:2*L])
		dst[4*L+1] = '\n'
	}
	return true
}

func resizeBufs(b [][]byte, n int) [][]byte {
	for len(b) < n {
		b = append(b, nil)
	}
	return b[:n]
}

// reason is why item i of ch failed with status st. A refused point is
// parsed again by the *big.Int parser (hex) or read from its record (raw)
// and validated by Curve.Validate, so that its reason reads as in the
// other formats.
func (cd *codec) reason(ch *mulChunk, i int, st ecmul.Status) error {
	sp := ch.spans[i]
	if cd.base || st == ecmul.StatusResultCheck || st == ecmul.StatusNotComputed || sp[0] < 0 {
		return st.Err()
	}
	text := ch.text[sp[0]:sp[1]]
	var x, y *big.Int
	if cd.format == Raw {
		L := cd.c.ByteLen()
		x, y = new(big.Int).SetBytes(text[L:2*L]), new(big.Int).SetBytes(text[2*L:])
	} else {
		p, _, err := cd.parse(string(text))
		if err != nil {
			return err
		}
		x, y = p.X, p.Y
	}
	if err := cd.c.Validate(x, y); err != nil {
		return err
	}
	return st.Err()
}

// appendBytesResult appends one item's output: a raw record (status ‖ x ‖
// y, or status ‖ x) or a line of its format, from xy (x ‖ y) when st is
// StatusPoint: every format's results are written here.
func (cd *codec) appendBytesResult(dst []byte, st ecmul.Status, xy []byte, err error) []byte {
	L := cd.c.ByteLen()
	if cd.format == Raw {
		size := 1 + L
		if !cd.xOnly {
			size += L
		}
		at := len(dst)
		dst = append(dst, make([]byte, size)...)
		rec := dst[at:]
		switch {
		case err != nil:
			rec[0] = RawError
		case st == ecmul.StatusPoint:
			rec[0] = RawPoint
			copy(rec[1:], xy[:size-1])
		default:
			rec[0] = RawInfinity
		}
		return dst
	}
	isJSON := cd.format == JSONL
	switch {
	case err != nil:
		msg := OneLine(err.Error())
		if isJSON {
			b, _ := jsonMarshal(map[string]string{"error": msg})
			dst = append(dst, b...)
		} else {
			dst = append(append(dst, "error: "...), msg...)
		}
	case st != ecmul.StatusPoint:
		if isJSON {
			dst = append(dst, `{"infinity":true}`...)
		} else {
			dst = append(dst, "infinity"...)
		}
	case isJSON:
		dst = hexcode.Append(append(dst, `{"x":"`...), xy[:L])
		if !cd.xOnly {
			dst = hexcode.Append(append(dst, `","y":"`...), xy[L:])
		}
		dst = append(dst, `"}`...)
	case cd.xOnly:
		dst = hexcode.Append(dst, xy[:L])
	case cd.format == SEC1:
		dst = hexcode.Append(hexcode.Append(append(dst, "04"...), xy[:L]), xy[L:])
	default:
		dst = hexcode.Append(append(hexcode.Append(dst, xy[:L]), ' '), xy[L:])
	}
	return append(dst, '\n')
}
