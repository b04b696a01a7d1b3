package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"

	"github.com/rnsec/ecmul/internal/kernels"
)

const versionHelp = `Usage: ecmul version

Prints the commit the binary was built from ("-dirty" when the tree had
uncommitted changes, "unknown" for a build without version control
information, such as "go run" or a build outside a clone), the Go version,
the target system and the SHA-256 of the CUDA sources of the embedded kernel.
Exit status 2 for usage errors.

Example:

  ecmul version
`

func versionFlagSet() *flag.FlagSet { return newFlagSet("version", versionHelp) }

// runVersion prints what a result must be traced back to: the commit the
// binary was built from, the Go toolchain and target, and the hash of the
// CUDA sources behind the embedded kernel image.
func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if code, ok := parseFlags(versionFlagSet(), args, stdout, stderr); !ok {
		return code
	}
	fmt.Fprintf(stdout, "ecmul commit %s\n%s %s/%s\nkernel sources sha256 %s\n",
		commit(), runtime.Version(), runtime.GOOS, runtime.GOARCH, kernels.SourcesSHA256)
	return exitOK
}
