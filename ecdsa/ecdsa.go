// Package ecdsa signs and verifies batches of ECDSA signatures (SEC 1 v2,
// §4.1.3 and §4.1.4) on an ecmul.Engine of P-224, P-256 or secp256k1, on
// whatever backend the Engine was made with (gpu, rns-cpu or cpu).
//
// Sign derives each item's nonce k on the host (RFC 6979, deterministic
// unless hedged), computes k·G through the Engine's constant-time
// ScalarBaseMultBytes, and finishes s = k⁻¹(e + r·d) mod n on the host in
// constant time; secp256k1's signatures get a low s by default, as
// libsecp256k1's do.
//
//	sigs := make([]byte, len(digests)*2*eng.Curve().ByteLen())
//	errs := make([]error, len(digests))
//	err := ecdsa.Sign(ctx, eng, sigs, errs, digests, keys, ecdsa.SignOptions{})
//	// err: the batch failed as a whole; otherwise errs[i] == nil for each
//	// item signed, its signature r‖s in sigs
//
// Verify computes u1·G of the items of a batch on the variable-time comb
// (on the gpu and rns-cpu backends: u1 is public). On the gpu backend the
// ladder computes u2·Q and the verify kernel adds u1·G to it and compares
// x(R) with r, in projective form: the host copies each item's u1, u2, key
// and r up and reads one outcome an item, and u1·G goes from the comb to
// the verify kernel without leaving the device, in the same chunks (a
// step of compressed keys, whose keys the host decodes itself, or of the
// smallest batches takes u1·G from ScalarBaseMultVarTimeBytes first); on
// the other backends u1·G comes from ScalarBaseMultVarTimeBytes and u2·Q
// from ScalarMultBytes, the two calls side by side, and the host adds the
// two points of each item. A batch runs in steps of at most 2^18 items for each GPU of
// the Engine (one on the other backends), three of them on the Engine at
// a time, so that it does not drain between steps; the host prepares and
// finishes steps while the Engine computes others. A batch of at least
// four times its first step starts with a step of 2^15 items (2^14 a GPU
// on more than two GPUs) and ends with one, the steps between doubling up
// to the most and halving back, so that little host work comes before the
// Engine's first step or after its last. The host's arithmetic (s⁻¹, u1
// and u2 mod n; x(u1·G + u2·Q) against r mod p) is four-limb Montgomery
// arithmetic without math/big, and takes one inversion mod n per chunk of
// items (Montgomery's trick) and none mod p: x of the sum is compared in
// projective form.
// Signatures, digests and keys are public: the host's arithmetic runs in
// variable time, and the ladder's constant time is not needed here.
//
//	verdicts := make([]ecdsa.Verdict, len(digests))
//	err := ecdsa.Verify(ctx, eng, verdicts, digests, sigs, keys)
//	// err: the batch failed as a whole; otherwise verdicts[i] == ecdsa.Valid
//	// for each item whose signature verifies
package ecdsa

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/engine"
	"github.com/rnsec/ecmul/internal/par"
	"github.com/rnsec/ecmul/internal/reuse"
)

// Verdict is the outcome of one item of Verify. Its zero value,
// NotVerified, never means valid: a verdict slice that a call did not fill
// reads as not verified.
type Verdict uint8

const (
	NotVerified      Verdict = iota // no verdict: the call failed as a whole (the zero value)
	Valid                           // the signature verifies under the key
	Invalid                         // it does not: r or s outside [1, n−1], R = u1·G + u2·Q at infinity, or x(R) mod n ≠ r (ErrInvalidSignature)
	KeyBadEncoding                  // the key's SEC1 encoding is malformed (ecmul.ErrInvalidPoint)
	KeyBadCoordinate                // a coordinate of the key is not below p (ecmul.ErrInvalidPoint)
	KeyNotOnCurve                   // the key is not on the curve, or a compressed x has no point (ecmul.ErrInvalidPoint)
	KeyInfinity                     // the key is the point at infinity, 0x00 or (0, 0) (ecmul.ErrInvalidPoint)
	Fault                           // the engine's result for this item failed its on-curve check
)

