// Command ecmul computes batched elliptic-curve scalar multiplications on a
// GPU (RNS Montgomery ladder) or on the CPU, and inspects the RNS parameters.
//
//	ecmul mul     multiply points by scalars, one item per line
//	ecmul base    compute k·G for scalars, one per line
//	ecmul verify  check a backend on random items against the references
//	ecmul gen     write random valid input lines for mul
//	ecmul ecdsa-sign    sign digests with ECDSA (RFC 6979), one item per line
//	ecmul ecdsa-verify  verify ECDSA signatures, one item per line
//	ecmul params  show the RNS bases and every bound, proved for a curve
//	ecmul devices list the CUDA devices
//	ecmul bench   measure throughput and latency against CPU peers
//	ecmul version print the commit and kernel sources hash of the binary
//
// Run "ecmul help COMMAND" for the flags of each command.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Exit statuses shared by every command.
const (
	exitOK    = 0
	exitFail  = 1 // some item failed, or the command could not do its work
	exitUsage = 2 // bad flags or arguments
)

type command struct {
	name, summary string
	// flags returns a fresh flag set of the command, as run parses it.
	flags func() *flag.FlagSet
	run   func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"mul", "multiply points by scalars, one item per line (hex, sec1 or jsonl) or raw binary records",
			func() *flag.FlagSet { return mulFlagSet(new(mulFlags)) }, runMul},
		{"base", "compute k·G for scalars, one per line (hex, sec1 or jsonl) or raw binary records",
			func() *flag.FlagSet { return baseFlagSet(new(mulFlags)) }, runBase},
		{"verify", "check a backend on random items against the reference implementations",
			func() *flag.FlagSet { return verifyFlagSet(new(verifyFlags)) }, runVerify},
		{"gen", "write random valid input lines for mul",
			func() *flag.FlagSet { return genFlagSet(new(genFlags)) }, runGen},
		{"ecdsa-sign", "sign digests with ECDSA and RFC 6979 nonces, one item per line: R_HEX S_HEX or DER",
			func() *flag.FlagSet { return ecdsaSignFlagSet(new(ecdsaSignFlags)) }, runECDSASign},
		{"ecdsa-verify", "verify ECDSA signatures, one item per line: valid or invalid",
			func() *flag.FlagSet { return ecdsaVerifyFlagSet(new(ecdsaVerifyFlags)) }, runECDSAVerify},
		{"params", "show the RNS bases and every bound, proved for a curve",
			func() *flag.FlagSet { return paramsFlagSet(new(paramsFlags)) }, runParams},
		{"devices", "list the CUDA devices", devicesFlagSet, runDevices},
		{"bench", "measure throughput and latency versus batch size, with CPU peers",
			func() *flag.FlagSet { return benchFlagSet(new(benchFlags)) }, runBench},
		{"version", "print the commit, Go version and kernel sources hash of this binary", versionFlagSet, runVersion},
	}
}

// lookup returns the command called name.
func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func usage(w io.Writer) {
	fmt.Fprintf(w, `ecmul: batched elliptic-curve scalar multiplication k·P (P-224, P-256,
secp256k1) on NVIDIA GPUs with Residue Number System arithmetic, or on the CPU.

Usage: ecmul COMMAND [flags]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "  %-12s %s\n", "help", "show this help, or with a command's name that command's flags")
	fmt.Fprintf(w, `
Curves (--curve): p224, p256, secp256k1 (also P-224, secp224r1, P-256,
secp256r1, prime256v1). Every name a flag takes (curve, backend, schedule,
base extension, format, mapping) is accepted in any case.
Backends (--backend): auto (gpu if one can be used, else cpu), gpu (the CUDA
kernel), rns-cpu (the kernel's arithmetic on the CPU, slow), cpu (constant
time in four-limb arithmetic, all cores).

Exit status: 0 on success, 1 when an item failed or the work could not be
done, 2 for usage errors (an unknown flag or value, any argument that is not
a flag: one line naming it, then where the help is), 130 or 143 when SIGINT
or SIGTERM stopped a command that streams (mul, base, ecdsa-sign,
ecdsa-verify, gen) after it wrote the whole lines it had.

Examples:
  echo '2 b70e0cbd6bb4bf7f321390b94a03c1d356c21122343280d6115c1d21 bd376388b5f723fb4c22dfe6cd4375a05a07476444d5819985007e34' | ecmul mul
  ecmul gen --curve p256 --n 1000000 | ecmul mul --curve p256 --stats > results.txt
  ecmul verify --curve secp256k1 --backend gpu --n 100000

Run "ecmul COMMAND -h" or "ecmul help COMMAND" for the flags of a command.
`)
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	return arg == "help" || arg == "-h" || arg == "--help" || arg == "-help"
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	if isHelp(args[0]) {
		return runHelp(args[1:], stdin, stdout, stderr)
	}
	if c, ok := lookup(args[0]); ok {
		return c.run(args[1:], stdin, stdout, stderr)
	}
	return unknownCommand(stderr, "", args[0])
}

// runHelp is "ecmul help [COMMAND]": the main help, or a command's, on
// standard output.
func runHelp(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0 || len(args) == 1 && isHelp(args[0]):
		usage(stdout)
		return exitOK
	case len(args) > 1:
		return usageError(stderr, "help", "unexpected argument %q: help takes one command", args[1])
	}
	c, ok := lookup(args[0])
	if !ok {
		return unknownCommand(stderr, "help", args[0])
	}
	return c.run([]string{"-h"}, stdin, stdout, stderr)
}

// unknownCommand reports name, which is no command, as a usage error of
// cmd ("" for ecmul itself, where a flag must follow a command).
func unknownCommand(stderr io.Writer, cmd, name string) int {
	if cmd == "" && strings.HasPrefix(name, "-") {
		return usageError(stderr, cmd, "unknown flag %s: flags follow the command", name)
	}
	return usageError(stderr, cmd, "unknown command %q", name)
}

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
