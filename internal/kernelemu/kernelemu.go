// Package kernelemu emulates the ladder kernel on a fakecuda driver with the
// CPU twin (ladder.RNSExecutor): it reads the kernel's arguments and device
// buffers exactly as the CUDA kernel does and writes its outputs, so the GPU
// host path (packing, chunking, streams, conversions, faults) can be tested
// on machines without a GPU.
package kernelemu

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"sync"
	"unsafe"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
)

// Launch returns a fakecuda.LaunchFunc that runs every launched item through
// the CPU twin of the entry point's curve, schedule and channel width, with
// the base extension it names. The function must be a declared entry point
// (kernels.Entries), and its arguments those of the real entry points,
// kernels.Args: (consts, in, scalars, out, count, stride). As on the GPU, a block the
// kernel does not run (kernels.Kernel.CheckBlock) fails the launch, and only
// the items that the grid's blocks hold are computed: the columns past
// gridDim.x times the items per block are left as they were.
func Launch(d *fakecuda.Driver) fakecuda.LaunchFunc {
	var cache setups
	return func(fn string, grid, block [3]uint32, params []unsafe.Pointer) error {
		if curve, channels, ok := kernels.ParsePrepare(fn); ok {
			return emulatePrepare(d, &cache, fn, curve, channels, grid, block, params)
		}
		if curve, channels, ok := kernels.ParseFinish(fn); ok {
			return emulateFinish(d, &cache, fn, curve, channels, grid, block, params)
		}
		if curve, channels, ok := kernels.ParseVerify(fn); ok {
			return emulateVerify(d, &cache, fn, curve, channels, grid, block, params)
		}
		if curve, channels, ok := kernels.ParseUnpack(fn); ok {
			return emulateUnpack(d, &cache, fn, curve, channels, grid, block, params, false)
		}
		if curve, channels, ok := kernels.ParsePack(fn); ok {
			return emulatePack(d, &cache, fn, curve, channels, grid, block, params, false)
		}
		if curve, channels, ok := kernels.ParseVerifyUnpack(fn); ok {
			return emulateUnpack(d, &cache, fn, curve, channels, grid, block, params, true)
		}
		if curve, channels, ok := kernels.ParseVerifyPack(fn); ok {
			return emulatePack(d, &cache, fn, curve, channels, grid, block, params, true)
		}
		if curve, channels, ok := kernels.ParseSignUnpack(fn); ok {
			return emulateSignUnpack(d, &cache, fn, curve, channels, grid, block, params)
		}
		if curve, channels, ok := kernels.ParseSignPack(fn); ok {
			return emulateSignPack(d, &cache, fn, curve, channels, grid, block, params)
		}
		k, err := kernels.ByName(fn)
		if err != nil {
			return fmt.Errorf("kernelemu: %w", err)
		}
		su, err := cache.of(k)
		if err != nil {
			return fmt.Errorf("kernelemu: %s: %w", fn, err)
		}
		n := su.Params.N
		v, err := basext.ParseVariant(k.Ext)
		if err != nil {
			return fmt.Errorf("kernelemu: %s: %w", fn, err)
		}
		if err := checkLaunch(fn, k, n, grid, block, len(params)); err != nil {
			return err
		}
		count, stride := countStride(params, int(grid[0])*k.ItemsPerBlock(n, int(block[0])))
		return emulate(d, su, v, ptrArg(params, "in"), ptrArg(params, "scalars"), ptrArg(params, "out"), count, stride)
	}
}

// setups holds the ladder setup of each curve, schedule and channel width
// launched so far.
type setups struct {
	mu sync.Mutex
	m  map[string]*ladder.Setup
}

// of returns the setup of entry point k, made on its first launch.
func (s *setups) of(k kernels.Kernel) (*ladder.Setup, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := k.Curve + " " + k.Schedule + " " + k.Channels
	if su := s.m[key]; su != nil {
		return su, nil
	}
	c, err := curves.ByName(k.Curve)
	if err != nil {
		return nil, err
	}
	kind, err := ladder.ParseAnyKind(k.Schedule)
	if err != nil {
		return nil, err
	}
	su, err := ladder.NewSetupBits(c, kind, kernels.ChannelBits(k.Channels))
	if err != nil {
		return nil, err
	}
	if s.m == nil {
		s.m = map[string]*ladder.Setup{}
	}
	s.m[key] = su
	return su, nil
}

