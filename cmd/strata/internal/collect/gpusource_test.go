package collect_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/cmd/strata/internal/collect"
	"github.com/strata-hpc/strata/dcgm"
)

// TestGPUSourceRefusedClearly (issue 24.2): on a node without the GPU
// library (this machine: no libdcgm, no driver) or in a build without the
// source, --source dcgm|nvml is a configuration error (exit 2) naming the
// library and the alternative, --source exporter. Runs in the plain build
// (not compiled in) and in the packaged one (-tags dcgm,nvml: the library
// is missing at run time).
func TestGPUSourceRefusedClearly(t *testing.T) {
	for _, src := range []string{"dcgm", "nvml"} {
		t.Run(src, func(t *testing.T) {
			_, err := collect.OpenInput(collect.Config{Source: src, Host: "node1"})
			if err == nil {
				t.Skip("a GPU library is present on this machine")
			}
			var ce *collect.ConfigError
			if !errors.As(err, &ce) || ce.ExitCode() != 2 {
				t.Fatalf("error %v (%T): want a configuration error, exit 2", err, err)
			}
			msg := err.Error()
			for _, want := range []string{"--source " + src, "--source exporter"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q: want it to name %q", msg, want)
				}
			}
			built := slices.Contains(dcgm.Sources(), src)
			if lib := dcgm.Library(src); built && !strings.Contains(msg, strings.Fields(lib)[0]) {
				t.Errorf("message %q: want the missing library %q named", msg, lib)
			}
		})
	}
}
