package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ladder"
)

// Status is the outcome of one item of ScalarMultBytes. Its zero value,
// StatusNotComputed, never means success: a status slice that a call did
// not fill reads as not computed.
type Status uint8

const (
	StatusNotComputed   Status = iota // no result: the call failed as a whole before this item got one (the zero value)
	StatusPoint                       // the result is an affine point, written in out's format
	StatusInfinity                    // the result is the point at infinity (k ≡ 0 mod n)
	StatusBadEncoding                 // the point's SEC1 encoding is malformed (ErrInvalidPoint)
	StatusBadCoordinate               // a coordinate is not below p (ErrInvalidPoint)
	StatusNotOnCurve                  // the point is not on the curve, or a compressed x has no point (ErrInvalidPoint)
	StatusInfinityInput               // the point given is the point at infinity, 0x00 or (0, 0) (ErrInvalidPoint)
	StatusResultCheck                 // the computed point failed its on-curve check: a fault
)

// statusErrs are the errors of the statuses that have one, in order.
var statusErrs = [...]error{
	StatusNotComputed:   errNotComputed,
	StatusBadEncoding:   curves.ErrEncoding,
	StatusBadCoordinate: curves.ErrCoordinateRange,
	StatusNotOnCurve:    curves.ErrNotOnCurve,
	StatusInfinityInput: curves.ErrInfinity,
	StatusResultCheck:   ladder.ErrResultCheck,
}

var errNotComputed = errors.New("not computed: the batch failed")

// Err returns the error of a failed item's status, or nil for StatusPoint
// and StatusInfinity: for a bad point one that matches ErrInvalidPoint
// (errors.Is), and says what is wrong.
func (s Status) Err() error {
	switch {
	case StatusBadEncoding <= s && s <= StatusInfinityInput:
		return pointError{statusErrs[s]}
	case int(s) < len(statusErrs):
		return statusErrs[s]
	}
	return fmt.Errorf("unknown status %d", s)
}

// String says what the status means: "point", "infinity", or its error's
// text.
func (s Status) String() string {
	switch s {
	case StatusPoint:
		return "point"
	case StatusInfinity:
		return "infinity"
	}
	return s.Err().Error()
}

// statusOf maps a point's decoding error to its status.
func statusOf(err error) Status {
	for s := StatusBadEncoding; s <= StatusInfinityInput; s++ {
		if errors.Is(err, statusErrs[s]) {
			return s
		}
	}
	return StatusBadEncoding
}

// bytesBatch is a ScalarMultBytes call's buffers and sizes.
type bytesBatch struct {
	count, size   int // items; the field's byte length L
	pointSize     int // of an input point: 1+2L or 1+L
	outPointBytes int // of a result: 1+2L (uncompressed), 1+L (compressed) or L (x alone)
	scalars       []byte
	points        []byte
	out           []byte
	status        []Status
	// The *big.Int path over the bytes path. On the host's conversions
	// and the item kernels, load, when set, writes item i's scalar and
	// point into scalars and points just before they are read, and store
	// takes item i's outcome from status and out just after it is written.
	// On the wire kernels, loadInto writes them straight into the chunk's
	// buffers and storeFrom takes the outcome and result bytes
	// (uncompressed) straight from them; scalars, points, out and status
	// are then not used.
	load, store func(i int)
	loadInto    func(i int, scalar, point []byte)
	storeFrom   func(i int, s Status, result []byte)
	// validPoints says the points were validated already (the *big.Int
	// path's Engine.validate), so preparing them skips the curve equation.
	validPoints bool
	// onePoint says points holds a single point, every item's
	// (ScalarBaseMultBytes: the generator).
	onePoint bool
	// comb is the comb a onePoint batch runs on where the backend has
	// combs: ladder.Comb, or ladder.CombVarTime for public scalars
	// (ScalarBaseMultVarTimeBytes).
	comb ladder.Kind
}

func (b *bytesBatch) scalar(i int) []byte { return b.scalars[i*b.size : (i+1)*b.size] }
func (b *bytesBatch) point(i int) []byte {
	if b.onePoint {
		return b.points[:b.pointSize]
	}
	return b.points[i*b.pointSize : (i+1)*b.pointSize]
}
func (b *bytesBatch) result(i int) []byte {
	return b.out[i*b.outPointBytes : (i+1)*b.outPointBytes]
}

