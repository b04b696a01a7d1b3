package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
)

// newFlagSet returns the flag set of command name, whose usage prints help
// and then every flag with its default.
func newFlagSet(name, help string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), help); fs.PrintDefaults() }
	return fs
}

// parseFlags parses args into fs, which writes its errors and help to
// stderr. When the command must not go on, ok is false and code is its exit
// status: 0 after -h, 2 for a bad flag or any argument that is not a flag
// (no command takes one).
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (code int, ok bool) {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitUsage, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ecmul %s: unexpected argument %q: every setting is a flag (ecmul %[1]s --help lists them)\n", fs.Name(), fs.Arg(0))
		return exitUsage, false
	}
	return exitOK, true
}

// report writes err to w as one line with the command's prefix, and
// returns code.
func report(w io.Writer, cmd string, code int, err error) int {
	fmt.Fprintf(w, "ecmul %s: %s\n", cmd, message(err))
	return code
}

// usageError writes a usage error of cmd to w and returns exitUsage.
func usageError(w io.Writer, cmd, format string, a ...any) int {
	return report(w, cmd, exitUsage, fmt.Errorf(format, a...))
}

// packagePrefixes are the prefixes this module's packages may put on their
// errors. The command's own prefix replaces them: one prefix per message.
var packagePrefixes = []string{"ecmul", "ecdsa", "basext", "curves", "gpu", "ladder", "rns", "stream"}

// message returns err's text on one line without the package prefixes of
// the errors it wraps; a part in quotes, which may echo the input, is kept
// as it is.
func message(err error) string {
	s := stream.OneLine(err.Error())
	head, quoted, found := strings.Cut(s, `"`)
	parts := strings.Split(head, ": ")
	kept := parts[:0]
	for i, p := range parts {
		if i == len(parts)-1 || !slices.Contains(packagePrefixes, p) {
			kept = append(kept, p)
		}
	}
	if found {
		return strings.Join(kept, ": ") + `"` + quoted
	}
	return strings.Join(kept, ": ")
}
