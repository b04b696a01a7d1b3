package main

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cliEnv, set to 1 in a process's environment, makes the test binary the
// ecmul command: TestMain runs main, with the process's arguments.
const cliEnv = "ECMUL_TEST_BINARY_IS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(cliEnv) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// cliProcess returns the command line args run by the test binary as
// ecmul, in a process of its own.
func cliProcess(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), cliEnv+"=1")
	return cmd
}

// startCLI starts cmd, which is killed if it runs for two minutes or
// outlives the test.
func startCLI(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	require.NoError(t, cmd.Start())
	kill := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	t.Cleanup(func() {
		kill.Stop()
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
}