// ErrInvalidSignature is matched by the error of Invalid, and by every
// error of ParseDER.
var ErrInvalidSignature = errors.New("ecdsa: invalid signature")

var errNotVerified = errors.New("ecdsa: not verified: the batch failed")

// keyStatus is the engine's status behind each Key verdict.
var keyStatus = map[Verdict]ecmul.Status{
	KeyBadEncoding:   ecmul.StatusBadEncoding,
	KeyBadCoordinate: ecmul.StatusBadCoordinate,
	KeyNotOnCurve:    ecmul.StatusNotOnCurve,
	KeyInfinity:      ecmul.StatusInfinityInput,
	Fault:            ecmul.StatusResultCheck,
}

// Err returns nil for Valid and otherwise the verdict's error: one that
// matches ErrInvalidSignature for Invalid, ecmul.ErrInvalidPoint for a bad
// key (saying what is wrong with it).
func (v Verdict) Err() error {
	switch v {
	case Valid:
		return nil
	case Invalid:
		return ErrInvalidSignature
	case NotVerified:
		return errNotVerified
	}
	if s, ok := keyStatus[v]; ok {
		if v == Fault {
			return fmt.Errorf("ecdsa: %w", s.Err())
		}
		return fmt.Errorf("ecdsa: public key: %w", s.Err())
	}
	return fmt.Errorf("ecdsa: unknown verdict %d", v)
}

// String says what the verdict means: "valid", "invalid", or its error's
// text.
func (v Verdict) String() string {
	switch v {
	case Valid:
		return "valid"
	case Invalid:
		return "invalid"
	}
	return v.Err().Error()
}

// verdictOf maps the engine's status of a key to its verdict, Valid for
// a key the engine took (keyStatus's inverse, without a map's iteration
// per item).
func verdictOf(s ecmul.Status) Verdict {
	switch s {
	case ecmul.StatusBadEncoding:
		return KeyBadEncoding
	case ecmul.StatusBadCoordinate:
		return KeyBadCoordinate
	case ecmul.StatusNotOnCurve:
		return KeyNotOnCurve
	case ecmul.StatusInfinityInput:
		return KeyInfinity
	case ecmul.StatusResultCheck:
		return Fault
	case ecmul.StatusNotComputed:
		return NotVerified
	}
	return Valid
}

// Verify verifies count = len(digests) ECDSA signatures with the engine e,
// following SEC 1 v2 §4.1.4, and writes one Verdict per item into
// verdicts. With L = e.Curve().ByteLen():
//
//   - digests[i] is the message's hash, an octet string of any length
//     (empty included), taken as an integer by its leftmost bits up to the
//     bit length of n, as crypto/ecdsa does;
//   - sigs holds count signatures r‖s, each of r and s L bytes, big-endian
//     (IEEE P1363; ParseDER converts a DER signature);
//   - keys holds count SEC1 public keys, all uncompressed (0x04‖x‖y, 1+2L
//     bytes each) or all compressed (0x02/0x03‖x, 1+L bytes each): the
//     length says which;
//   - verdicts must be exactly count long.
//
// A key is validated as ScalarMultBytes validates a point; a bad key gets
// its Key verdict whatever the signature. A signature with r or s outside
// [1, n−1] is Invalid, as is one whose R = u1·G + u2·Q is the point at
// infinity. A batch runs in steps of at most 2^18 items a GPU; on the gpu
// backend u1·G, u2·Q, the sums and their comparison with r are computed
// on the GPU, and on the others u1·G is computed by
// e.ScalarBaseMultVarTimeBytes beside u2·Q by e.ScalarMultBytes and the
// sums are taken on the host, beside the next steps' computation.
//
// The error is non-nil only when the call failed as a whole: buffer
// lengths that do not describe one batch (matching ecmul.ErrBatchLayout),
// the context's end, or the engine's own error (ecmul.ErrClosed, also for
// an Engine not made by New, a GPU fault: the first of the two calls'
// errors, which ends the other call); every verdict is then NotVerified.
// Verify does not modify its inputs.
func Verify(ctx context.Context, e *ecmul.Engine, verdicts []Verdict, digests [][]byte, sigs, keys []byte) error {
	err := verify(ctx, e, verdicts, digests, sigs, keys)
	if err != nil {
		clear(verdicts)
	}
	return err
}

