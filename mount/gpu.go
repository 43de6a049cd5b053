package mount

// DevBindTry binds a device node, which the sandbox can then open as the
// host's user can; one that vanished since the probe is skipped.
const DevBindTry Kind = "--dev-bind-try"

// GPU is what --with-gpu shows inside: the host's GPU device nodes and
// what their drivers' libraries read of the host. The rest of /dev stays
// the sandbox's minimal one.
type GPU struct {
	// Devices are the device nodes: /dev/nvidia*, /dev/nvidia-caps/*,
	// /dev/dri/*, /dev/kfd.
	Devices []string
	// Driver are the paths the drivers' libraries read, shown read-only:
	// /sys, where CUDA, ROCm and Mesa find the devices and their
	// properties, and NixOS's driver directory.
	Driver []string
	// Missing says why a device cannot be used: none on the host, or one
	// the user may not open (for --check and the launch's notice).
	Missing []string
}

// addGPU binds the GPU's devices over the minimal /dev, and its drivers'
// files read-only.
func (p *Plan) addGPU(g *GPU) {
	p.GPU = g
	for _, d := range g.Devices {
		p.add(HostFiles, DevBindTry, d, d, "GPU device (--with-gpu)")
	}
	for _, d := range g.Driver {
		p.add(HostFiles, RoBindTry, d, d, "read by the GPU drivers' libraries (--with-gpu), read-only")
	}
}