// arg returns the pointer to the value of the entry points' argument
// named name (kernels.Args) among a launch's params.
func arg(params []unsafe.Pointer, name string) unsafe.Pointer {
	i := kernels.ArgIndex(name)
	if i < 0 {
		panic("kernelemu: the entry points have no argument " + name)
	}
	return params[i]
}

// ptrArg returns the device pointer of the argument named name.
func ptrArg(params []unsafe.Pointer, name string) gpu.DevicePtr {
	return *(*gpu.DevicePtr)(arg(params, name))
}

// countStride returns a launch's count, at most taken (the items its grid
// takes), and stride arguments.
func countStride(params []unsafe.Pointer, taken int) (count, stride int) {
	count, stride = int(*(*uint32)(arg(params, "count"))), int(*(*uint32)(arg(params, "stride")))
	return min(count, taken), stride
}

// checkLaunch fails a launch of entry point fn (k, on n channels) that the
// real kernel would not run: another number of arguments than kernels.Args
// declares, a grid or block of more than one dimension, or a block size the
// kernel refuses.
func checkLaunch(fn string, k kernels.Kernel, n int, grid, block [3]uint32, args int) error {
	if args != len(kernels.Args) {
		return fmt.Errorf("kernelemu: %s: %d arguments, want %d (kernels.Args)", fn, args, len(kernels.Args))
	}
	if block[1] != 1 || block[2] != 1 || grid[1] != 1 || grid[2] != 1 {
		return fmt.Errorf("kernelemu: %s: grid %v and block %v: the kernel runs one-dimensional grids and blocks", fn, grid, block)
	}
	if err := k.CheckBlock(n, int(block[0])); err != nil {
		return fmt.Errorf("kernelemu: %w", err)
	}
	return nil
}

// emulate computes the first count items (columns) of the device buffers
// in and sc, laid out as the kernel reads them with stride columns a row,
// through the CPU twin with base extension v, and writes the results into out as the kernel does.
func emulate(d *fakecuda.Driver, su *ladder.Setup, v basext.Variant, in, sc, out gpu.DevicePtr, count, stride int) error {
	inW, err := deviceWords(d, in, su.InputRows()*stride)
	if err != nil {
		return err
	}
	scW, err := deviceWords(d, sc, su.ScalarWords()*stride)
	if err != nil {
		return err
	}
	outW := make([]uint32, su.OutputRows()*stride)
	e := su.NewRNSExecutor(v)
	for i := range count {
		k := new(big.Int)
		for w := su.ScalarWords() - 1; w >= 0; w-- {
			k.Lsh(k, 32).Or(k, big.NewInt(int64(scW[w*stride+i])))
		}
		RunItem(su, e, inW, outW, stride, i, k)
	}
	return writeRows(d, out, outW, su.OutputRows(), stride, count)
}

// RunItem runs item i of a batch, of scalar k, through the CPU twin e as
// the ladder kernel does: it reads the item's input element from the rows
// of in (none on the comb) and writes its outputs into the rows of out,
// stride columns a row.
func RunItem(su *ladder.Setup, e *ladder.RNSExecutor, in, out []uint32, stride, i int, k *big.Int) {
	n := su.Params.N
	var ch ladder.Channels
	if su.InputRows() == 0 { // the comb
		ch = e.RunComb(k, nil)
	} else {
		x := su.Params.NewElement()
		for r := range n {
			x.B[r], x.BT[r] = in[r*stride+i], in[(n+r)*stride+i]
		}
		x.E = in[2*n*stride+i]
		ch = e.Run(&x, k, su.Bits, nil)
	}
	for v := range ch {
		for r := range n {
			out[(v*n+r)*stride+i] = ch[v][r]
		}
	}
}

