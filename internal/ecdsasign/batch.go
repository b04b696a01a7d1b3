package ecdsasign

import (
	"context"
	"crypto"
	"fmt"
	"io"

	"github.com/rnsec/ecmul/internal/fp"
	"github.com/rnsec/ecmul/internal/par"
	"github.com/rnsec/ecmul/internal/reuse"
)

// Sign signs count = len(digests) digests: item i with the private key
// keys[i·L:(i+1)·L] (big-endian, L = ScalarBytes), its signature r‖s
// written into sigs[2iL:2(i+1)L] (r and s L bytes each, big-endian: IEEE
// P1363; AppendDER converts it). errs gets one outcome per item: nil, or
// an *ItemError, whose signature is then zero, for a private key outside
// [1, n − 1] (ErrKey; it is never reduced), a digest whose length is not
// the named hash's or implies no hash (ErrDigest), or an item for which
// base gave no point (ErrNoPoint). A digest is taken as an integer by its
// leftmost bitlen(n) bits, as crypto/ecdsa takes it.
//
// The items are signed in steps of at most stepItems for each of
// opt.Devices, the first and last ones of a large batch ramped from
// rampItems for each: the host checks a step's items and derives their
// nonces on every core but one (par.SpreadHost), and base computes their
// k·G in one call, queued behind the calls of the steps before it;
// meanwhile the host finishes the signatures of the oldest computed step
// likewise (opt.FirstSign, where set, signs a deterministic step whose
// first digest is SHA-256's itself, its items checked as they go into the
// device's buffers: the host then only takes their signatures, and signs
// afterwards those of another hash); items whose r or s is 0 go round
// again with their DRBG's next nonce. With opt.Randomness, item
// i's additional data are the bytes [i·ExtraBytes, (i+1)·ExtraBytes) read
// from it.
//
// The error is non-nil only when the batch failed as a whole: buffer
// lengths that do not describe one batch (ErrLayout), a named hash Sign
// does not take (ErrHash), the context's end, an error reading
// opt.Randomness, or base's error. sigs is then zero and every item's
// error says it was not signed.
func (s *Signer) Sign(ctx context.Context, sigs []byte, errs []error, digests [][]byte, keys []byte, base BaseMult, opt Options) error {
	b := &batch{o: s.o, opt: opt, sigs: sigs, errs: errs, digests: digests, keys: keys, base: base}
	err := b.check()
	if err == nil {
		err = b.run(ctx)
	}
	if err != nil {
		clear(sigs)
		for i := range errs {
			errs[i] = b.itemError(i, errNotSigned)
		}
	}
	return err
}

// itemError is the error recorded for item i, whose reason is err.
func (b *batch) itemError(i int, err error) error {
	if b.opt.ItemError != nil {
		return b.opt.ItemError(i, err)
	}
	return &ItemError{Item: i, Err: err}
}

// batch is one call of Sign.
type batch struct {
	o       *order
	opt     Options
	sigs    []byte
	errs    []error
	digests [][]byte
	keys    []byte
	base    BaseMult
	turns   *par.Turns // the steps' calls enter the device's queue in order
}

// check checks the buffers' lengths against one another, and the options.
func (b *batch) check() error {
	n, L := len(b.digests), b.o.size
	switch {
	case len(b.keys) != n*L:
		return fmt.Errorf("%w: %d digests take %d bytes of private keys (%d each), not %d", ErrLayout, n, n*L, L, len(b.keys))
	case len(b.sigs) != n*2*L:
		return fmt.Errorf("%w: %d digests take %d bytes of signatures r‖s (%d each), not %d", ErrLayout, n, n*2*L, 2*L, len(b.sigs))
	case len(b.errs) != n:
		return fmt.Errorf("%w: %d digests take %d errors, not %d", ErrLayout, n, n, len(b.errs))
	case b.opt.Hash != 0 && !supported(b.opt.Hash):
		return fmt.Errorf("%w: %v", ErrHash, b.opt.Hash)
	case b.base == nil:
		return fmt.Errorf("%w: no function for k·G", ErrLayout)
	}
	return nil
}

// StepItems is the most items of one step: enough for base to fill a
// GPU, few enough that a step's nonces and points take a few MiB. On an
// H200, signing P-256 at 2^22 items with FirstSign ran at 18.7 M/s in
// steps of 2^16, 21.6 M in steps of 2^17 and 22.2 M in steps of 2^18, and
// in steps of 2^20 slower than in steps of 2^18
// (bench/h200/2026-11-29-h-sign/); the gpu backend's signing chunk holds
// one step.
const StepItems = 1 << 18