// verify is Verify but for its verdicts on an error: a batch that
// succeeds writes each verdict in its step, with no pass over them all
// to hold up the first step.
func verify(ctx context.Context, e *ecmul.Engine, verdicts []Verdict, digests [][]byte, sigs, keys []byte) error {
	if ctx == nil {
		ctx = context.Background()
	}
	c, err := curves.ByName(e.Curve().String())
	if err != nil {
		// the engine's own error: no curve means no engine
		return e.ScalarMultBytes(ctx, nil, nil, nil, nil)
	}
	b, err := newBatch(c, verdicts, digests, sigs, keys)
	if err != nil {
		return err
	}
	return b.pipeline(ctx, e)
}

// subBatch is the most items of one step of Verify's pipeline for each
// GPU of the engine (one for the other backends): large enough that the
// engine's two calls of a step fill a GPU (2^18 items are about two chunks
// of the gpu backend's), small enough that a batch of millions holds few
// steps' buffers.
var subBatch = 1 << 18

// rampStep is the first and last step of a batch large enough for steps
// to grow from it and shrink back to it (stepSpans), for all the GPUs
// together, but at least half of it for each GPU where there are more
// than two: the host's prepare of the first step, before the GPUs have
// any work, and its finish of the last one, after they are done, are
// then a small step's. It is above the gpu backend's latency batches
// (16,384 items), which finish on the host. On two H200s a first step of
// 2^14 items a GPU took 0.6% off P-224's verification at 2^22 items
// against one of 2^15 a GPU, and 0.4% off P-256's
// (bench/h200x2/2026-11-30-lows).
var rampStep = 1 << 15

// stepSpans splits count items into the steps of Verify's pipeline
// (par.StepBounds) on gpus GPUs (1 for the other backends): at most
// subBatch items a GPU each, the first and last ones ramped from rampStep
// in all, or half of it a GPU where that is more, where count allows.
func stepSpans(count, gpus int) []span {
	b := par.StepBounds(count, max(rampStep, rampStep/2*gpus), subBatch*gpus)
	steps := make([]span, len(b)-1)
	for j := range steps {
		steps[j] = span{b[j], b[j+1]}
	}
	return steps
}

// overlapSteps marks the engine's calls of every step but the last as
// followed by the next steps' (engine.WithOverlap), whose chunks overlap
// the step's last ones; the last step's calls finish for the batch's
// latency. The calls of the last steps, as many as the step buffers, are
// marked as closing the batch (engine.WithClosing).
var overlapSteps = true

// stepsInFlight is how many steps of Verify's pipeline the engine holds
// while the host finishes the one before them: while it computes one, the
// next ones wait for its chunks, so that the GPU never drains between
// steps whatever the host is doing.
const stepsInFlight = 3

// pipeline computes every verdict in steps of at most subBatch items a GPU
// (par.Pipeline), in stepsInFlight + 1 step buffers reused step after
// step: the host prepares each step's scalars as soon as a buffer is free
// and finishes each step's verdicts, in order, while the engine computes
// the steps after it, taking a step's chunks as soon as the one before
// has taken its last ones, so that the GPU does not drain between steps.
// A batch of millions holds a few steps' scalars and points, not all of
// them, and writes to memory it has touched before. It returns the first
// error, after every computation it started has returned.
func (b *batch) pipeline(ctx context.Context, e *ecmul.Engine) error {
	b.takeKernel(e)
	return b.run(ctx, e, hostWork{prepare: b.prepare, finish: b.finishStep})
}

