package engine

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/rnsec/ecmul/internal/fp"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
)

// VerifyItems is one call of VerifySignatures: count items of ECDSA
// verification whose u1 and u2 the caller has derived, L = the curve's
// ByteLen. u1·G comes either from the caller, who has computed it
// (ScalarBaseMultVarTimeBytes) into U1G, or, where
// VerifiesWithBase says the engine can, from the GPU, on the variable-time
// comb in the same chunks as the ladder, from U1 (U1G nil): it then never
// leaves the device, and U1GStatus receives the statuses.
type VerifyItems struct {
	U2        []byte   // count scalars u2, L bytes each, big-endian
	Keys      []byte   // count SEC1 public keys Q, KeySize bytes each: uncompressed (1+2L) or compressed (1+L)
	KeySize   int      //
	U1        []byte   // count scalars u1 below n, L bytes each, big-endian; nil where U1G is given
	U1G       []byte   // count points u1·G, uncompressed SEC1 (1+2L bytes each); nil where U1 is given
	U1GStatus []Status // their statuses: StatusPoint, or StatusInfinity for the point at infinity
	Sigs      []byte   // count signatures r‖s, 2L bytes each; r below n
}

// layoutOK reports whether v describes count items of L-byte values.
func (v VerifyItems) layoutOK(count, L int) bool {
	u1 := len(v.U1) == count*L && v.U1G == nil
	if v.U1 == nil {
		u1 = len(v.U1G) == count*(1+2*L)
	}
	return u1 && len(v.U2) == count*L && len(v.Keys) == count*v.KeySize && len(v.U1GStatus) == count && len(v.Sigs) == count*2*L
}

// VerifySignatures judges count = len(status) signatures on the gpu
// backend's verify kernel: the ladder computes u2·Q, and the kernel adds
// u1·G to it in projective form and compares x(R) with r mod n, so that
// neither point is finished to affine and the host reads one outcome an
// item.
// status[i] gets the key's status, as ScalarMultBytes would give it
// (StatusPoint for a key it takes; StatusResultCheck where u2·Q failed its
// check); valid[i] whether the signature verifies, where status[i] is
// StatusPoint. ok is false, and nothing is written, where the engine has
// no verify kernel (another backend, or a kernel image without it): the
// caller then verifies another way. Items with an u1·G of another status
// than StatusPoint or StatusInfinity take u1·G as the point at infinity:
// the caller judges them itself.
func (e *Engine) VerifySignatures(ctx context.Context, status []Status, valid []bool, v VerifyItems) (ok bool, err error) {
	r, isGPU := e.gpuRunner()
	if !isGPU {
		return false, nil
	}
	vr := r.verifyRunner()
	if vr == nil {
		return false, nil
	}
	count, L := len(status), e.curve.ByteLen()
	if len(valid) != count || !v.layoutOK(count, L) || (v.U1 != nil && !vr.withBase(count, v.KeySize)) {
		return true, fmt.Errorf("%w: VerifySignatures of %d items", ErrBatchLayout, count)
	}
	clear(status)
	clear(valid)
	if err := e.usable(); err != nil {
		return true, err
	}
	if count == 0 {
		return true, nil
	}
	ctx, release := e.batchContext(ctx)
	defer release()
	batch := vr.verifyBatch(status, valid, v, overlapped(ctx))
	batch.Closing = closing(ctx)
	st, err := vr.eng.Run(ctx, batch)
	vr.recordStats(st)
	return true, e.batchErr(err)
}

// verifyBatch is VerifySignatures' batch on the verify runner: as bytes
// (verifyWire) where the keys are uncompressed; otherwise the host
// decodes each key into words and packs u1·G, r and r + n (Fill), and
// reads each item's outcome (Drain), both over the cores.
func (r *gpuRunner) verifyBatch(status []Status, valid []bool, v VerifyItems, overlap bool) gpu.Batch {
	su, count := r.su, len(status)
	L := su.Curve.ByteLen()
	split, _ := r.splitFor(count)
	if v.U1 != nil || r.takesVerifyWire(count, v.KeySize) {
		return gpu.Batch{Count: count, Overlapped: overlap, Wire: r.verifyWire(status, valid, v, split)}
	}
	w := su.VerifyWire()
	return gpu.Batch{
		Count:      count,
		Overlapped: overlap,
		Fill: func(lo, hi int, in, scalars []uint32) {
			split(hi-lo, minPartItems, func(a, c int) {
				var it ladder.RawItem
				for k := a; k < c; k++ {
					i := lo + k
					if err := su.PrepareRaw(&it, v.U2[i*L:(i+1)*L], v.Keys[i*v.KeySize:(i+1)*v.KeySize]); err != nil {
						status[i] = statusOf(err)
					}
					su.PackRaw(in, scalars, hi-lo, k, &it)
					packVerifyRows(su, w, in, hi-lo, k, v, i)
				}
			})
		},
		Drain: func(lo, hi int, out []uint32) error {
			split(hi-lo, minPartItems, func(a, c int) {
				for k := a; k < c; k++ {
					if i := lo + k; status[i] == StatusNotComputed { // not a key refused on the host
						status[i], valid[i] = verdictOf(ladder.Outcome(out[k]))
					}
				}
			})
			return nil
		},
	}
}