// emulateFinish runs a launch of the finish kernel fn (kernels.FinishName)
// through its CPU twin, ladder.Setup.FinishRowsOnHost, on the setup of the
// curve and channels it names and of the schedule its constants name
// (the comb where the y numerator is y itself): the items past what the
// grid's threads take (kernels.FinishItemsMax each) left as they were.
func emulateFinish(d *fakecuda.Driver, cache *setups, fn, curve, channels string, grid, block [3]uint32, params []unsafe.Pointer) error {
	l := ladder.FinishLayoutFor(0)
	su, err := itemSetup(d, cache, fn, curve, channels, grid, block, params, l.CRT, func(head []uint32) (int, bool) {
		return int(head[l.N]), head[l.UnitY] == 1
	})
	if err != nil {
		return err
	}
	count, stride := countStride(params, int(grid[0])*int(block[0])*kernels.FinishItemsMax)
	in, err := deviceWords(d, ptrArg(params, "in"), su.GPUInputRows()*stride)
	if err != nil {
		return err
	}
	out, err := deviceWords(d, ptrArg(params, "out"), su.OutputRows()*stride)
	if err != nil {
		return err
	}
	su.FinishRowsOnHost(in, out, stride, count)
	return writeRows(d, ptrArg(params, "out"), out, su.ResultRows(), stride, count)
}

// emulateVerify runs a launch of the verify kernel fn (kernels.VerifyName)
// through its CPU twin, ladder.Setup.VerifyRowsOnHost, on the co-Z setup
// of the curve and channels it names: one item per thread, the items past
// the grid's threads left as they were.
func emulateVerify(d *fakecuda.Driver, cache *setups, fn, curve, channels string, grid, block [3]uint32, params []unsafe.Pointer) error {
	l := ladder.FinishLayoutFor(0)
	su, err := itemSetup(d, cache, fn, curve, channels, grid, block, params, l.CRT, func(head []uint32) (int, bool) {
		return int(head[l.N]), false
	})
	if err != nil {
		return err
	}
	count, stride := countStride(params, int(grid[0])*int(block[0]))
	in, err := deviceWords(d, ptrArg(params, "in"), su.VerifyInputRows()*stride)
	if err != nil {
		return err
	}
	out, err := deviceWords(d, ptrArg(params, "out"), su.OutputRows()*stride)
	if err != nil {
		return err
	}
	su.VerifyRowsOnHost(in, out, stride, count)
	return writeRows(d, ptrArg(params, "out"), out, 1, stride, count)
}

// emulatePrepare runs a launch of the prepare kernel fn
// (kernels.PrepareName) through its CPU twin, ladder.Setup.PrepareRowsOnHost,
// on the setup of the curve and channels it names and of the schedule its
// constants name (the comb where the ladder has no input rows): one item
// per thread, the items past the grid's threads left as they were.
func emulatePrepare(d *fakecuda.Driver, cache *setups, fn, curve, channels string, grid, block [3]uint32, params []unsafe.Pointer) error {
	l := ladder.PrepareLayoutFor(0)
	su, err := itemSetup(d, cache, fn, curve, channels, grid, block, params, l.Chan, func(head []uint32) (int, bool) {
		return int(head[l.N]), head[l.RowAt] == 0
	})
	if err != nil {
		return err
	}
	count, stride := countStride(params, int(grid[0])*int(block[0]))
	in, err := deviceWords(d, ptrArg(params, "in"), su.GPUInputRows()*stride)
	if err != nil {
		return err
	}
	su.PrepareRowsOnHost(in, stride, count)
	return writeRows(d, ptrArg(params, "in"), in, su.GPUInputRows(), stride, count)
}

// emulateUnpack runs a launch of the unpack kernel fn (kernels.UnpackName)
// through its CPU twin, ladder.Setup.UnpackWireItem, or, for a verify
// batch's (kernels.VerifyUnpackName), UnpackVerifyWireItem, on the setup
// the prepare's constants name: it reads the chunk's wire bytes from out
// and writes the input rows of in and the scalar rows, one item per
// thread, the items past the grid's threads left as they were.
func emulateUnpack(d *fakecuda.Driver, cache *setups, fn, curve, channels string, grid, block [3]uint32, params []unsafe.Pointer, verify bool) error {
	l := ladder.PrepareLayoutFor(0)
	su, err := itemSetup(d, cache, fn, curve, channels, grid, block, params, l.Chan, func(head []uint32) (int, bool) {
		return int(head[l.N]), head[l.RowAt] == 0
	})
	if err != nil {
		return err
	}
	wireBytes, rows, item := su.WireInBytes(), su.GPUInputRows(), su.UnpackWireItem
	if verify && su.Schedule.Kind.IsComb() {
		return fmt.Errorf("kernelemu: %s: the co-Z ladder's constants only", fn)
	}
	if verify {
		wireBytes, rows, item = su.VerifyWireInBytes(), su.VerifyInputRows(), su.UnpackVerifyWireItem
	}
	total := int(*(*uint32)(arg(params, "count")))
	taken, stride := countStride(params, int(grid[0])*int(block[0]))
	wire, err := d.DeviceBytes(ptrArg(params, "out"), uint64(total*wireBytes))
	if err != nil {
		return err
	}
	in, err := deviceWords(d, ptrArg(params, "in"), rows*stride)
	if err != nil {
		return err
	}
	sc, err := deviceWords(d, ptrArg(params, "scalars"), su.ScalarWords()*stride)
	if err != nil {
		return err
	}
	for i := range taken {
		item(wire, in, sc, total, stride, i)
	}
	if err := writeRows(d, ptrArg(params, "in"), in, rows, stride, taken); err != nil {
		return err
	}
	return writeRows(d, ptrArg(params, "scalars"), sc, su.ScalarWords(), stride, taken)
}

