package kernelemu_test

import (
	"encoding/binary"
	"math/big"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
	"github.com/rnsec/ecmul/internal/kernelemu"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/textbook"
)

// launch holds one entry point's buffers on a fake device, the output
// poisoned, ready to launch at any grid and block.
type launch struct {
	d      *fakecuda.Driver
	k      kernels.Kernel
	su     *ladder.Setup
	count  int
	params []unsafe.Pointer
	out    gpu.DevicePtr
}

const poison = 0xdeadbeef

func newLaunch(t *testing.T, mapping string, count int) *launch {
	t.Helper()
	c := curves.P224()
	su, err := ladder.NewSetupBits(c, ladder.CoZ, 30)
	require.NoError(t, err)
	k, err := kernels.Find("P-224", "coz", "shenoy", mapping, "c30")
	require.NoError(t, err)
	d := fakecuda.New()
	require.NoError(t, d.Init())
	dev, err := d.Device(0)
	require.NoError(t, err)
	ctx, err := d.PrimaryCtxRetain(dev)
	require.NoError(t, err)
	require.NoError(t, d.CtxSetCurrent(ctx))
	upload := func(w []uint32) gpu.DevicePtr {
		p, err := d.MemAlloc(uint64(4 * len(w)))
		require.NoError(t, err)
		require.NoError(t, d.MemcpyHtoD(p, unsafe.Pointer(&w[0]), uint64(4*len(w))))
		return p
	}
	n := su.Params.N
	in := make([]uint32, ladder.ElementRows(n)*count)
	sc := make([]uint32, su.ScalarWords()*count)
	for i := range count {
		j, err := su.Prepare(c.Gx(), c.Gy(), big.NewInt(int64(i+2)))
		require.NoError(t, err)
		su.PackInput(in, sc, count, i, j)
	}
	out := make([]uint32, su.OutputRows()*count)
	for i := range out {
		out[i] = poison
	}
	l := &launch{d: d, k: k, su: su, count: count, out: upload(out)}
	consts, inP, scP := upload(su.KernelConstants()), upload(in), upload(sc)
	cnt, stride := uint32(count), uint32(count)
	l.params = []unsafe.Pointer{unsafe.Pointer(&consts), unsafe.Pointer(&inP), unsafe.Pointer(&scP), unsafe.Pointer(&l.out),
		unsafe.Pointer(&cnt), unsafe.Pointer(&stride)}
	return l
}

func (l *launch) run(grid, threads uint32) error {
	return kernelemu.Launch(l.d)(l.k.Name(), [3]uint32{grid, 1, 1}, [3]uint32{threads, 1, 1}, l.params)
}

// computed reports, per item, whether its output column was written.
func (l *launch) computed(t *testing.T) []bool {
	b, err := l.d.DeviceBytes(l.out, uint64(4*l.su.OutputRows()*l.count))
	require.NoError(t, err)
	got := make([]bool, l.count)
	for i := range got {
		got[i] = binary.LittleEndian.Uint32(b[4*i:]) != poison
	}
	return got
}

// TestLaunchComputesWhatTheGridHolds: items past gridDim.x times the items
// per block keep their poison, as on the GPU, and the rest are computed.
func TestLaunchComputesWhatTheGridHolds(t *testing.T) {
	l := newLaunch(t, "block", 10)
	n := l.su.Params.N
	require.NoError(t, l.run(2, uint32(l.k.Threads(n, 3)))) // 2 blocks of 3 items: 6 of 10
	got := l.computed(t)
	for i, c := range got {
		require.Equal(t, i < 6, c, "item %d", i)
	}
	// the mma mapping: a warp holds 8 items, whatever the items asked
	l = newLaunch(t, "mma", 20)
	require.Equal(t, 32, l.k.Threads(n, 3))
	require.NoError(t, l.run(2, uint32(l.k.Threads(n, 3)))) // 2 warps of 8 items: 16 of 20
	for i, c := range l.computed(t) {
		require.Equal(t, i < 16, c, "mma, item %d", i)
	}
}

// TestLaunchRefusesBlocksTheKernelTraps: blocks the kernel does not run
// fail the launch, and nothing is written.
func TestLaunchRefusesBlocksTheKernelTraps(t *testing.T) {
	for _, tc := range []struct {
		mapping string
		threads uint32
	}{{"block", kernels.MaxThreads + 1}, {"block", 1024}, {"spread", 48}, {"warp", 0}, {"mma", 16}, {"mma", 48}} {
		l := newLaunch(t, tc.mapping, 4)
		require.Error(t, l.run(1, tc.threads), "%s, %d threads", tc.mapping, tc.threads)
		require.NotContains(t, l.computed(t), true, "%s, %d threads", tc.mapping, tc.threads)
	}
	l := newLaunch(t, "block", 4)
	require.Error(t, kernelemu.Launch(l.d)(l.k.Name(), [3]uint32{1, 1, 1}, [3]uint32{36, 2, 1}, l.params))
}

