package engine

import (
	"context"
	"fmt"

	"github.com/rnsec/ecmul/internal/ecdsasign"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
)

// SignFirst is ecdsasign.FirstSign on the gpu backend: it signs the
// items.Count items of ECDSA with RFC 6979's first candidate nonce k over
// HMAC-SHA-256 (qlen = 8L, L the curve's ByteLen), derived from each
// item's private key and h1 = bits2octets(its digest), on the constant-time
// comb with the signing batch's wire kernels (package ladder's
// signwire.go). items.Put writes each chunk's keys and h1s straight into
// its pinned buffer, over the cores, and items.Take gets each signature
// r‖s (before any low-s rule) straight from the chunk's, with its outcome:
// FirstSigned for a signature (whose r or s may be 0: the RFC's retry is
// the caller's), FirstRefused for a k outside [1, n − 1] (the caller takes
// the next candidate), FirstNoPoint, with zero bytes, where k·G gave no
// point. The nonces never leave the GPU. ok is false, and neither is
// called, where the engine has no such kernels (another backend, a kernel
// image without them) or the batch is not larger than the latency
// batches: the caller then signs the items itself.
func (e *Engine) SignFirst(ctx context.Context, items ecdsasign.FirstItems) (ok bool, err error) {
	r, isGPU := e.gpuRunner()
	if !isGPU || items.Count < gpuItemsMinBatch {
		return false, nil
	}
	sr := r.signRunner()
	if sr == nil {
		return false, nil
	}
	if err := e.usable(); err != nil {
		return true, err
	}
	ctx, release := e.batchContext(ctx)
	defer release()
	split, _ := sr.splitFor(items.Count)
	st, err := sr.eng.Run(ctx, gpu.Batch{Count: items.Count, Overlapped: overlapped(ctx), Closing: closing(ctx), Wire: sr.signWire(items, split)})
	sr.recordStats(st)
	r.statsMu.Lock()
	r.stats = st // the Engine's last batch, for diag.LastBatch
	r.statsMu.Unlock()
	return true, e.batchErr(err)
}

// signWire is a signing batch as bytes (package ladder's signwire.go):
// items.Put writes each item's key and h1 (Fill), and items.Take reads
// each signature and outcome (Drain), over the cores.
func (r *gpuRunner) signWire(items ecdsasign.FirstItems, split splitFunc) *gpu.Wire {
	L := r.su.Curve.ByteLen()
	return &gpu.Wire{
		InBytes:  r.su.SignWireInBytes(),
		OutBytes: r.su.SignWireOutBytes(),
		Fill: func(lo, hi int, in []byte) {
			n := hi - lo
			split(n, minWireItems, func(a, c int) {
				items.Put(lo+a, lo+c, in[a*L:c*L], in[(n+a)*L:(n+c)*L])
			})
		},
		Drain: func(lo, hi int, out []byte) error {
			n := hi - lo
			split(n, minWireItems, func(a, c int) {
				for k := a; k < c; k++ {
					items.Take(lo+k, out[k*2*L:(k+1)*2*L], firstOutcome(ladder.Outcome(out[n*2*L+k])))
				}
			})
			return nil
		},
	}
}

// firstOutcome is FirstSign's outcome of an item whose kernel outcome is o.
func firstOutcome(o ladder.Outcome) ecdsasign.FirstOutcome {
	switch o {
	case ladder.OutPoint:
		return ecdsasign.FirstSigned
	case ladder.OutRefused:
		return ecdsasign.FirstRefused
	}
	return ecdsasign.FirstNoPoint
}

// SignsFirst reports whether SignFirst runs on e: the gpu backend with the
// signing batch's kernels.
func (e *Engine) SignsFirst() bool {
	r, ok := e.gpuRunner()
	return ok && e.usable() == nil && r.signRunner() != nil
}

// signRunner returns the runner of SignFirst: the constant-time comb's
// kernel with the signing batch's unpack and pack kernels around its
// prepare and finish, opened on the first call with the comb's settings
// and devices. It returns nil where the engine has no constant-time comb
// with its finish on the GPU, or the signing kernels cannot be opened (a
// kernel image without them).
func (r *gpuRunner) signRunner() *gpuRunner {
	cr := r.combRunner(ladder.Comb)
	if cr == nil || cr.su.Schedule.Kind != ladder.Comb || cr.kernel.FinishEntry == "" {
		return nil
	}
	r.signer.once.Do(func() {
		g := cr.gpuOpts
		g.Mapping = cr.kernel.Mapping
		g.ItemsPerBlock = cr.kernel.ItemsPerBlock
		g.sign = true
		sr, err := newGPURunner(cr.su, cr.opts, g)
		if err != nil {
			r.log.Warn("ecmul: gpu backend: ECDSA signing derives its nonces on the host: the signing kernels did not open", "err", err)
			return
		}
		r.combMu.Lock()
		defer r.combMu.Unlock()
		if r.closing {
			sr.close()
			return
		}
		r.signer.r = sr.(*gpuRunner)
	})
	return r.signer.r
}

// gpuSign gives cfg the comb's prepare and finish kernels with the signing
// batch's unpack and pack kernels around them, on the inputs of
// ladder.Setup.SignInputRows; its output rows hold a signing batch's wire
// input. The pack takes the finish's grid, kernels.SignFinishItemsPerThread
// items a thread unless g names another number.
func gpuSign(cfg *gpu.Config, su *ladder.Setup, g GPUConfig) error {
	if err := gpuFinish(cfg, su, g); err != nil {
		return err
	}
	if cfg.Finish == nil {
		return fmt.Errorf("ecmul: gpu backend: signing needs the finish on the GPU")
	}
	if err := ladder.ProveSignArithmetic(su.Params.P, su.Curve.N()); err != nil {
		return fmt.Errorf("ecmul: gpu backend: signing on %s: %w", su.Curve.Name(), err)
	}
	channels := kernels.ChannelTag(su.Params.Bits)
	unpack, err := kernels.SignUnpackName(su.Curve.Name(), channels)
	if err != nil {
		return err
	}
	pack, err := kernels.SignPackName(su.Curve.Name(), channels)
	if err != nil {
		return err
	}
	cfg.InRows = su.SignInputRows()
	cfg.OutRows = max(cfg.OutRows, (su.SignWireInBytes()+3)/4)
	cfg.Prepare.Unpack, cfg.Finish.Pack, cfg.Finish.PackShares = unpack, pack, true
	if g.FinishItems == 0 {
		cfg.Finish.ItemsPerThread = kernels.SignFinishItemsPerThread
	}
	return nil
}