// put writes item i's outcome, for StatusPoint in out's format (the SEC1
// point 04‖x‖y, the compressed SEC1 point 02‖x or 03‖x by y's parity, or x
// alone), zero bytes otherwise (xy may then be nil). With xy given, which
// of the two is written is chosen by a mask, not a branch: whether a
// result is the point at infinity, or y's parity, does not show in the
// time put takes. The format is the call's, not the item's.
func (b *bytesBatch) put(i int, s Status, xy []byte) {
	r := b.result(i)
	if xy == nil {
		clear(r)
		b.status[i] = s
		return
	}
	d := uint8(s ^ StatusPoint)
	keep := uint8((uint16(d)|-uint16(d))>>15) - 1 // 0xff for StatusPoint, else 0
	L := b.size
	switch len(r) {
	case 1 + 2*L:
		r[0] = 4 & keep
		r = r[1:]
	case 1 + L:
		r[0] = (2 | xy[2*L-1]&1) & keep
		r = r[1:]
	}
	maskedCopy(r, xy[:len(r)], keep)
	b.status[i] = s
}

// maskedCopy sets dst to src & mask, byte for byte, eight bytes at a time.
func maskedCopy(dst, src []byte, mask uint8) {
	m := uint64(mask) * 0x0101010101010101
	j := 0
	for ; j+8 <= len(dst); j += 8 {
		binary.LittleEndian.PutUint64(dst[j:], binary.LittleEndian.Uint64(src[j:])&m)
	}
	for ; j < len(dst); j++ {
		dst[j] = src[j] & mask
	}
}

// loadItem runs b.load for item i, if b has one.
func (b *bytesBatch) loadItem(i int) {
	if b.load != nil {
		b.load(i)
	}
}

// newBytesBatch checks the buffers' lengths against one another.
func newBytesBatch(c *curves.Curve, out []byte, status []Status, scalars, points []byte) (*bytesBatch, error) {
	b, err := newScalarBatch(c, scalars)
	if err != nil {
		return nil, err
	}
	n, L := b.count, b.size
	b.points = points
	switch len(points) {
	case n * (1 + 2*L):
		b.pointSize = 1 + 2*L
	case n * (1 + L):
		b.pointSize = 1 + L
	default:
		return nil, fmt.Errorf("%w: %d scalars need %d bytes of uncompressed or %d of compressed points, not %d",
			ErrBatchLayout, n, n*(1+2*L), n*(1+L), len(points))
	}
	if err := b.setResults(out, status); err != nil {
		return nil, err
	}
	return b, nil
}

// newBaseBatch is newBytesBatch with one point for every item: g, the
// curve's generator as an uncompressed SEC1 point, valid by construction.
func newBaseBatch(c *curves.Curve, out []byte, status []Status, scalars, g []byte) (*bytesBatch, error) {
	b, err := newScalarBatch(c, scalars)
	if err != nil {
		return nil, err
	}
	b.points, b.pointSize, b.onePoint, b.validPoints, b.comb = g, len(g), true, true, ladder.Comb
	if err := b.setResults(out, status); err != nil {
		return nil, err
	}
	return b, nil
}

// newScalarBatch checks that scalars is a whole number of scalars, and
// returns a batch of that many items.
func newScalarBatch(c *curves.Curve, scalars []byte) (*bytesBatch, error) {
	L := c.ByteLen()
	if len(scalars)%L != 0 {
		return nil, fmt.Errorf("%w: %d bytes of scalars are not a whole number of %d-byte scalars", ErrBatchLayout, len(scalars), L)
	}
	return &bytesBatch{count: len(scalars) / L, size: L, scalars: scalars}, nil
}

// setResults checks out's and status's lengths against the batch's count,
// and takes them: out's length picks the results' format.
func (b *bytesBatch) setResults(out []byte, status []Status) error {
	n, L := b.count, b.size
	switch len(out) {
	case n * (1 + 2*L):
		b.outPointBytes = 1 + 2*L
	case n * (1 + L):
		b.outPointBytes = 1 + L
	case n * L:
		b.outPointBytes = L
	default:
		return fmt.Errorf("%w: %d results take %d bytes of out (uncompressed), %d (compressed) or %d (x alone), not %d",
			ErrBatchLayout, n, n*(1+2*L), n*(1+L), n*L, len(out))
	}
	if len(status) != n {
		return fmt.Errorf("%w: %d results take %d statuses, not %d", ErrBatchLayout, n, n, len(status))
	}
	b.out, b.status = out, status
	return nil
}

// ScalarMultBytes is the root package's ScalarMultBytes, whose doc says
// what the buffers hold; progress goes to the function ctx carries.
func (e *Engine) ScalarMultBytes(ctx context.Context, out []byte, status []Status, scalars, points []byte) error {
	return e.bytesCall(ctx, status, progressOf(ctx), func() (*bytesBatch, error) {
		return newBytesBatch(e.curve, out, status, scalars, points)
	})
}