// stepItems is StepItems, which tests shrink.
var stepItems = StepItems

// rampItems is the first and last step of a batch large enough for its
// steps to grow from it and shrink back to it (par.StepBounds): the host's
// checks of the first step, before the GPU has any work, and its taking of
// the last one's signatures, after the GPU is done, are then a small
// step's. It is above the gpu backend's latency batches (16,384 items),
// which FirstSign leaves to the host.
var rampItems = 1 << 15

// maxRounds is how often an item goes round before it fails: the RFC's
// retry is needed with probability about 2^−220 per round, so only a
// faulty base reaches it.
const maxRounds = 8

var errRetries = fmt.Errorf("r or s was 0 for %d nonces in a row: k·G is faulty", maxRounds)

// stepsQueued is how many steps compute, or wait to, while the host
// finishes the step before them: the GPU has them to compute, one behind
// the other, and never waits for the host's work between them.
const stepsQueued = 3

// run signs the batch step by step in the memory of stepsQueued + 1 steps
// (par.Pipeline): the host checks the items of each step, derives their
// nonces and starts its computation (base's k·G, or FirstSign's
// signatures) as soon as a step's memory is free, and finishes each
// computed step's signatures, in order, while it readies the next and the
// steps after it compute.
func (b *batch) run(ctx context.Context) error {
	if len(b.digests) == 0 {
		return nil
	}
	devices := max(1, b.opt.Devices)
	bounds := par.StepBounds(len(b.digests), rampItems*devices, stepItems*devices)
	count, largest := len(bounds)-1, 0
	for j := range count {
		largest = max(largest, bounds[j+1]-bounds[j])
	}
	b.turns = par.NewTurns(count)
	steps := make([]*step, min(stepsQueued+1, count))
	for i := range steps {
		steps[i] = b.newStep(largest)
		defer steps[i].release()
	}
	return par.Pipeline(ctx, count, len(steps),
		func(ctx context.Context, j, s int) error {
			at := Place{Followed: j < count-1, Closing: j >= count-(stepsQueued+1)}
			return b.prepare(ctx, steps[s], bounds[j], bounds[j+1], at)
		},
		func(ctx context.Context, j, s int) error { return b.computeFirst(ctx, j, steps[s]) },
		func(ctx context.Context, _, s int) error { return b.finishStep(ctx, steps[s]) })
}

// finishStep finishes the signatures of st after its first round: those
// whose r or s was 0, and those whose first candidate FirstSign refused,
// go round again with nonces from the host's DRBG.
func (b *batch) finishStep(ctx context.Context, st *step) error {
	if !st.gpu {
		return b.rounds(ctx, st, b.complete(st, st.idx), 1)
	}
	again, refused := b.sortFirsts(st)
	if err := b.rounds(ctx, st, again, 1); err != nil {
		return err
	}
	return b.rounds(ctx, st, refused, 0)
}

// prepare readies the items [lo, hi) as a step. A step FirstSign takes
// (st.gpu: no additional data, and a first item whose hash is SHA-256,
// firstSHA256) goes to it whole, its items checked as they go into the
// device's buffers (putFirst). Otherwise the host reads their
// additional data when hedged, checks them over the cores (an item that
// fails gets a zero signature), lists in st.idx those that pass and
// derives their first nonces. at is the step's place in the pipeline.
func (b *batch) prepare(ctx context.Context, st *step, lo, hi int, at Place) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	st.lo, st.n, st.at = lo, hi-lo, at
	st.gpu = b.opt.FirstSign != nil && st.extra == nil && b.firstSHA256(lo)
	if st.gpu {
		return nil
	}
	if st.extra != nil {
		if _, err := io.ReadFull(b.opt.Randomness, st.extra[:(hi-lo)*ExtraBytes]); err != nil {
			return fmt.Errorf("ecdsasign: reading randomness: %w", err)
		}
	}
	b.hostStep(st)
	return nil
}

// firstSHA256 reports whether item i's digest is SHA-256's: the hash named,
// or, where none is, a digest of its length. A step whose first item's is
// goes to FirstSign, which takes SHA-256's alone; its items of other
// hashes are signed by the host (sortFirsts).
func (b *batch) firstSHA256(i int) bool {
	h, err := hashFor(b.opt.Hash, len(b.digests[i]))
	return err == nil && h == crypto.SHA256
}