// verifyWire is a verify batch of uncompressed keys as bytes (package
// ladder's verifywire.go): the host copies each item's u2, key and r and
// adds n to r, and copies u1·G or, where the engine computes it (v.U1
// given, gpu.PreChain), u1 (Fill); the verify unpack kernel does the rest,
// and the verify pack kernel gives back one outcome byte an item, the
// comb's pack one more for u1·G where it ran (Drain), both read over the
// cores.
func (r *gpuRunner) verifyWire(status []Status, valid []bool, v VerifyItems, split splitFunc) *gpu.Wire {
	su := r.su
	L, ps, own := su.Curve.ByteLen(), 1+2*su.Curve.ByteLen(), su.VerifyWireInBytes()
	w, withBase := su.VerifyWire(), v.U1 != nil
	wire := &gpu.Wire{InBytes: own, OutBytes: ladder.VerifyWireOutBytes}
	if withBase {
		wire.InBytes, wire.OutBytes, wire.Pre = own+L, ladder.VerifyWireOutBytes+1, true
	}
	wire.Fill = func(lo, hi int, in []byte) {
		n := hi - lo
		scalars, points, u1 := in[:n*L], in[n*L:n*(L+ps)], in[n*own:n*wire.InBytes]
		split(n, minWireItems, func(a, c int) {
			copy(scalars[a*L:c*L], v.U2[lo*L+a*L:lo*L+c*L])
			copy(points[a*ps:c*ps], v.Keys[(lo+a)*ps:(lo+c)*ps])
			if withBase {
				copy(u1[a*L:c*L], v.U1[lo*L+a*L:lo*L+c*L])
			}
			for k := a; k < c; k++ {
				i := lo + k
				// x = 0 is public, and its first eight bytes are zero for
				// no other point but once in 2^64
				if p := points[k*ps : (k+1)*ps]; binary.BigEndian.Uint64(p[1:]) == 0 {
					su.RewriteZeroX(scalars[k*L:(k+1)*L], p)
				}
				sigR := v.Sigs[i*2*L : i*2*L+L]
				if withBase {
					w.PutSignature(in, n, k, isZeroBytes(u1[k*L:(k+1)*L]), sigR)
				} else {
					w.Put(in, n, k, v.U1G[i*ps+1:(i+1)*ps], v.U1GStatus[i] != StatusPoint, sigR)
				}
			}
		})
	}
	wire.Drain = func(lo, hi int, out []byte) error {
		n := hi - lo
		split(n, minWireItems, func(a, c int) {
			for k := a; k < c; k++ {
				i := lo + k
				status[i], valid[i] = verdictOf(ladder.Outcome(out[k]))
				if withBase {
					v.U1GStatus[i] = u1GStatus(ladder.Outcome(out[n+k]), isZeroBytes(v.U1[i*L:(i+1)*L]))
				}
			}
		})
		return nil
	}
	return wire
}

// takesVerifyWire reports whether a verify batch of count items with keys
// of keySize bytes goes as bytes: uncompressed keys, in a batch larger than
// the latency batches, as takesWire.
func (r *gpuRunner) takesVerifyWire(count, keySize int) bool {
	return keySize == 1+2*r.su.Curve.ByteLen() && count >= gpuItemsMinBatch
}

// withBase reports whether the verify runner r computes u1·G itself in a
// batch of count items with keys of keySize bytes: as bytes, with the comb
// before the ladder (verifyPre).
func (r *gpuRunner) withBase(count, keySize int) bool {
	return r.cfg.Pre != nil && r.takesVerifyWire(count, keySize)
}

// VerifiesWithBase reports whether VerifySignatures takes U1 for a batch
// of count items with keys of keySize bytes and computes u1·G itself.
func (e *Engine) VerifiesWithBase(count, keySize int) bool {
	r, ok := e.gpuRunner()
	if !ok || e.usable() != nil {
		return false
	}
	vr := r.verifyRunner()
	return vr != nil && vr.withBase(count, keySize)
}

// u1GStatus returns the status of a u1·G whose comb gave outcome o, for a
// u1 that is zero or not: u1 below n gives the point at infinity exactly
// when it is zero, and any other pair of them is a fault.
func u1GStatus(o ladder.Outcome, zero bool) Status {
	s := statusOfOutcome(o)
	if (s == StatusInfinity) != zero || (s != StatusInfinity && s != StatusPoint) {
		return StatusResultCheck
	}
	return s
}

