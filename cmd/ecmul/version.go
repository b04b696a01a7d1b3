package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"

	"github.com/rnsec/ecmul/kernels"
)

// runVersion prints what a result must be traced back to: the commit the
// binary was built from, the Go toolchain and target, and the hash of the
// CUDA sources behind the embedded kernel image.
func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: ecmul version

Prints the commit the binary was built from ("-dirty" when the tree had
uncommitted changes, "unknown" for a build without version control
information, such as "go run" or a build outside a clone), the Go version,
the target system and the SHA-256 of the CUDA sources of the embedded kernel.

Example:

  ecmul version
`)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ecmul version: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	fmt.Fprintf(stdout, "ecmul commit %s\n%s %s/%s\nkernel sources sha256 %s\n",
		commit(), runtime.Version(), runtime.GOOS, runtime.GOARCH, kernels.SourcesSHA256)
	return exitOK
}
