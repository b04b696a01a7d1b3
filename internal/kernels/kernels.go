// Package kernels holds the CUDA kernel of ecmul: its sources (ecmul.cu,
// rns.cuh and the generated schedule_gen.cuh), the fatbin built from them
// by `make kernels` and embedded here, and the hash of the sources that
// fatbin was built from. README.md lists the entry points and their limits.
//
// Its importers are this module's: internal/engine and internal/gpu (the
// entry point of a configuration and its fatbin), the ecmul command's bench
// (the grid of configurations) and the emulator and harness tools. It is
// internal because a program using the library has no reason to import it;
// the Makefile, the scripts and the kernel harness address its CUDA sources
// by this path, internal/kernels.
package kernels

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:generate go run gen.go

// Fatbin is the kernel image: SASS for sm_80, sm_86, sm_89 and sm_90 and PTX
// for compute_90, built from the sources whose hash is SourcesSHA256.
//
//go:embed ecmul.fatbin
var Fatbin []byte

// MaxThreads is the largest block (blockDim.x) every entry point accepts.
const MaxThreads = 512

// IsSource reports whether a file name is one of the kernel's sources: the
// *.cu and *.cuh files of this folder (not those of harness/).
func IsSource(name string) bool {
	return !strings.Contains(name, "/") && (path.Ext(name) == ".cu" || path.Ext(name) == ".cuh")
}

// SourcesHash returns the hex SHA-256 of the kernel's sources in fsys (this
// folder): for each source in sorted name order, its name, a NUL byte, its
// contents and a NUL byte.
func SourcesHash(fsys fs.FS) (string, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return "", err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && IsSource(e.Name()) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	h := sha256.New()
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return "", err
		}
		h.Write([]byte(name))
		h.Write([]byte{0})
		h.Write(b)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