// hostStep checks the items of st over the cores (an item that fails gets
// a zero signature), lists those that pass in st.idx and derives their
// first nonces.
func (b *batch) hostStep(st *step) {
	lo := st.lo
	st.idx = st.emptyIndex()
	par.SpreadHost(st.n, func(a, z int) {
		for i := lo + a; i < lo+z; i++ {
			b.checkOrFail(i)
		}
	})
	for i := lo; i < lo+st.n; i++ {
		if b.errs[i] == nil {
			st.idx = append(st.idx, i)
		}
	}
	b.derive(st, st.idx, 0)
}

// checkOrFail checks item i, recording its error and zeroing its
// signature where it fails, and returns its hash and whether it passed.
func (b *batch) checkOrFail(i int) (crypto.Hash, bool) {
	if b.errs[i] != nil { // read, not written, where nil already: millions of cache lines kept clean
		b.errs[i] = nil
	}
	h, err := b.checkItem(i)
	if err != nil {
		b.errs[i] = b.itemError(i, err)
		clear(b.sig(i))
		return 0, false
	}
	return h, true
}

// computeFirst computes the first round of step j, st: its signatures
// through FirstSign where prepare left them to it (falling back on the
// host where it did not run), else k·G of the host's nonces. It calls
// FirstSign once step j − 1's call has begun to fill the device's buffers
// (par.Turns): a step prepared at once would otherwise reach the device
// before the steps ahead of it.
func (b *batch) computeFirst(ctx context.Context, j int, st *step) error {
	if err := b.turns.Wait(ctx, j); err != nil {
		return err
	}
	defer b.turns.Enter(j)
	if !st.gpu {
		b.turns.Enter(j) // base's calls overlap
		return b.compute(ctx, st, st.idx)
	}
	clear(st.firsts[:st.n])
	items := FirstItems{Count: st.n,
		Put: func(lo, hi int, keys, h1s []byte) {
			b.turns.Enter(j)
			b.putFirst(st, lo, hi, keys, h1s)
		},
		Take: func(k int, sig []byte, o FirstOutcome) { b.takeFirst(st, k, sig, o) }}
	done, err := b.opt.FirstSign(ctx, items, st.at)
	if err != nil || done {
		return err
	}
	b.turns.Enter(j)
	st.gpu = false
	b.hostStep(st)
	return b.compute(ctx, st, st.idx)
}

// Outcomes putFirst gives an item of FirstSign's call in place of the
// device's, which takeFirst then leaves as they are.
const (
	firstFailed FirstOutcome = 0x80 + iota // the item failed its checks: its error is recorded
	firstOnHost                            // the item's hash is not SHA-256: the host signs it (sortFirsts)
	firstAgain                             // takeFirst: its r or s was 0, the item goes round again
)

// putFirst checks the items [lo, hi) of st (item j is the step's item
// lo + j) and writes their private keys and h1 = bits2octets(digest) into
// keys and h1s; an item that fails its checks, or whose hash is not
// SHA-256, gets the key 1 and h1 0 in their place, and its outcome
// (firstFailed, firstOnHost) at once. A device that fails has another put
// the same items again, to the same effect.
func (b *batch) putFirst(st *step, lo, hi int, keys, h1s []byte) {
	L := b.o.size
	copy(keys, b.keys[(st.lo+lo)*L:(st.lo+hi)*L])
	for j := lo; j < hi; j++ {
		k := j - lo
		key, h1 := keys[k*L:(k+1)*L], h1s[k*L:(k+1)*L]
		h, ok := b.checkOrFail(st.lo + j)
		if ok && h == crypto.SHA256 {
			b.putH1(h1, st.lo+j)
			continue
		}
		st.firsts[j] = firstFailed
		if ok {
			st.firsts[j] = firstOnHost
		}
		clear(key)
		key[L-1] = 1
		clear(h1)
	}
}

// takeFirst takes the signature FirstSign made for item j of st's call,
// and its outcome, unless putFirst gave the item one: one whose r and s
// are not 0 goes to its item, under the low-s rule where asked, and one
// whose r or s is 0 gets firstAgain (sortFirsts sees to the others).
func (b *batch) takeFirst(st *step, j int, sig []byte, o FirstOutcome) {
	if st.firsts[j] == firstFailed || st.firsts[j] == firstOnHost {
		return
	}
	if o == FirstSigned && b.take(st.lo+j, sig) {
		o = firstAgain
	}
	st.firsts[j] = o
}