// emulatePack runs a launch of the pack kernel fn (kernels.PackName)
// through its CPU twin, ladder.Setup.PackWireItem, or, for a verify
// batch's (kernels.VerifyPackName), each outcome as one byte
// (PackVerifyOnHost), on the setup the finish's constants name: it reads
// the result rows from out and writes the chunk's wire bytes into in, one
// item per thread, the items past the grid's threads left as they were.
func emulatePack(d *fakecuda.Driver, cache *setups, fn, curve, channels string, grid, block [3]uint32, params []unsafe.Pointer, verify bool) error {
	l := ladder.FinishLayoutFor(0)
	su, err := itemSetup(d, cache, fn, curve, channels, grid, block, params, l.CRT, func(head []uint32) (int, bool) {
		return int(head[l.N]), head[l.UnitY] == 1 && !verify
	})
	if err != nil {
		return err
	}
	total := int(*(*uint32)(arg(params, "count")))
	taken, stride := countStride(params, int(grid[0])*int(block[0]))
	rows, wireBytes := su.ResultRows(), su.WireOutBytes()
	if verify {
		rows, wireBytes = 1, ladder.VerifyWireOutBytes
	}
	out, err := deviceWords(d, ptrArg(params, "out"), rows*stride)
	if err != nil {
		return err
	}
	wire, err := d.DeviceBytes(ptrArg(params, "in"), uint64(total*wireBytes))
	if err != nil {
		return err
	}
	if verify {
		su.PackVerifyOnHost(out, taken, wire)
		return nil
	}
	for i := range taken {
		su.PackWireItem(out, total, stride, i, wire)
	}
	return nil
}

// emulateSignUnpack runs a launch of a signing batch's unpack kernel fn
// (kernels.SignUnpackName) through its CPU twin,
// ladder.Setup.UnpackSignWireItem, on the comb's setup of the curve and
// channels it names: it reads the keys and h1 from out, writes each nonce
// over its key there, and writes the input rows of in and the scalar rows,
// one item per thread, the items past the grid's threads left as they were.
func emulateSignUnpack(d *fakecuda.Driver, cache *setups, fn, curve, channels string, grid, block [3]uint32, params []unsafe.Pointer) error {
	l := ladder.PrepareLayoutFor(0)
	su, err := itemSetup(d, cache, fn, curve, channels, grid, block, params, l.Chan, func(head []uint32) (int, bool) {
		return int(head[l.N]), head[l.RowAt] == 0
	})
	if err != nil {
		return err
	}
	if !su.Schedule.Kind.IsComb() {
		return fmt.Errorf("kernelemu: %s: the comb's constants only", fn)
	}
	total := int(*(*uint32)(arg(params, "count")))
	taken, stride := countStride(params, int(grid[0])*int(block[0]))
	wire, err := d.DeviceBytes(ptrArg(params, "out"), uint64(total*su.SignWireInBytes()))
	if err != nil {
		return err
	}
	in, err := deviceWords(d, ptrArg(params, "in"), su.SignInputRows()*stride)
	if err != nil {
		return err
	}
	sc, err := deviceWords(d, ptrArg(params, "scalars"), su.ScalarWords()*stride)
	if err != nil {
		return err
	}
	for i := range taken {
		su.UnpackSignWireItem(wire, in, sc, total, stride, i)
	}
	if err := writeRows(d, ptrArg(params, "in"), in, su.SignInputRows(), stride, taken); err != nil {
		return err
	}
	return writeRows(d, ptrArg(params, "scalars"), sc, su.ScalarWords(), stride, taken)
}

