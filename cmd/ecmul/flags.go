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

// parseFlags parses args into fs. When the command must not go on, ok is
// false and code is its exit status: 0 after -h or --help, with the help on
// stdout; 2 for a bad flag or any argument that is not a flag (no command
// takes one), with a usage error on stderr.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	fs.SetOutput(io.Discard) // the flag package's own messages and help
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(stdout)
		fs.Usage()
		return exitOK, false
	case err != nil:
		return usageError(stderr, fs.Name(), "%s", flagError(err)), false
	case fs.NArg() > 0:
		return usageError(stderr, fs.Name(), "unexpected argument %q: every setting is a flag", fs.Arg(0)), false
	}
	return exitOK, true
}

// flagError rewords an error of the flag package, which names a flag with
// one dash, as the commands name flags: --name.
func flagError(err error) string {
	s := err.Error()
	if name, ok := strings.CutPrefix(s, "flag provided but not defined: -"); ok {
		return "unknown flag --" + name
	}
	if name, ok := strings.CutPrefix(s, "flag needs an argument: -"); ok {
		return "--" + name + " needs a value"
	}
	if strings.HasPrefix(s, "invalid ") { // invalid [boolean] value "V" for [flag] -NAME: REASON
		for _, sep := range []string{" for flag -", " for -"} {
			if i := strings.LastIndex(s, sep); i >= 0 {
				return s[:i] + " for --" + s[i+len(sep):]
			}
		}
	}
	return s
}

// report writes err to w as one line with the command's prefix ("ecmul"
// alone for an empty cmd), and returns code. A usage error (code
// exitUsage) gets a second line, where to find the help.
func report(w io.Writer, cmd string, code int, err error) int {
	fmt.Fprintf(w, "%s: %s\n", strings.TrimSpace("ecmul "+cmd), message(err))
	if code == exitUsage {
		fmt.Fprintf(w, "Run %q for help.\n", helpCommand(cmd))
	}
	return code
}

// helpCommand is the command line that prints the help of cmd: the main
// help for "" and help.
func helpCommand(cmd string) string {
	if cmd == "" || cmd == "help" {
		return "ecmul -h"
	}
	return "ecmul " + cmd + " -h"
}

// flagNamed returns err, if any, as the error of flag.
func flagNamed(flag string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", flag, err)
}

// usageError writes a usage error of cmd to w and returns exitUsage.
func usageError(w io.Writer, cmd, format string, a ...any) int {
	return report(w, cmd, exitUsage, fmt.Errorf(format, a...))
}

// packagePrefixes are the prefixes this module's packages may put on their
// errors. The command's own prefix replaces them: one prefix per message.
var packagePrefixes = []string{"ecmul", "ecdsa", "ecdsasign", "basext", "curves", "gpu", "ladder", "rns", "stream"}

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
