// Package gpu runs the RNS Montgomery-ladder kernel on NVIDIA GPUs through
// the CUDA driver API, which is loaded at run time from libcuda.so.1: there is
// no cgo and no CUDA toolkit is needed to build.
//
// All driver access goes through the [Driver] interface. [LoadDriver] and
// [DefaultDriver] return the real binding; tests substitute the in-memory fake
// from package gpu/fakecuda. On a machine without a GPU or without the NVIDIA
// driver, loading fails with an error that satisfies errors.Is(err,
// [ErrNoDevice]), so callers can fall back to the CPU.
//
// An [Engine] runs one kernel on one device, a batch in chunks on four
// streams, each chunk copied up from pinned host memory and back, or, for a
// small chunk on Config.Small's kernel, computed in place in that memory;
// the item kernels around it (Config.Prepare, Config.Finish) and, for a
// batch that asks for them, a chain of kernels before them
// ([PreChain]) run on the same stream;
// a [Pool] runs batches over several devices, one Engine each,
// chunks handed to whichever device is free (an overlapped batch's, an
// equal share to each), and survives a device whose
// driver calls fail by running its unfinished chunks on the others.
package gpu
