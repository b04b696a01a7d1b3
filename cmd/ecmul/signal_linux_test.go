package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
)

// patternInput is count lines of pattern, line i pattern[i % len].
func patternInput(pattern []item, count int) []byte {
	var b bytes.Buffer
	for i := range count {
		b.WriteString(pattern[i%len(pattern)].in)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// requirePatternPrefix checks that out is whole lines, line i the answer
// to pattern[i % len] on input line i+1 (an error line for an invalid
// item, whatever its reason); it returns the number of lines.
func requirePatternPrefix(t *testing.T, pattern []item, out []byte) int {
	t.Helper()
	if len(out) == 0 {
		return 0
	}
	require.Equal(t, byte('\n'), out[len(out)-1], "the output ends inside a line: %q", out[max(0, len(out)-80):])
	lines := strings.Split(string(out[:len(out)-1]), "\n")
	for i, l := range lines {
		want := pattern[i%len(pattern)].out
		if strings.HasPrefix(want, "error: ") {
			require.True(t, strings.HasPrefix(l, fmt.Sprintf("error: line %d: ", i+1)), "line %d is %q, want an error", i+1, l)
		} else {
			require.Equal(t, want, l, "line %d", i+1)
		}
	}
	return len(lines)
}

// requireStopped checks that the process cmd, which ended with err, was
// stopped by sig: exit status 128 + sig, and the message on stderr.
func requireStopped(t *testing.T, err error, stderr string, sig syscall.Signal) {
	t.Helper()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "stderr: %s", stderr)
	require.Equal(t, 128+int(sig), exit.ExitCode(), "%v; stderr: %s", exit, stderr)
	require.Contains(t, stderr, "stopped by "+signalName(sig))
}

// signalAfterReading runs cmd with its standard output on a pipe that it
// reads slowly, sends sig once at least at bytes have come, reads the rest
// at full speed and returns all it read and the error of the process.
func signalAfterReading(t *testing.T, cmd *exec.Cmd, at int, sig syscall.Signal) ([]byte, error) {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	cmd.Stdout = w
	startCLI(t, cmd)
	w.Close()
	var got []byte
	buf := make([]byte, 16<<10)
	for len(got) < at {
		n, err := r.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			break // the process ended: the check of its output says why
		}
		time.Sleep(100 * time.Microsecond)
	}
	require.NoError(t, cmd.Process.Signal(sig))
	rest, err := io.ReadAll(r)
	require.NoError(t, err)
	return append(got, rest...), cmd.Wait()
}

// startFed starts cmd with its standard input on a pipe that a goroutine
// feeds with the lines of pattern, line i pattern[i % len], in bursts of
// random length with random pauses, until the process is gone, when the
// returned channel is closed.
func startFed(t *testing.T, cmd *exec.Cmd, pattern []item, seed uint64) <-chan struct{} {
	t.Helper()
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	cmd.Stdin = pr
	startCLI(t, cmd)
	pr.Close()
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		defer pw.Close()
		feed := rand.New(rand.NewPCG(seed, 41))
		for n := 0; ; {
			var b bytes.Buffer
			for range 1 + feed.IntN(64) {
				b.WriteString(pattern[n%len(pattern)].in + "\n")
				n++
			}
			if _, err := pw.Write(b.Bytes()); err != nil {
				return
			}
			// pauses longer and shorter than the 2 ms after which the
			// lines read so far are answered
			time.Sleep(time.Duration(feed.IntN(5000)) * time.Microsecond)
		}
	}()
	return fed
}

// waitFor waits until cond holds, for a minute at most.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(2 * time.Millisecond) {
		require.Less(t, time.Since(start), time.Minute, "waited a minute")
	}
}

// requireAlive checks that the process that done reports on has not ended
// within 300 ms.
func requireAlive(t *testing.T, done <-chan error, why string) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("the process ended (%v): %s", err, why)
	case <-time.After(300 * time.Millisecond):
	}
}

// waiting returns the channel on which cmd.Wait's error comes.
func waiting(cmd *exec.Cmd) <-chan error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return done
}

// stopSignal is the signal of trial i: SIGINT and SIGTERM in turn.
func stopSignal(i int) syscall.Signal {
	if i%2 == 0 {
		return syscall.SIGINT
	}
	return syscall.SIGTERM
}

