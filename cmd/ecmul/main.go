// Command ecmul computes batched elliptic-curve scalar multiplications on a
// GPU (RNS Montgomery ladder) or on the CPU, and inspects the RNS parameters.
//
//	ecmul mul     multiply points by scalars, one item per line
//	ecmul params  show the RNS bases and every bound, proved for a curve
//	ecmul devices list the CUDA devices
//	ecmul bench   measure throughput and latency against CPU peers
//	ecmul plot    draw latency and throughput charts from bench reports
//
// Run "ecmul help COMMAND" for the flags of each command.
package main

import (
	"fmt"
	"io"
	"os"
)

// Exit statuses shared by every command.
const (
	exitOK    = 0
	exitFail  = 1 // some item failed, or the command could not do its work
	exitUsage = 2 // bad flags or arguments
)

type command struct {
	name, summary string
	run           func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"mul", "multiply points by scalars, one item per line", runMul},
		{"params", "show the RNS bases and every bound, proved for a curve", runParams},
		{"devices", "list the CUDA devices", runDevices},
		{"bench", "measure throughput and latency versus batch size, with CPU peers", runBench},
		{"plot", "draw latency and throughput charts from bench reports", runPlot},
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, `ecmul: batched elliptic-curve scalar multiplication (P-224, P-256, secp256k1)
on NVIDIA GPUs with Residue Number System arithmetic, or on the CPU.

Usage: ecmul COMMAND [flags]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun \"ecmul COMMAND -h\" for the flags of a command.\n")
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name := args[0]
	if name == "help" || name == "-h" || name == "--help" || name == "-help" {
		if len(args) > 1 {
			for _, c := range commands() {
				if c.name == args[1] {
					return c.run([]string{"-h"}, stdin, stdout, stdout)
				}
			}
		}
		usage(stdout)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "ecmul: unknown command %q\n\n", name)
	usage(stderr)
	return exitUsage
}

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
