package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUnion: the spans' covered length and the gaps between them, in
// order, overlapping and nested spans counted once.
func TestUnion(t *testing.T) {
	covered, gaps := union([]span{{7, 8}, {1, 3}, {2, 5}, {2.5, 4}})
	require.InDelta(t, 5.0, covered, 1e-12)
	require.Equal(t, []span{{5, 7}}, gaps)
	covered, gaps = union(nil)
	require.Zero(t, covered)
	require.Empty(t, gaps)
}

// TestInFlight: the time each number of spans was open together, a span
// that ends where another starts not counted as overlapping it.
func TestInFlight(t *testing.T) {
	times := inFlight([]span{{0, 4}, {1, 2}, {2, 3}, {6, 7}})
	require.Len(t, times, 3)
	require.InDelta(t, 2.0, times[0], 1e-12, "none open from 4 to 6")
	require.InDelta(t, 3.0, times[1], 1e-12)
	require.InDelta(t, 2.0, times[2], 1e-12)
	require.Equal(t, "1 60%, 2 40%", inFlightShares(times))
	require.Empty(t, inFlight(nil))
}

// TestLanes: a span goes on the first lane free at its start.
func TestLanes(t *testing.T) {
	lane, n := lanes([]span{{0, 4}, {1, 2}, {2, 3}, {5, 6}, {1.5, 7}})
	require.Equal(t, 3, n)
	require.Equal(t, []int{0, 1, 1, 0, 2}, lane)
}

// TestTraceTimelines: plot --trace draws a timeline of each run of a trace
// in every format and prints each device's kernel time and long gaps.
func TestTraceTimelines(t *testing.T) {
	dir := t.TempDir()
	lines := []traceLine{{Curve: "P-224", Op: "ecdsa", GPUs: 2, Batch: 96, Run: 1, WallMs: 10,
		Chunks: []tracedChunk{
			{Device: 0, Entry: "ecm_ladder_a", Lo: 0, Hi: 32, Start: 0.5, CopiedIn: 1, Ran: 3, Done: 3.2},
			{Device: 0, Entry: "ecm_ladder_a", Lo: 32, Hi: 64, Start: 1.5, CopiedIn: 2, Ran: 5, Done: 5.5},
			{Device: 0, Entry: "ecm_comb_b", Lo: 0, Hi: 32, Start: 6.5, CopiedIn: 7, Ran: 8, Done: 8.1},
			{Device: 1, Entry: "ecm_ladder_a", Lo: 64, Hi: 96, Start: 0.2, CopiedIn: 0.4, Ran: 9, Done: 9.5},
		},
		Runs: []tracedRun{{Entry: "ecm_ladder_a", Count: 96, StartMs: 0, EndMs: 9.6}, {Entry: "ecm_comb_b", Count: 32, StartMs: 6, EndMs: 8.5}}}}
	path := filepath.Join(dir, "trace.jsonl")
	var b strings.Builder
	for _, l := range lines {
		j, err := json.Marshal(l)
		require.NoError(t, err)
		b.Write(append(j, '\n'))
	}
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	out := filepath.Join(dir, "plots")
	code, stdout, stderr := cli(t, "--trace", path, "--out", out)
	require.Equal(t, exitOK, code, stderr)
	for _, ext := range []string{"svg", "png"} {
		info, err := os.Stat(filepath.Join(out, "timeline-p-224-ecdsa-g2-96-run1."+ext))
		require.NoError(t, err, stderr)
		require.Positive(t, info.Size())
	}
	require.Contains(t, stdout, "P-224 ecdsa gpus=2 batch=96 run 1: 10.0 ms, 2 GPU batches, 4 chunks")
	require.Contains(t, stdout, "device 0: kernels busy 5.0 ms (50% of the run), from 1.0 to 8.1 ms; 1 gap(s) over 0.5 ms, 2.0 ms in all: 2.0 at 5.0")
	require.Contains(t, stdout, "device 1: kernels busy 8.6 ms (86% of the run), from 0.4 to 9.5 ms; 0 gap(s) over 0.5 ms, 0.0 ms in all\n")
	// device 0's chunks: [0.5, 3.2], [1.5, 5.5], [6.5, 8.1]: one 4.9 ms, two 1.7 ms
	require.Contains(t, stdout, "    chunks in flight: 1 74%, 2 26%\n")

	code, _, stderr = cli(t, "--out", out)
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "--in or --trace is required")
	require.NoError(t, os.WriteFile(path, []byte("{\"curve\": 1}\n"), 0o644))
	code, _, stderr = cli(t, "--trace", path, "--out", out)
	require.Equal(t, exitFail, code)
	require.Contains(t, stderr, "line 1")
}