// TestSignalStopsAtWholeLines signals real ecmul processes at random
// moments: mul with its output to a slowly read pipe, to a file and to
// --out, and base, ecdsa-verify, ecdsa-sign and gen to a pipe. Each stops
// with exit status 130 (SIGINT) or 143 (SIGTERM), its output the start of
// the whole answer in whole lines, and --out left as it was.
func TestSignalStopsAtWholeLines(t *testing.T) {
	trials := 2
	if !testing.Short() {
		trials = 8
	}
	seed := uint64(time.Now().UnixNano()) // the moments differ from run to run
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the random moments came from seed %d", seed)
		}
	})
	rng := rand.New(rand.NewPCG(seed, 40))
	c := curves.P224()
	pattern := streamPattern(t, c)

	t.Run("mul/pipe", func(t *testing.T) {
		// chunks whose output is longer than a write, three of them ahead
		in := patternInput(pattern, 60000)
		path := filepath.Join(t.TempDir(), "in.txt")
		require.NoError(t, os.WriteFile(path, in, 0o644))
		for i := range trials {
			var stderr bytes.Buffer
			cmd := cliProcess(t, "mul", "--backend", "cpu", "--chunk", "4096", "--in", path)
			cmd.Stderr = &stderr
			at := 1 + rng.IntN(500<<10) // the whole output is about 1.4 MB
			out, err := signalAfterReading(t, cmd, at, stopSignal(i))
			lines := requirePatternPrefix(t, pattern, out)
			requireStopped(t, err, stderr.String(), stopSignal(i))
			require.Less(t, lines, 60000)
			require.Contains(t, stderr.String(), fmt.Sprintf("after %d item(s)", lines))
		}
	})

	// mul reading a pipe that the test feeds in bursts, to a file or --out
	for _, toOut := range []bool{false, true} {
		name := "mul/file"
		if toOut {
			name = "mul/--out"
		}
		t.Run(name, func(t *testing.T) {
			for i := range trials {
				dir := t.TempDir()
				target := filepath.Join(dir, "o")
				require.NoError(t, os.WriteFile(target, []byte("keep\n"), 0o644))
				args := []string{"mul", "--backend", "cpu"}
				written := target // the file that grows as answers come
				var stdout *os.File
				if toOut {
					args = append(args, "--out", target)
				} else {
					f, err := os.Create(target)
					require.NoError(t, err)
					defer f.Close()
					stdout = f
				}
				var stderr bytes.Buffer
				cmd := cliProcess(t, args...)
				cmd.Stdout, cmd.Stderr = stdout, &stderr
				fed := startFed(t, cmd, pattern, uint64(i))
				// the answers have begun (the signals are caught by
				// then), then a random moment
				begun := func() bool {
					if toOut {
						tmp, _ := filepath.Glob(filepath.Join(dir, ".o.ecmul-*"))
						if len(tmp) != 1 { // or --out is written directly
							b, err := os.ReadFile(target)
							return err == nil && string(b) != "keep\n"
						}
						written = tmp[0]
					}
					st, err := os.Stat(written)
					return err == nil && st.Size() > 0
				}
				waitFor(t, begun)
				time.Sleep(time.Duration(rng.IntN(100)) * time.Millisecond)
				require.NoError(t, cmd.Process.Signal(stopSignal(i)))
				err := cmd.Wait()
				<-fed
				if toOut {
					requireContent(t, target, "keep\n", "--out is left as it was")
					requireDir(t, dir, "o")
					requireStopped(t, err, stderr.String(), stopSignal(i))
					require.Contains(t, stderr.String(), "--out "+target+" left as it was")
					continue
				}
				got, rerr := os.ReadFile(target)
				require.NoError(t, rerr)
				lines := requirePatternPrefix(t, pattern, got)
				requireStopped(t, err, stderr.String(), stopSignal(i))
				require.Contains(t, stderr.String(), fmt.Sprintf("after %d item(s)", lines))
			}
		})
	}

	// base, ecdsa-verify, ecdsa-sign and gen to a pipe: their output is the start of
	// a whole run's
	baseIn := func() []byte {
		var b bytes.Buffer
		for i := range 20000 {
			switch i % 10 {
			case 0:
				fmt.Fprintf(&b, "%x\n", randScalar(newRNG(uint64(i)), c))
			case 5:
				b.WriteString("zz\n")
			default:
				b.WriteString("0\n")
			}
		}
		return b.Bytes()
	}
	ecdsaIn := func() []byte {
		var b bytes.Buffer
		line := fileCommands(t)[3].in
		valid := line[:strings.IndexByte(line, '\n')]
		for i := range 10000 {
			if i%10 == 0 {
				b.WriteString(valid + "\n")
			} else {
				b.WriteString("x\n")
			}
		}
		return b.Bytes()
	}
	signIn := func() []byte {
		var b bytes.Buffer
		for i := range 10000 {
			if i%10 == 0 {
				fmt.Fprintf(&b, "%x %x\n", sha256.Sum256([]byte{byte(i)}), i+1)
			} else {
				b.WriteString("x\n")
			}
		}
		return b.Bytes()
	}
	for k, tc := range []struct {
		args []string
		in   []byte
	}{
		{[]string{"base", "--backend", "cpu", "--chunk", "2048"}, baseIn()},
		{[]string{"ecdsa-verify", "--curve", "p256", "--backend", "cpu", "--chunk", "512"}, ecdsaIn()},
		{[]string{"ecdsa-sign", "--curve", "p256", "--backend", "cpu", "--chunk", "512"}, signIn()},
		{[]string{"gen", "--n", "50000", "--pool", "64"}, nil},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			whole := runWhole(t, tc.args, tc.in)
			path := filepath.Join(t.TempDir(), "in.txt")
			require.NoError(t, os.WriteFile(path, tc.in, 0o644))
			args := tc.args
			if tc.in != nil {
				args = append(args, "--in", path)
			}
			for i := range trials {
				var stderr bytes.Buffer
				cmd := cliProcess(t, args...)
				cmd.Stderr = &stderr
				at := 1 + rng.IntN(len(whole)/3)
				out, err := signalAfterReading(t, cmd, at, stopSignal(i+k))
				require.True(t, len(out) == 0 || out[len(out)-1] == '\n', "the output ends inside a line: %q", out[max(0, len(out)-80):])
				require.True(t, bytes.HasPrefix(whole, out), "the output is not the start of the whole run's")
				requireStopped(t, err, stderr.String(), stopSignal(i+k))
				require.Contains(t, stderr.String(), fmt.Sprintf("after %d item(s)", bytes.Count(out, []byte("\n"))))
			}
		})
	}
}