// ScalarBaseMultBytes is ScalarMultBytes with G, the curve's generator, as
// every item's point, on the fixed-base comb where the backend has one.
func (e *Engine) ScalarBaseMultBytes(ctx context.Context, out []byte, status []Status, scalars []byte) error {
	return e.bytesCall(ctx, status, progressOf(ctx), func() (*bytesBatch, error) {
		return newBaseBatch(e.curve, out, status, scalars, e.base)
	})
}

// ScalarBaseMultVarTimeBytes is ScalarBaseMultBytes for public scalars
// only, on the variable-time comb where the backend has one.
func (e *Engine) ScalarBaseMultVarTimeBytes(ctx context.Context, out []byte, status []Status, scalars []byte) error {
	return e.bytesCall(ctx, status, progressOf(ctx), func() (*bytesBatch, error) {
		b, err := newBaseBatch(e.curve, out, status, scalars, e.base)
		if b != nil {
			b.comb = ladder.CombVarTime
		}
		return b, err
	})
}

// bytesCall runs the bytes batch that batch checks and returns, on the
// runner's own bytes path or through the *big.Int path. Every element of
// status is StatusNotComputed until its item gets an outcome.
func (e *Engine) bytesCall(ctx context.Context, status []Status, progress func(done, total int), batch func() (*bytesBatch, error)) error {
	clear(status) // StatusNotComputed until an item gets its outcome
	if err := e.usable(); err != nil {
		return err
	}
	b, err := batch()
	if err != nil {
		return err
	}
	if b.count == 0 {
		return nil
	}
	ctx, release := e.batchContext(ctx)
	defer release()
	rep := newReporter(progress, b.count)
	if br, ok := e.run.(bytesRunner); ok {
		err = br.runBytes(ctx, b, rep.add)
	} else {
		err = e.bytesThroughBig(ctx, b, rep.add)
	}
	return e.batchErr(err)
}

// baseRunner is a runner with its own way of computing k·G, the items'
// points all G (ScalarBaseMultBytes): the rns-cpu backend's combs, of
// kind comb.
type baseRunner interface {
	runBase(ctx context.Context, comb ladder.Kind, items []item, done func(int)) error
}

// bytesRunner is a runner with its own bytes path.
type bytesRunner interface {
	runBytes(ctx context.Context, b *bytesBatch, done func(int)) error
}

// bytesThroughBig runs a bytes batch through the *big.Int path: the CPU
// backends' way. The points are decoded, and so validated, once, on all
// workers, with a look at the context every validateBlock items, as
// ScalarMult validates; a batch of one point for every item decodes it
// once.
func (e *Engine) bytesThroughBig(ctx context.Context, b *bytesBatch, done func(int)) error {
	res := make([]Result, b.count)
	pts := make([]Point, b.count)
	valid := make([]bool, b.count)
	decode := e.curve.DecodeSEC1
	if b.onePoint {
		p, err := decode(b.point(0))
		decode = func([]byte) (*curves.Point, error) { return p, err }
	}
	err := e.forItems(ctx, b.count, func(i int) {
		p, err := decode(b.point(i))
		if err != nil {
			b.put(i, statusOf(err), nil)
			return
		}
		pts[i], valid[i] = Point{X: p.X, Y: p.Y}, true
	})
	if err != nil {
		return err
	}
	items := make([]item, 0, b.count)
	idx := make([]int, 0, b.count)
	for i := range b.count {
		if valid[i] {
			k := new(big.Int).SetBytes(b.scalar(i))
			items = append(items, item{x: pts[i].X, y: pts[i].Y, k: k, res: &res[i]})
			idx = append(idx, i)
		}
	}
	done(b.count - len(items))
	if br, ok := e.run.(baseRunner); ok && b.onePoint {
		err = br.runBase(ctx, b.comb, items, done)
	} else {
		err = e.run.run(ctx, items, done)
	}
	xy := make([]byte, 2*b.size)
	for _, i := range idx {
		r := &res[i]
		switch {
		case r.Err != nil:
			b.put(i, StatusResultCheck, nil)
		case r.Infinity:
			b.put(i, StatusInfinity, nil)
		case r.X != nil:
			r.X.FillBytes(xy[:b.size])
			r.Y.FillBytes(xy[b.size:])
			b.put(i, StatusPoint, xy)
		}
	}
	return err
}
