package diag

import "github.com/rnsec/ecmul/internal/gpu"

// Trace is what the gpu backend recorded between StartTrace and
// StopTrace, for every Engine of the process, on one clock: milliseconds
// of the host's clock from StartTrace.
type Trace struct {
	// Chunks are the chunks with copies, each with its device, the entry
	// point of its kernel (the ladder's or a comb's), its items within its
	// batch and its stages' times (ChunkTimes). The times of each kernel's
	// chunks on a device are their events' elapsed times from an event the
	// host waited for at its first chunk there in the trace; that wait
	// also delays that chunk.
	Chunks []TracedChunk `json:"chunks"`
	// Runs are the GPU batches, each with its entry point, items, and when
	// it began and returned on the host.
	Runs []TracedRun `json:"runs"`
}

// TracedChunk is a chunk of a Trace.
type TracedChunk struct {
	Device int    `json:"device"`
	Entry  string `json:"entry"`
	ChunkTimes
}

// TracedRun is a GPU batch of a Trace.
type TracedRun struct {
	Entry   string  `json:"entry"`
	Count   int     `json:"count"`
	StartMs float64 `json:"start_ms"`
	EndMs   float64 `json:"end_ms"`
}

// StartTrace starts a trace of every GPU batch of the process, dropping
// what an earlier one recorded.
func StartTrace() { gpu.StartTrace() }

// StopTrace ends the trace and returns it.
func StopTrace() Trace {
	t := gpu.StopTrace()
	var out Trace
	for _, c := range t.Chunks {
		out.Chunks = append(out.Chunks, TracedChunk{Device: c.Device, Entry: c.Entry, ChunkTimes: ChunkTimes(c.ChunkTimes)})
	}
	for _, r := range t.Runs {
		out.Runs = append(out.Runs, TracedRun(r))
	}
	return out
}