// runWhole runs args in this process on in and returns all it writes.
func runWhole(t *testing.T, args []string, in []byte) []byte {
	t.Helper()
	var out, stderr bytes.Buffer
	code := run(args, bytes.NewReader(in), &out, &stderr)
	require.Contains(t, []int{exitOK, exitFail}, code, stderr.String())
	return out.Bytes()
}

// TestSecondSignalEndsAtOnce: after a SIGINT, gen waits to write the lines
// it has to a pipe that nobody reads (its first block of lines, 2.8 MB,
// more than the pipe holds); a second signal (SIGTERM) ends it at once, by
// that signal.
func TestSecondSignalEndsAtOnce(t *testing.T) {
	cmd := cliProcess(t, "gen", "--n", "100000", "--pool", "64")
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	cmd.Stdout = w
	startCLI(t, cmd)
	w.Close()
	_, err = r.Read(make([]byte, 1)) // the answers have begun; then nothing is read
	require.NoError(t, err)
	done := waiting(cmd)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	requireAlive(t, done, "the first signal must let it write the lines it has")
	// again until it ends: the first signal's handler lets go of the
	// signals a moment after it came
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for start, ended := time.Now(), false; !ended; {
		require.Less(t, time.Since(start), 30*time.Second, "the second signal does not end it")
		if err := cmd.Process.Signal(syscall.SIGTERM); !errors.Is(err, os.ErrProcessDone) {
			require.NoError(t, err)
		}
		select {
		case <-done:
			ended = true
		case <-tick.C:
		}
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	require.True(t, ws.Signaled() && ws.Signal() == syscall.SIGTERM, "%v", cmd.ProcessState)
}

// TestIgnoredSignalStaysIgnored: mul started with SIGINT ignored (as by
// nohup or in a background job) goes on after one, and still stops at
// whole lines on SIGTERM.
func TestIgnoredSignalStaysIgnored(t *testing.T) {
	pattern := streamPattern(t, curves.P224())
	path := filepath.Join(t.TempDir(), "out.txt")
	out, err := os.Create(path)
	require.NoError(t, err)
	defer out.Close()
	var stderr bytes.Buffer
	// a shell ignores SIGINT, which the process it execs inherits: this
	// process's own signals are left alone
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no shell to start a process with SIGINT ignored")
	}
	cli := cliProcess(t, "mul", "--backend", "cpu")
	cmd := exec.Command(sh, append([]string{"-c", `trap '' INT; exec "$0" "$@"`}, cli.Args...)...)
	cmd.Env, cmd.Stdout, cmd.Stderr = cli.Env, out, &stderr
	fed := startFed(t, cmd, pattern, 7)
	waitFor(t, func() bool { st, err := out.Stat(); return err == nil && st.Size() > 0 })
	done := waiting(cmd)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	requireAlive(t, done, "SIGINT was ignored when it started")
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	err = <-done
	<-fed
	got, rerr := os.ReadFile(path)
	require.NoError(t, rerr)
	requirePatternPrefix(t, pattern, got)
	requireStopped(t, err, stderr.String(), syscall.SIGTERM)
}
