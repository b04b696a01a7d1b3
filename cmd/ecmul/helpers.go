package main

import (
	"runtime"
	"strings"

	"github.com/rnsec/ecmul/internal/par"
)

// parts splits n items among the cores: the bounds of each part.
func parts(n int) []int { return par.Bounds(n, runtime.GOMAXPROCS(0), 256) }

// each runs do on every part of [0, n) on all cores.
func each(n int, do func(part, lo, hi int)) { par.Do(n, runtime.GOMAXPROCS(0), 256, do) }

// oneLine keeps an error message on a single output line.
func oneLine(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "\r", " "), "\n", " ") }