// hostWork is the host's part of a step of the pipeline: prepare writes
// the step's scalars before the engine takes them, finish reads the
// engine's results after.
type hostWork struct {
	prepare func(ctx context.Context, st span, scalars []byte) error
	finish  func(ctx context.Context, buf *stepBuffer, st span) error
}

// run is pipeline with the host's work given: a benchmark puts the
// engine's part alone against the whole.
func (b *batch) run(ctx context.Context, e *ecmul.Engine, host hostWork) error {
	steps := stepSpans(b.count, max(1, engine.Unwrap[*ecmul.Engine](e).GPUs()))
	largest := 0
	for _, st := range steps {
		largest = max(largest, st.hi-st.lo)
	}
	bufs := make([]*stepBuffer, min(stepsInFlight+1, len(steps)))
	for i := range bufs {
		bufs[i] = b.stepBuffer(largest)
		defer stepBuffers.Put(bufs[i])
	}
	return par.Pipeline(ctx, len(steps), len(bufs),
		func(ctx context.Context, j, s int) error { return host.prepare(ctx, steps[j], bufs[s].scalars) },
		func(ctx context.Context, j, s int) error {
			if overlapSteps && j < len(steps)-1 {
				ctx = engine.WithOverlap(ctx) // the next steps' calls follow
			}
			if j >= len(steps)-len(bufs) {
				ctx = engine.WithClosing(ctx) // among the steps the engine holds at the end
			}
			return b.compute(ctx, e, bufs[s], steps[j])
		},
		func(ctx context.Context, j, s int) error { return host.finish(ctx, bufs[s], steps[j]) })
}

// stepBuffer holds one step's scalars (prepare) and the engine's results
// for them (compute, finish): 2·m of each, for steps of up to m items.
type stepBuffer struct {
	scalars []byte
	out     []byte
	status  []ecmul.Status
	// on the verify kernel (batch.gpu): the statuses of u1·G as the engine
	// takes them, each key's status and each signature's judgement, m of
	// each
	u1G, keys []engine.Status
	valid     []bool
}

// stepBuffers keeps step buffers between calls of Verify: a batch of
// millions takes about 45 MB of them (P-256), which a program verifying
// batch after batch would otherwise allocate each time, and collect
// (package reuse says why not a sync.Pool).
var stepBuffers reuse.List[stepBuffer]

// stepBuffer returns a step buffer for steps of up to m items of b's
// curve, from stepBuffers where one there is large enough: its slices cut
// to length, their contents whatever the last step left (prepare and the
// engine write every byte a step reads).
func (b *batch) stepBuffer(m int) *stepBuffer {
	scalars, out := 2*m*b.L, 2*m*(1+2*b.L)
	if buf := stepBuffers.Get(); buf != nil && cap(buf.scalars) >= scalars && cap(buf.out) >= out && cap(buf.status) >= 2*m {
		buf.scalars, buf.out, buf.status = buf.scalars[:scalars], buf.out[:out], buf.status[:2*m]
		buf.u1G, buf.keys, buf.valid = buf.u1G[:m], buf.keys[:m], buf.valid[:m]
		return buf
	}
	return &stepBuffer{scalars: make([]byte, scalars), out: make([]byte, out), status: make([]ecmul.Status, 2*m),
		u1G: make([]engine.Status, m), keys: make([]engine.Status, m), valid: make([]bool, m)}
}

// compute runs the engine on the items st, m = st.hi − st.lo of them, from
// the scalars prepare wrote into buf: u1·G and u2·Q side by side (the
// Engine is safe for concurrent use), the m points u1·G into the start of
// buf's out and status, the m points u2·Q after them; the first error ends
// the other call and is the step's. ctx carries the step's place in the
// pipeline (engine.WithOverlap, engine.WithClosing).
func (b *batch) compute(ctx context.Context, e *ecmul.Engine, buf *stepBuffer, st span) error {
	m, size, L := st.hi-st.lo, 1+2*b.L, b.L
	if b.gpu != nil {
		return b.computeGPU(ctx, e, buf, st)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		return e.ScalarBaseMultVarTimeBytes(gctx, buf.out[:m*size], buf.status[:m], buf.scalars[:m*L])
	})
	g.Go(func() error {
		return e.ScalarMultBytes(gctx, buf.out[m*size:2*m*size], buf.status[m:2*m],
			buf.scalars[m*L:2*m*L], b.keys[st.lo*b.keySize:st.hi*b.keySize])
	})
	return g.Wait()
}

