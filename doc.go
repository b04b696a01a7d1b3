// Package ecmul computes batched elliptic-curve scalar multiplications
// k_i·P_i for NIST P-224, P-256 and secp256k1, on an NVIDIA GPU with the RNS
// arithmetic of Antão, Bajard and Sousa and a constant-time Montgomery
// ladder, or on the CPU.
//
// Curves are values: P224(), P256(), Secp256k1(), or ParseCurve(name). An
// Engine is bound to one curve and one Backend:
//
//   - GPU: the CUDA kernel (one thread per RNS channel), when a GPU is present;
//   - RNSCPU: the CPU twin of the kernel, the same RNS arithmetic channel for channel;
//   - CPU: constant-time scalar multiplication in four-limb Montgomery
//     arithmetic (a fixed window for k·P, a comb for k·G, complete
//     formulas), on all cores;
//   - Auto (the zero value): GPU when a GPU can be used, otherwise CPU.
//
// Batches come in two forms: ScalarMult takes *big.Int scalars and points;
// ScalarMultBytes takes fixed-width big-endian scalars and SEC1 points in
// flat buffers and writes a Status per item and the results, as
// uncompressed or compressed SEC1 points or as x alone (ECDH's shared
// secret), into the caller's buffers, with no allocation per item and, on
// the gpu backend, without taking a scalar or a result through math/big or
// a branch on them. ScalarBaseMult and ScalarBaseMultBytes take the
// curve's generator G as every item's point (k·G: key generation,
// signing), computed from a table of G's multiples. Every call takes its
// destination first, then the scalars, then the points, as copy and
// io.ReadFull take the destination first. On a host with several GPUs the
// gpu backend shares each batch among them (Options.Devices picks them).
//
// Every point is validated before any arithmetic; an invalid item gets its
// own error (matching ErrInvalidPoint or ErrInvalidScalar) and the other
// items of the batch still get their results. WithProgress has a batch
// report how far it has got.
//
// The RNS settings (schedule, base extension, channel width), the gpu
// backend's kernel settings and its measurements are package diag's; a
// program that only multiplies imports this package alone.
package ecmul
