//go:build race

// Package race reports whether the race detector is built in, for the
// tests that count allocations: under it, sync.Pool drops a quarter of
// the items put back, so a pooled buffer is allocated again at random.
package race

// Enabled is true when the binary is built with -race.
const Enabled = true
