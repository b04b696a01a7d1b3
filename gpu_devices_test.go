package ecmul_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/engine"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
	"github.com/rnsec/ecmul/internal/kernelemu"
)

// devicesDriver installs a fake CUDA driver of n devices, the kernel
// emulated by the CPU twin, as the gpu backend of the test's engines.
func devicesDriver(t testing.TB, _ *curves.Curve, n int) *fakecuda.Driver {
	t.Helper()
	specs := make([]fakecuda.DeviceSpec, n)
	for i := range specs {
		specs[i] = fakecuda.H100()
	}
	d := fakecuda.New(specs...)
	d.OnLaunch = kernelemu.Launch(d)
	t.Cleanup(ecmul.UseGPUDriver(d, []byte("fatbin")))
	return d
}

// syncBuffer is a log destination safe for the engine's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestGPUDeviceFailsMidBatch: on two and three GPUs, the first launch on
// GPU 1 fails. The batch still succeeds with every item right, the
// statistics and a log line name the fault, and the next batch runs on the
// other GPUs only, right again.
func TestGPUDeviceFailsMidBatch(t *testing.T) {
	c := curves.P224()
	for _, devices := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d-devices", devices), func(t *testing.T) {
			d := devicesDriver(t, c, devices)
			var log syncBuffer
			eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU,
				Logger: slog.New(slog.NewTextHandler(&log, nil))}, diag.Tuning{Chunk: 2})
			require.NoError(t, err)
			defer eng.Close()
			fc := newFaultCase(t, c, 13, 0)

			// the other GPUs' launches wait (up to a second) until GPU 1
			// has tried its first, so that it takes a chunk
			emulate := d.OnLaunch
			d.OnLaunch = func(fn string, grid, block [3]uint32, params []unsafe.Pointer) error {
				for deadline := time.Now().Add(time.Second); d.CallsOn(1, "LaunchKernel") == 0 && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
				return emulate(fn, grid, block, params)
			}
			d.FailOn(1, "LaunchKernel", 1, nil)
			res, err := scalarMult(eng, context.Background(), fc.pts, fc.ks)
			d.ClearFailures()
			d.OnLaunch = emulate
			require.NoError(t, err)
			require.Equal(t, len(fc.pts)-1, requireHonest(t, fc, res, nil))
			st, ok := diag.LastBatch(eng)
			require.True(t, ok)
			require.Len(t, st.Devices, devices)
			require.ErrorContains(t, st.Devices[1].Fault, "device 1: cuLaunchKernel")
			require.Contains(t, log.String(), "level=WARN")
			require.Contains(t, log.String(), "device=1")
			require.Contains(t, log.String(), "cuLaunchKernel")

			launches := d.CallsOn(1, "LaunchKernel")
			res, err = scalarMult(eng, context.Background(), fc.pts, fc.ks)
			require.NoError(t, err)
			require.Equal(t, len(fc.pts)-1, requireHonest(t, fc, res, nil))
			st, _ = diag.LastBatch(eng)
			require.Len(t, st.Devices, devices-1, "GPU 1 is left out")
			require.Equal(t, launches, d.CallsOn(1, "LaunchKernel"))
			require.Equal(t, 1, strings.Count(log.String(), "level=WARN"), "one fault, one line")
		})
	}
}

// TestGPUDevicesOption: Options.Devices picks the GPUs; an ordinal the
// driver does not have fails New, holding nothing.
func TestGPUDevicesOption(t *testing.T) {
	c := curves.P224()
	d := devicesDriver(t, c, 3)
	eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU, Devices: []int{2, 0}}, diag.Tuning{Chunk: 2})
	require.NoError(t, err)
	fc := newFaultCase(t, c, 7, 0)
	res, err := scalarMult(eng, context.Background(), fc.pts, fc.ks)
	require.NoError(t, err)
	require.Equal(t, len(fc.pts)-1, requireHonest(t, fc, res, nil))
	st, _ := diag.LastBatch(eng)
	require.Equal(t, 2, st.Devices[0].Device)
	require.Equal(t, 0, st.Devices[1].Device)
	require.Zero(t, d.CallsOn(1, "ModuleLoadData"), "GPU 1 is not opened")
	require.Equal(t, 2, engine.Unwrap[*ecmul.Engine](eng).GPUs(), "the GPUs sharing its batches")
	cpu, err := ecmul.New(pub(c), ecmul.Options{Backend: ecmul.CPU})
	require.NoError(t, err)
	require.Zero(t, engine.Unwrap[*ecmul.Engine](cpu).GPUs(), "no GPU on the cpu backend")
	require.NoError(t, cpu.Close())
	require.NoError(t, eng.Close())
	require.Zero(t, d.Live())

	_, err = ecmul.New(pub(c), ecmul.Options{Backend: ecmul.GPU, Devices: []int{0, 3}})
	require.ErrorContains(t, err, "device 3")
	require.Zero(t, d.Live())
}
