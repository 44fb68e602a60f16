package dcgm

// DCGMConfig selects how the DCGM source connects to a host engine.
type DCGMConfig struct {
	// Address of a standalone nv-hostengine ("localhost:5555", or a unix
	// socket path when Socket is set); empty starts an embedded engine
	// inside this process (discouraged where nv-hostengine already runs).
	Address string
	Socket  bool
	// Host is recorded in every sample; empty means os.Hostname.
	Host string
}

// NVMLConfig configures the NVML source.
type NVMLConfig struct {
	// LibraryPath overrides where libnvidia-ml.so.1 is loaded from (empty:
	// the dynamic loader's search path).
	LibraryPath string
	// Host is recorded in every sample; empty means os.Hostname.
	Host string
}
