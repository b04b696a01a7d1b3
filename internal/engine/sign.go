package engine

import (
	"context"
	"fmt"

	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
)

// SignFirst signs count = len(outcomes) items of ECDSA with RFC 6979's
// first candidate nonce k over HMAC-SHA-256 (qlen = 8L, L the curve's
// ByteLen), derived from each item's private key and h1 = bits2octets(its
// digest), on the gpu backend's constant-time comb with the signing
// batch's wire kernels (package ladder's signwire.go): the host copies the
// keys and h1s up (L bytes each, big-endian; every key in [1, n − 1], every
// h1 below n) and reads back each signature r‖s (sigs, 2L bytes each,
// before any low-s rule) and its outcome: ladder.OutPoint for a signature
// (whose r or s may be 0: the RFC's retry is the caller's),
// ladder.OutRefused for a k outside [1, n − 1] (the caller takes the next
// candidate), another outcome, with zero bytes, where k·G gave no point.
// The nonces never leave the GPU. ok is false, and nothing is written,
// where the engine has no such kernels (another backend, a kernel image
// without them) or the batch is not larger than the latency batches: the
// caller then signs the items itself.
func (e *Engine) SignFirst(ctx context.Context, sigs []byte, outcomes []ladder.Outcome, keys, h1s []byte) (ok bool, err error) {
	r, isGPU := e.gpuRunner()
	count, L := len(outcomes), e.curve.ByteLen()
	if !isGPU || count < gpuItemsMinBatch {
		return false, nil
	}
	sr := r.signRunner()
	if sr == nil {
		return false, nil
	}
	if len(sigs) != 2*count*L || len(keys) != count*L || len(h1s) != count*L {
		return true, fmt.Errorf("%w: SignFirst of %d items", ErrBatchLayout, count)
	}
	for i := range outcomes {
		outcomes[i] = ladder.OutFailed
	}
	if err := e.usable(); err != nil {
		return true, err
	}
	ctx, release := e.batchContext(ctx)
	defer release()
	split, _ := sr.splitFor(count)
	st, err := sr.eng.Run(ctx, gpu.Batch{Count: count, Overlapped: overlapped(ctx), Wire: sr.signWire(sigs, outcomes, keys, h1s, split)})
	sr.recordStats(st)
	r.statsMu.Lock()
	r.stats = st // the Engine's last batch, for diag.LastBatch
	r.statsMu.Unlock()
	return true, e.batchErr(err)
}

// signWire is a signing batch as bytes (package ladder's signwire.go): the
// host copies each item's key and h1 (Fill), and each signature and
// outcome back (Drain), over the cores.
func (r *gpuRunner) signWire(sigs []byte, outcomes []ladder.Outcome, keys, h1s []byte, split splitFunc) *gpu.Wire {
	L := r.su.Curve.ByteLen()
	return &gpu.Wire{
		InBytes:  r.su.SignWireInBytes(),
		OutBytes: r.su.SignWireOutBytes(),
		Fill: func(lo, hi int, in []byte) {
			n := hi - lo
			split(n, minWireItems, func(a, c int) {
				copy(in[a*L:c*L], keys[(lo+a)*L:(lo+c)*L])
				copy(in[(n+a)*L:(n+c)*L], h1s[(lo+a)*L:(lo+c)*L])
			})
		},
		Drain: func(lo, hi int, out []byte) error {
			n := hi - lo
			split(n, minWireItems, func(a, c int) {
				copy(sigs[(lo+a)*2*L:(lo+c)*2*L], out[a*2*L:c*2*L])
				for k := a; k < c; k++ {
					outcomes[lo+k] = ladder.Outcome(out[n*2*L+k])
				}
			})
			return nil
		},
	}
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