// TestLaunchChecksTheArguments: a launch passes one pointer per argument
// of kernels.Args, and newLaunch's are in its order; one more or one fewer
// fails the launch, and nothing is written.
func TestLaunchChecksTheArguments(t *testing.T) {
	names := []string{"consts", "in", "scalars", "out", "count", "stride"}
	require.Len(t, kernels.Args, len(names))
	for i, a := range kernels.Args {
		require.Equal(t, names[i], a.Name)
		require.Equal(t, i, kernels.ArgIndex(a.Name))
	}
	require.Equal(t, -1, kernels.ArgIndex("x"))
	l := newLaunch(t, "block", 4)
	n := l.su.Params.N
	threads := uint32(l.k.Threads(n, 4))
	for _, params := range [][]unsafe.Pointer{l.params[:len(l.params)-1], append(l.params[:len(l.params):len(l.params)], l.params[0])} {
		err := kernelemu.Launch(l.d)(l.k.Name(), [3]uint32{1, 1, 1}, [3]uint32{threads, 1, 1}, params)
		require.ErrorContains(t, err, "arguments")
		require.NotContains(t, l.computed(t), true)
	}
	require.NoError(t, l.run(1, threads))
	require.NotContains(t, l.computed(t), false)
}

// TestDriverRefusesBlocksOverMaxThreads: through the fake driver, a block
// of more than kernels.MaxThreads threads fails the launch as the kernel's
// trap (CUDA_ERROR_LAUNCH_FAILED) before the emulation runs; one of
// kernels.MaxThreads computes.
func TestDriverRefusesBlocksOverMaxThreads(t *testing.T) {
	l := newLaunch(t, "spread", 4)
	l.d.OnLaunch = kernelemu.Launch(l.d)
	m, err := l.d.ModuleLoadData([]byte("fatbin"))
	require.NoError(t, err)
	f, err := l.d.ModuleGetFunction(m, l.k.Name())
	require.NoError(t, err)
	err = l.d.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{kernels.MaxThreads + 32, 1, 1}, 0, 0, l.params)
	var ce *gpu.CUDAError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, 719, ce.Code, "%v", err)
	require.NotContains(t, l.computed(t), true)
	require.NoError(t, l.d.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{kernels.MaxThreads, 1, 1}, 0, 0, l.params))
	require.NotContains(t, l.computed(t), false)
	require.NoError(t, l.d.ModuleUnload(m))
}

// TestFinishLaunch: the finish kernel's launch, after the ladder's on the
// same buffers, turns the outputs of the items its grid takes
// (kernels.FinishItemsMax per thread) into the reference's points,
// leaves the others' outputs as the ladder wrote them, and refuses a block
// of another size than kernels.FinishThreads. With -short (the race
// detector's run) the batch is one that a block's threads take whole.
func TestFinishLaunch(t *testing.T) {
	count := kernels.FinishThreads*kernels.FinishItemsMax + 5
	if testing.Short() {
		count = 2*kernels.FinishThreads + 5
	}
	l := newLaunch(t, "block", count)
	su, c := l.su, curves.P224()
	in := make([]uint32, su.GPUInputRows()*count)
	sc := make([]uint32, su.ScalarWords()*count)
	for i := range count {
		var it ladder.Item
		k := big.NewInt(int64(i + 2))
		require.NoError(t, su.PrepareBytes(&it, k.FillBytes(make([]byte, c.ByteLen())), c.EncodeSEC1(c.Generator(), false)))
		su.PackItem(in, sc, count, i, &it)
		su.PackFinish(in, count, i, &it)
	}
	upload := func(w []uint32) gpu.DevicePtr {
		p, err := l.d.MemAlloc(uint64(4 * len(w)))
		require.NoError(t, err)
		require.NoError(t, l.d.MemcpyHtoD(p, unsafe.Pointer(&w[0]), uint64(4*len(w))))
		return p
	}
	inP := upload(in)
	l.params[1] = unsafe.Pointer(&inP)
	require.NoError(t, l.run(uint32(count), uint32(l.k.Threads(su.Params.N, 1))))
	before, err := l.d.DeviceBytes(l.out, uint64(4*su.OutputRows()*count))
	require.NoError(t, err)
	before = append([]byte(nil), before...)
	finish, err := kernels.FinishName(c.Name(), "c30")
	require.NoError(t, err)
	consts := upload(su.FinishConstants())
	params := append([]unsafe.Pointer{unsafe.Pointer(&consts)}, l.params[1:]...)
	launch := kernelemu.Launch(l.d)
	require.Error(t, launch(finish, [3]uint32{1, 1, 1}, [3]uint32{64, 1, 1}, params), "a block of 64 threads")
	require.NoError(t, launch(finish, [3]uint32{1, 1, 1}, [3]uint32{kernels.FinishThreads, 1, 1}, params))
	b, err := l.d.DeviceBytes(l.out, uint64(4*su.OutputRows()*count))
	require.NoError(t, err)
	out := make([]uint32, su.OutputRows()*count)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	xy := make([]byte, 2*c.ByteLen())
	taken := kernels.FinishThreads * kernels.FinishItemsMax
	for i := range count {
		if i >= taken {
			for r := range su.OutputRows() {
				require.Equal(t, before[4*(r*count+i):4*(r*count+i+1)], b[4*(r*count+i):4*(r*count+i+1)], "item %d past the grid", i)
			}
			continue
		}
		require.Equal(t, ladder.OutPoint, su.ReadResult(out, count, i, xy), "item %d", i)
		x, y, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), big.NewInt(int64(i+2)))
		require.NoError(t, err)
		require.Equal(t, x.FillBytes(make([]byte, c.ByteLen())), xy[:c.ByteLen()], "item %d", i)
		require.Equal(t, y.FillBytes(make([]byte, c.ByteLen())), xy[c.ByteLen():], "item %d", i)
	}
}

