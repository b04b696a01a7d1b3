//go:build !linux && !darwin

package main

import (
	"os"
	"time"
)

// isTerminal reports false where terminals are not detected: no progress
// output is written there.
func isTerminal(f *os.File) bool { return false }

// peakRSS is not measured on this system.
func peakRSS() (bytes int64, ok bool) { return 0, false }

// processCPU is not measured on this system.
func processCPU() (time.Duration, bool) { return 0, false }