// gpuVerify lets Verify take the verify kernel where the engine has it
// (engine.Engine.VerifySignatures).
var gpuVerify = true

// takeKernel has b judged by e's verify kernel, where e has one.
func (b *batch) takeKernel(e *ecmul.Engine) {
	if impl := engine.Unwrap[*ecmul.Engine](e); gpuVerify && impl.VerifiesSignatures() {
		b.gpu = impl
	}
}

// computeGPU is compute on the verify kernel: u1·G, its status into buf's
// u1G, then u2·Q, the sum and the comparison with r on the GPU, each key's
// status and each signature's judgement into buf's keys and valid. Where
// the engine computes u1·G in the verify kernel's own chunks
// (engine.Engine.VerifiesWithBase), one call does it all and u1·G stays
// on the device; otherwise u1·G is computed first, into the start of
// buf's out.
func (b *batch) computeGPU(ctx context.Context, e *ecmul.Engine, buf *stepBuffer, st span) error {
	m, size, L := st.hi-st.lo, 1+2*b.L, b.L
	items := engine.VerifyItems{
		U2: buf.scalars[m*L : 2*m*L], Keys: b.keys[st.lo*b.keySize : st.hi*b.keySize], KeySize: b.keySize,
		U1GStatus: buf.u1G[:m], Sigs: b.sigs[st.lo*2*L : st.hi*2*L],
	}
	withBase := gpuWithBase && b.gpu.VerifiesWithBase(m, b.keySize)
	if withBase {
		items.U1 = buf.scalars[:m*L]
	} else {
		if err := e.ScalarBaseMultVarTimeBytes(ctx, buf.out[:m*size], buf.status[:m], buf.scalars[:m*L]); err != nil {
			return err
		}
		for j, s := range buf.status[:m] {
			buf.u1G[j] = engine.Status(s)
		}
		items.U1G = buf.out[:m*size]
	}
	_, err := b.gpu.VerifySignatures(ctx, buf.keys[:m], buf.valid[:m], items)
	return err
}

// gpuWithBase lets Verify have u1·G computed in the verify kernel's chunks
// where the engine can (engine.Engine.VerifiesWithBase).
var gpuWithBase = true

// finishStep gives the items st their verdicts from the engine's results
// in buf: on the host (finish), or from the verify kernel's judgements,
// over the cores (a step of a million items takes some 6 ms of one core,
// which the batch's last steps would add to its latency).
func (b *batch) finishStep(ctx context.Context, buf *stepBuffer, st span) error {
	if b.gpu == nil {
		return b.finish(ctx, buf.out, buf.status, st)
	}
	return b.forChunks(ctx, st, func(lo, hi int) { b.judgedChunk(lo, hi, st, buf) })
}

// judgedChunk gives the items [lo, hi) of step st their verdicts from the
// verify kernel's judgements in buf and the statuses of their keys and
// u1·G.
func (b *batch) judgedChunk(lo, hi int, st span, buf *stepBuffer) {
	for i := lo; i < hi; i++ {
		j := i - st.lo
		switch v := verdictOf(ecmul.Status(buf.keys[j])); {
		case v != Valid:
			b.verdicts[i] = v // a bad key, whatever the signature, or a fault
		case ecmul.Status(buf.u1G[j]) == ecmul.StatusResultCheck:
			b.verdicts[i] = Fault
		case b.verdicts[i] == Invalid: // r or s out of range
		case buf.valid[j]:
			b.verdicts[i] = Valid
		default:
			b.verdicts[i] = Invalid
		}
	}
}