// sortFirsts sorts out the items of st that FirstSign did not sign at
// once, where a look at every outcome (allSigned) finds any: an item
// without a point gets ErrNoPoint (as does one FirstSign never handed
// back, whose outcome is still FirstNoPoint); it returns, in place of
// st.idx, the items whose r or s was 0 and, apart, those whose first
// candidate was refused or whose hash FirstSign does not take (the host
// signs them from their DRBG's first candidate), their signatures zero
// until a later round's.
func (b *batch) sortFirsts(st *step) (again, refused []int) {
	firsts := st.firsts[:st.n]
	if allSigned(firsts) {
		return nil, nil
	}
	again = st.emptyIndex()
	for j, o := range firsts {
		i := st.lo + j
		switch o {
		case FirstSigned, firstFailed:
		case firstAgain:
			again = append(again, i)
		case FirstRefused, firstOnHost:
			clear(b.sig(i))
			refused = append(refused, i)
		default:
			b.errs[i] = b.itemError(i, ErrNoPoint)
			clear(b.sig(i))
		}
	}
	return again, refused
}

// allSigned reports whether every outcome of f is FirstSigned, eight
// outcomes a word on the calling goroutine: a step's half a million take
// some 30 µs, less than waking other cores would.
func allSigned(f []FirstOutcome) bool {
	const signed8 = uint64(FirstSigned) * 0x0101010101010101
	for len(f) >= 8 {
		w := uint64(f[0]) | uint64(f[1])<<8 | uint64(f[2])<<16 | uint64(f[3])<<24 |
			uint64(f[4])<<32 | uint64(f[5])<<40 | uint64(f[6])<<48 | uint64(f[7])<<56
		if w != signed8 {
			return false
		}
		f = f[8:]
	}
	for _, o := range f {
		if o != FirstSigned {
			return false
		}
	}
	return true
}

// take writes the signature r‖s into item i's, under the low-s rule where
// asked, and reports whether r or s is 0 (the item goes round again, its
// signature zero).
func (b *batch) take(i int, sig []byte) (again bool) {
	L := b.o.size
	out := b.sig(i)
	if fp.AllZero(sig[:L]) || fp.AllZero(sig[L:]) { // public: the RFC's retry
		clear(out)
		return true
	}
	copy(out[:L], sig[:L])
	if b.opt.LowS {
		b.o.putLowS(out[L:], sig[L:])
	} else {
		copy(out[L:], sig[L:])
	}
	return false
}

// step holds one step's working memory, reused step after step.
type step struct {
	size    int    // the most items of a step of the batch
	lo, n   int    // the step's first item, and its items
	at      Place  // where it stands in the pipeline
	extra   []byte // ExtraBytes per item of the step, when hedged
	scalars []byte // L per item of a round: its nonce
	xs      []byte // L per item of a round: x(k·G)
	ok      []bool
	again   []bool // per item of a host round: r or s was 0
	idx     []int
	// secret: nonces were written into the step's memory (a host round)
	// since its last wipe
	secret bool
	kinv   []fp.Element // per item of a round: its nonce, then k⁻¹ (Montgomery form)
	pre    []fp.Element // per item of a round: invertAll's running products
	// the first round on FirstSign (gpu), item j of its call the step's
	// item lo + j: each item's outcome (putFirst, takeFirst)
	gpu    bool
	firsts []FirstOutcome
}

// emptyIndex returns st.idx emptied, with room for the step's items: made
// for the first step that needs it, since a step FirstSign signs whole
// needs none.
func (st *step) emptyIndex() []int {
	if cap(st.idx) < st.size {
		st.idx = make([]int, 0, st.size)
	}
	return st.idx[:0]
}

// steps keeps steps between calls of Sign, wiped: a batch of millions
// signed by FirstSign takes about 2 MB of them (four steps of 2^18 items,
// 8 MB more where an item fails its checks; some 34 MB of nonces, points
// and inverses more for each P-256 step signed on the host), which a
// program signing batch after batch would otherwise allocate, zero and
// collect each time (package reuse says why not a sync.Pool).
var steps reuse.List[step]

// newStep returns a step of at most m items, from steps where there is
// one, its buffers grown where they are too short; with FirstSign, the
// buffers of the host's rounds wait for the first round that needs them
// (hostRound), and the index for the first step that needs it
// (emptyIndex).
func (b *batch) newStep(m int) *step {
	L := b.o.size
	st := steps.Get()
	if st == nil {
		st = new(step)
	}
	st.size, st.again = m, grow(st.again, m)
	if b.opt.FirstSign != nil {
		st.firsts = grow(st.firsts, m)
	} else {
		st.hostRound(m, L)
	}
	if b.opt.Randomness != nil {
		st.extra = grow(st.extra, m*ExtraBytes)
	} else {
		st.extra = nil // not hedged
	}
	return st
}

// grow returns s where it holds n elements or more (never fewer than it
// held, so that wipe clears what a larger step wrote), else a new slice
// of n.
func grow[T any](s []T, n int) []T {
	if len(s) >= n {
		return s
	}
	return make([]T, n)
}