// TestVerifyLaunch: the verify kernel's launch, after the ladder's on the
// same buffers, writes each item's outcome over the first output row of
// the items its threads take, one each: valid where r is x(u1·G + u2·Q)
// mod n, invalid where it is that plus one; the items past the grid keep
// the ladder's outputs.
func TestVerifyLaunch(t *testing.T) {
	const count = kernels.FinishThreads + 9
	l := newLaunch(t, "block", count)
	su, c := l.su, curves.P224()
	in := make([]uint32, su.VerifyInputRows()*count)
	sc := make([]uint32, su.ScalarWords()*count)
	g := &curves.Point{X: c.Gx(), Y: c.Gy()}
	for i := range count {
		var it ladder.Item
		k := big.NewInt(int64(i + 2))
		require.NoError(t, su.PrepareBytes(&it, k.FillBytes(make([]byte, c.ByteLen())), c.EncodeSEC1(c.Generator(), false)))
		su.PackItem(in, sc, count, i, &it)
		su.PackFinish(in, count, i, &it)
		u1G := textbook.Mul(c, g, big.NewInt(int64(3*i+5)))
		r := new(big.Int).Mod(textbook.Add(c, u1G, textbook.Mul(c, g, k)).X, c.N())
		if i%2 == 1 {
			r.Add(r, big.NewInt(1)) // invalid
		}
		su.PackVerify(in, count, i, limbs(u1G.X), limbs(u1G.Y), limbs(r), [4]uint64{}, 0)
	}
	upload := func(w []uint32) gpu.DevicePtr {
		p, err := l.d.MemAlloc(uint64(4 * len(w)))
		require.NoError(t, err)
		require.NoError(t, l.d.MemcpyHtoD(p, unsafe.Pointer(&w[0]), uint64(4*len(w))))
		return p
	}
	inP := upload(in)
	l.params[1] = unsafe.Pointer(&inP)
	require.NoError(t, l.run(count, uint32(l.k.Threads(su.Params.N, 1))))
	before, err := l.d.DeviceBytes(l.out, uint64(4*su.OutputRows()*count))
	require.NoError(t, err)
	before = append([]byte(nil), before...)
	verify, err := kernels.VerifyName(c.Name(), "c30")
	require.NoError(t, err)
	consts := upload(su.FinishConstants())
	params := append([]unsafe.Pointer{unsafe.Pointer(&consts)}, l.params[1:]...)
	require.NoError(t, kernelemu.Launch(l.d)(verify, [3]uint32{1, 1, 1}, [3]uint32{kernels.FinishThreads, 1, 1}, params))
	b, err := l.d.DeviceBytes(l.out, uint64(4*su.OutputRows()*count))
	require.NoError(t, err)
	for i := range count {
		got := binary.LittleEndian.Uint32(b[4*i:])
		switch {
		case i >= kernels.FinishThreads:
			require.Equal(t, before[4*i:4*i+4], b[4*i:4*i+4], "item %d past the grid", i)
		case i%2 == 0:
			require.Equal(t, uint32(ladder.OutValid), got, "item %d", i)
		default:
			require.Equal(t, uint32(ladder.OutInvalid), got, "item %d", i)
		}
	}
}

// limbs returns 0 <= x < 2^256 as four 64-bit limbs.
func limbs(x *big.Int) (l [4]uint64) {
	b := x.FillBytes(make([]byte, 32))
	for i := range l {
		l[i] = binary.BigEndian.Uint64(b[32-8*(i+1):])
	}
	return l
}