// emulateSignPack runs a launch of a signing batch's pack kernel fn
// (kernels.SignPackName) through its CPU twin, ladder.Setup.PackSignWireItem,
// on the comb's setup of the curve and channels it names: it reads the
// result rows from out and the sign rows from in, and writes the chunk's
// wire bytes into in, on the finish's grid (kernels.FinishItemsMax items a
// thread at most), the items past those the grid's threads take left as
// they were.
func emulateSignPack(d *fakecuda.Driver, cache *setups, fn, curve, channels string, grid, block [3]uint32, params []unsafe.Pointer) error {
	l := ladder.FinishLayoutFor(0)
	su, err := itemSetup(d, cache, fn, curve, channels, grid, block, params, l.CRT, func(head []uint32) (int, bool) {
		return int(head[l.N]), head[l.UnitY] == 1
	})
	if err != nil {
		return err
	}
	if !su.Schedule.Kind.IsComb() {
		return fmt.Errorf("kernelemu: %s: the comb's constants only", fn)
	}
	total := int(*(*uint32)(arg(params, "count")))
	taken, stride := countStride(params, int(grid[0])*int(block[0])*kernels.FinishItemsMax)
	out, err := deviceWords(d, ptrArg(params, "out"), su.ResultRows()*stride)
	if err != nil {
		return err
	}
	in, err := deviceWords(d, ptrArg(params, "in"), su.SignInputRows()*stride)
	if err != nil {
		return err
	}
	wire, err := d.DeviceBytes(ptrArg(params, "in"), uint64(total*su.SignWireOutBytes()))
	if err != nil {
		return err
	}
	for i := range taken {
		su.PackSignWireItem(out, in, total, stride, i, wire)
	}
	return nil
}

// itemSetup checks a launch of fn, a kernel around the ladder, and returns
// the setup of the curve and channels it names and of the schedule its
// constants name: head(the first words of its constants) gives their
// channel count and whether they are the comb's.
func itemSetup(d *fakecuda.Driver, cache *setups, fn, curve, channels string, grid, block [3]uint32, params []unsafe.Pointer,
	words int, head func([]uint32) (n int, comb bool)) (*ladder.Setup, error) {
	if len(params) != len(kernels.Args) {
		return nil, fmt.Errorf("kernelemu: %s: %d arguments, want %d (kernels.Args)", fn, len(params), len(kernels.Args))
	}
	if block != [3]uint32{kernels.FinishThreads, 1, 1} || grid[1] != 1 || grid[2] != 1 {
		return nil, fmt.Errorf("kernelemu: %s: grid %v and block %v: the kernel runs one-dimensional grids of blocks of %d threads", fn, grid, block, kernels.FinishThreads)
	}
	w, err := deviceWords(d, ptrArg(params, "consts"), words)
	if err != nil {
		return nil, err
	}
	n, comb := head(w)
	schedule := "coz"
	if comb {
		schedule = "comb"
	}
	su, err := cache.of(kernels.Kernel{Curve: curve, Schedule: schedule, Channels: channels})
	if err != nil {
		return nil, fmt.Errorf("kernelemu: %s: %w", fn, err)
	}
	if n != su.Params.N {
		return nil, fmt.Errorf("kernelemu: %s: constants for %d channels, not %d", fn, n, su.Params.N)
	}
	return su, nil
}

// deviceWords reads the little-endian 32-bit words [0, words) of device
// memory at p.
func deviceWords(d *fakecuda.Driver, p gpu.DevicePtr, words int) ([]uint32, error) {
	b, err := d.DeviceBytes(p, uint64(4*words))
	if err != nil {
		return nil, err
	}
	w := make([]uint32, words)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w, nil
}

// writeRows writes the first rows rows of words, stride columns a row, to
// device memory at p as little-endian words, in the columns of the first
// count items alone, as the kernels do: the others keep their words.
func writeRows(d *fakecuda.Driver, p gpu.DevicePtr, words []uint32, rows, stride, count int) error {
	b, err := d.DeviceBytes(p, uint64(4*rows*stride))
	if err != nil {
		return err
	}
	for r := range rows {
		for i := range count {
			binary.LittleEndian.PutUint32(b[4*(r*stride+i):], words[r*stride+i])
		}
	}
	return nil
}