func isZeroBytes(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// verdictOf returns the status and judgement of an item whose verify
// kernel gave outcome o.
func verdictOf(o ladder.Outcome) (Status, bool) {
	switch o {
	case ladder.OutValid, ladder.OutInvalid:
		return StatusPoint, o == ladder.OutValid
	}
	return statusOfOutcome(o), false
}

// packVerifyRows writes item i's verify rows into column k of a chunk of
// m items: u1·G (or the point at infinity), r, and r + n where it is below
// p.
func packVerifyRows(su *ladder.Setup, w ladder.VerifyWire, in []uint32, m, k int, v VerifyItems, i int) {
	L := su.Curve.ByteLen()
	pt := v.U1G[i*(1+2*L) : (i+1)*(1+2*L)]
	x1, y1 := fp.LimbsFromBytes(pt[1:1+L]), fp.LimbsFromBytes(pt[1+L:])
	var flags ladder.VerifyFlags
	if v.U1GStatus[i] != StatusPoint {
		flags |= ladder.VerifyU1Infinity
	}
	r := v.Sigs[i*2*L : i*2*L+L]
	var rn [8 * fp.Limbs]byte
	if w.AddN(rn[:L], r) {
		flags |= ladder.VerifyRN
	}
	su.PackVerify(in, m, k, x1, y1, fp.LimbsFromBytes(r), fp.LimbsFromBytes(rn[:L]), flags)
}

// VerifiesSignatures reports whether VerifySignatures runs on e: the gpu
// backend with its verify kernel.
func (e *Engine) VerifiesSignatures() bool {
	r, ok := e.gpuRunner()
	return ok && e.usable() == nil && r.verifyRunner() != nil
}

// verifyRunner returns the runner of VerifySignatures: the ladder's
// kernel, with the prepare kernel before it and the verify kernel in the
// finish's place, opened on the first call with the ladder's settings and
// devices. It returns nil where the ladder is not the co-Z ladder with its
// finish on the GPU, or the verify kernel cannot be opened (a kernel image
// without it).
func (r *gpuRunner) verifyRunner() *gpuRunner {
	if r.su.Schedule.Kind != ladder.CoZ || r.kernel.FinishEntry == "" {
		return nil
	}
	r.verifier.once.Do(func() {
		g := r.gpuOpts
		g.Mapping = r.kernel.Mapping
		g.ItemsPerBlock = r.kernel.ItemsPerBlock
		g.verify = true
		g.pre = r.verifyPre()
		vr, err := newGPURunner(r.su, r.opts, g)
		if err != nil {
			r.log.Warn("ecmul: gpu backend: ECDSA verification adds its points on the host: the verify kernel did not open", "err", err)
			return
		}
		r.combMu.Lock()
		defer r.combMu.Unlock()
		if r.closing {
			vr.close()
			return
		}
		r.verifier.r = vr.(*gpuRunner)
	})
	return r.verifier.r
}

// verifyPre returns the chain that computes u1·G in the verify runner's
// chunks (gpu.PreChain): the variable-time comb runner's kernels (or the
// constant-time comb's, combRunner), from u1 at the end of each item's
// wire input to u1·G where the verify unpack reads it. It returns nil
// where that runner is missing or has no wire kernels: u1·G then comes
// from the caller.
func (r *gpuRunner) verifyPre() *gpu.PreChain {
	cr := r.combRunner(ladder.CombVarTime)
	if cr == nil || cr.cfg.Prepare == nil || cr.cfg.Prepare.Unpack == "" || cr.cfg.Finish == nil || cr.cfg.Finish.Pack == "" {
		return nil
	}
	L := r.su.Curve.ByteLen()
	return &gpu.PreChain{Config: cr.cfg, InBytes: L, ResultBytes: cr.su.WireOutBytes() - 1, Skip: 1, Width: 2 * L,
		At: r.su.VerifyWirePointAt()}
}

// gpuVerify gives cfg the prepare kernel and, in the finish's place, the
// verify kernel (one item a thread, one result row), on the inputs of
// ladder.Setup.VerifyInputRows, with the verify batch's unpack and pack
// kernels around them; its output rows hold a verify batch's wire input.
// With pre, the comb that computes u1·G runs first in each chunk of a
// batch that asks for it, whose wire input, u1 included, the input rows
// hold on the host.
func gpuVerify(cfg *gpu.Config, su *ladder.Setup, pre *gpu.PreChain) error {
	entry, err := kernels.VerifyName(su.Curve.Name(), kernels.ChannelTag(su.Params.Bits))
	if err != nil {
		return err
	}
	prepare, err := kernels.PrepareName(su.Curve.Name(), kernels.ChannelTag(su.Params.Bits))
	if err != nil {
		return err
	}
	unpack, err := kernels.VerifyUnpackName(su.Curve.Name(), kernels.ChannelTag(su.Params.Bits))
	if err != nil {
		return err
	}
	pack, err := kernels.VerifyPackName(su.Curve.Name(), kernels.ChannelTag(su.Params.Bits))
	if err != nil {
		return err
	}
	cfg.InRows = su.VerifyInputRows()
	cfg.OutRows = max(cfg.OutRows, (su.VerifyWireInBytes()+3)/4)
	cfg.Prepare = &gpu.PrepareKernel{Entry: prepare, Constants: su.PrepareConstants(), Unpack: unpack}
	cfg.Finish = &gpu.FinishKernel{Entry: entry, Constants: su.FinishConstants(), ResultRows: 1, ItemsPerThread: 1, Pack: pack}
	if pre != nil {
		cfg.Pre = pre
		cfg.InRows = max(cfg.InRows, (su.VerifyWireInBytes()+pre.InBytes+3)/4)
	}
	return nil
}
