package main

import (
	"flag"
	"io"
)

const baseHelp = `Usage: ecmul base [flags] [< input] [> output]

Computes k·G, G the curve's generator: reads one scalar per non-empty line
and writes, for each, what "ecmul mul" writes for that scalar with G as the
point, in input order. Blank lines are skipped and answered by nothing;
leading and trailing blanks, \r\n line endings and a UTF-8 byte-order mark
at the very start are accepted.

It runs through Engine.ScalarBaseMultBytes: on the gpu and rns-cpu backends
the fixed-base comb, a table of multiples of G read whole for every digit of
the scalar (constant time, as mul's ladder is), or mul's ladder with G where
the gpu backend's kernel has no comb (--ext kawamura); on the cpu backend
the reference implementations.

Formats (--format):

  hex (default)
    in:   SCALAR_HEX                  one field
    out:  X_HEX Y_HEX                 lowercase, zero-padded to the field size
                                      (56 digits for P-224, 64 otherwise)
  sec1
    in:   SCALAR_HEX
    out:  04||X||Y                    uncompressed SEC1, lowercase hex
  jsonl
    in:   {"scalar":"HEX"}            exactly this key, a string of hex;
                                      unknown or repeated keys, other value
                                      types and anything after the object
                                      make the line an error
    out:  {"x":"HEX","y":"HEX"}
  raw (binary, fixed-size records; L = 28 for P-224, 32 otherwise)
    in:   SCALAR                      L bytes, big-endian, any value,
                                      reduced mod n
    out:  STATUS ‖ X ‖ Y               STATUS 0: a point, 1: infinity,
                                      2: error; X, Y zero unless STATUS is 0
                                      (STATUS ‖ X with --x-only). A failed
                                      item's reason goes to standard error
                                      as "ecmul base: item N: REASON", N
                                      from 1; a partial last record is a
                                      failed item.

  Hex input is in any case, with or without a 0x prefix, leading zeros
  allowed, and nothing else: at least one digit, no sign (-1, 0x-1 or 0x+1
  is bad hex), no blank. The scalar is any non-negative integer of up to 512
  bits, reduced mod n.

  Every format answers k ≡ 0 mod n, whose k·G is the point at infinity,
  with "infinity" ({"infinity":true} in jsonl) and an invalid line (more
  than one field, bad hex, a scalar over 512 bits, a line longer than 4096
  bytes, ...) with "error: line N: REASON" ({"error":"line N: REASON"} in
  jsonl), N its line in the input from 1, blank lines counted; the other
  items are computed all the same.

  --x-only writes only the x coordinate of each result: X_HEX (hex and sec1)
  or {"x":"HEX"} (jsonl).

Streaming, --stats, the progress line, signals and --out (replaced when
every item has been answered, and may be the input) are mul's: see "ecmul
mul --help".

Exit status: 0 when every item succeeded, 1 when any item failed (their count
goes to standard error) or the run could not complete (unreadable input,
unwritable output, --backend gpu without a GPU), 2 for usage errors, 130 or
143 when SIGINT or SIGTERM stopped it.

Examples:

  printf '2\n' | ecmul base --backend cpu
  ecmul base --curve secp256k1 --format jsonl --x-only --in keys.jsonl --out x.jsonl

Flags:
`

func baseFlagSet(f *mulFlags) *flag.FlagSet {
	f.base = true
	return streamFlagSet("base", baseHelp, f)
}

func runBase(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runStream(&mulFlags{base: true}, baseFlagSet, args, stdin, stdout, stderr)
}