// release wipes st and puts it in steps for the next call.
func (st *step) release() {
	st.wipe()
	steps.Put(st)
}

// hostRound makes the buffers of a host round at least m items of L bytes
// long.
func (st *step) hostRound(m, L int) {
	st.secret = true
	if len(st.ok) < m || len(st.scalars) < m*L {
		clear(st.scalars) // the old nonces and inverses, before they may be dropped
		clear(st.kinv)
		clear(st.pre)
		st.scalars, st.xs, st.ok = grow(st.scalars, m*L), grow(st.xs, m*L), grow(st.ok, m)
		st.kinv, st.pre = grow(st.kinv, m), grow(st.pre, m)
	}
}

// wipe clears the nonces, their inverses and products, where a step wrote
// any: a batch signed on the GPU alone leaves none.
func (st *step) wipe() {
	if !st.secret {
		return
	}
	clear(st.scalars)
	clear(st.kinv)
	clear(st.pre)
	st.secret = false
}

// rounds signs the items idx again, from round first to maxRounds − 1,
// each round with their DRBGs' next nonces: an item whose r or s is still
// 0 then fails.
func (b *batch) rounds(ctx context.Context, st *step, idx []int, first int) error {
	for round := first; round < maxRounds; round++ {
		if len(idx) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		b.derive(st, idx, round)
		if err := b.compute(ctx, st, idx); err != nil {
			return err
		}
		idx = b.complete(st, idx)
	}
	for _, i := range idx {
		b.errs[i] = b.itemError(i, errRetries)
		clear(b.sig(i))
	}
	return nil
}

// checkItem checks item i's digest length and key range, and returns its
// hash.
func (b *batch) checkItem(i int) (crypto.Hash, error) {
	h, err := hashFor(b.opt.Hash, len(b.digests[i]))
	if err != nil {
		return 0, err
	}
	var d [fp.Limbs]uint64
	switch key := b.key(i); len(key) { // in line for the curves' scalars: a fill checks millions
	case 32:
		d = fp.Limbs32(key)
	case 28:
		d = fp.Limbs28(key)
	default:
		d = fp.LimbsFromBytes(key)
	}
	if b.o.inRange(d) == 0 { // public: the item fails
		if zeroMask(d) != 0 {
			return 0, fmt.Errorf("%w: it is 0", ErrKey)
		}
		return 0, fmt.Errorf("%w: it is n or more", ErrKey)
	}
	return h, nil
}

// key returns item i's private key.
func (b *batch) key(i int) []byte { return b.keys[i*b.o.size : (i+1)*b.o.size] }

// putH1 writes h1 = bits2octets(item i's digest) into dst (L bytes): the
// digest's leftmost bitlen(n) bits, reduced mod n.
func (b *batch) putH1(dst []byte, i int) { b.o.putBits2Octets(dst, b.digests[i]) }

// sig returns item i's signature r‖s.
func (b *batch) sig(i int) []byte { return b.sigs[2*i*b.o.size : 2*(i+1)*b.o.size] }

// derive writes the nonce of each item of idx, its DRBG's candidate
// number round in [1, n − 1], over the cores.
func (b *batch) derive(st *step, idx []int, round int) {
	L := b.o.size
	st.hostRound(len(idx), L)
	par.SpreadHost(len(idx), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			b.nonce(st.scalars[j*L:(j+1)*L], st, idx[j], round)
		}
	})
}

// compute has base compute the k·G of the nonces of idx.
func (b *batch) compute(ctx context.Context, st *step, idx []int) error {
	m, L := len(idx), b.o.size
	clear(st.ok[:m])
	return b.base(ctx, st.xs[:m*L], st.ok[:m], st.scalars[:m*L])
}

// complete finishes the signatures of the items of idx from their nonces
// and k·G over the cores, wipes the nonces, and returns the items whose r
// or s was 0, in place of idx.
func (b *batch) complete(st *step, idx []int) []int {
	m, L := len(idx), b.o.size
	again := st.again[:m]
	par.SpreadHost(m, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			b.o.f.SetLimbs(&st.kinv[j], fp.LimbsFromBytes(st.scalars[j*L:(j+1)*L]))
		}
		b.o.invertAll(st.kinv[lo:hi], st.pre[lo:hi])
		for j := lo; j < hi; j++ {
			again[j] = b.finish(st, idx[j], j)
		}
	})
	st.wipe()
	retry := idx[:0]
	for j, i := range idx {
		if again[j] {
			retry = append(retry, i)
		}
	}
	return retry
}
