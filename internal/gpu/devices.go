package gpu

import (
	"fmt"
	"runtime"
)

// DeviceInfo describes one CUDA device.
type DeviceInfo struct {
	Ordinal      int
	Name         string
	SMs          int // streaming multiprocessors
	ComputeMajor int
	ComputeMinor int
	TotalMem     uint64 // bytes
	ClockKHz     int    // peak SM clock; 0 if the driver does not report it
}

// String reads like "0: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.2 GiB, 1980 MHz)".
func (di DeviceInfo) String() string {
	return fmt.Sprintf("%d: %s (sm_%d%d, %d SMs, %.1f GiB, %d MHz)",
		di.Ordinal, di.Name, di.ComputeMajor, di.ComputeMinor, di.SMs,
		float64(di.TotalMem)/(1<<30), di.ClockKHz/1000)
}

// FormatDriverVersion renders a DriverVersion value such as 12080 as "12.8".
func FormatDriverVersion(v int) string {
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}

// Devices lists the devices visible to d and reports the driver version.
func Devices(d Driver) ([]DeviceInfo, int, error) {
	version, err := d.DriverVersion()
	if err != nil {
		return nil, 0, err
	}
	n, err := d.DeviceCount()
	if err != nil {
		return nil, version, err
	}
	infos := make([]DeviceInfo, 0, n)
	for i := range n {
		info, err := deviceInfo(d, i)
		if err != nil {
			return nil, version, fmt.Errorf("gpu: device %d: %w", i, err)
		}
		infos = append(infos, info)
	}
	return infos, version, nil
}

func deviceInfo(d Driver, ordinal int) (DeviceInfo, error) {
	info := DeviceInfo{Ordinal: ordinal}
	dev, err := d.Device(ordinal)
	if err != nil {
		return info, err
	}
	if info.Name, err = d.DeviceName(dev); err != nil {
		return info, err
	}
	for _, a := range []struct {
		attr DeviceAttr
		dst  *int
	}{
		{MultiprocessorCount, &info.SMs},
		{ComputeCapabilityMajor, &info.ComputeMajor},
		{ComputeCapabilityMinor, &info.ComputeMinor},
	} {
		if *a.dst, err = d.DeviceAttribute(a.attr, dev); err != nil {
			return info, err
		}
	}
	if info.TotalMem, err = d.DeviceTotalMem(dev); err != nil {
		return info, err
	}
	// The clock is informational only, so a driver that does not report it
	// leaves ClockKHz at 0 instead of failing the listing.
	if clk, err := d.DeviceAttribute(ClockRate, dev); err == nil {
		info.ClockKHz = clk
	}
	return info, nil
}

// LoadsImage reports whether image (a fatbin or PTX) loads on device
// ordinal: it retains the device's primary context, loads the module and
// releases both again, all on one locked OS thread.
func LoadsImage(d Driver, ordinal int, image []byte) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		errc <- loadImage(d, ordinal, image)
	}()
	return <-errc
}

func loadImage(d Driver, ordinal int, image []byte) error {
	dev, err := d.Device(ordinal)
	if err != nil {
		return err
	}
	ctx, err := d.PrimaryCtxRetain(dev)
	if err != nil {
		return err
	}
	defer d.PrimaryCtxRelease(dev)
	if err := d.CtxSetCurrent(ctx); err != nil {
		return err
	}
	mod, err := d.ModuleLoadData(image)
	if err != nil {
		return err
	}
	return d.ModuleUnload(mod)
}
