package slurm_test

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/slurm"
)

// TestIntegrationClockSkew (issue 23.8): slurmctld's clock is read through
// slurmrestd (GET /diag req_time). The test cluster runs on this host's
// clock, so the skew is within the reading's one-second resolution.
func TestIntegrationClockSkew(t *testing.T) {
	cl, _ := integration(t)
	c, err := slurm.New(context.Background(), cl.Config, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	skew, err := c.ClockSkew(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if skew < -2*time.Second || skew > 2*time.Second {
		t.Errorf("skew %v between this host and a slurmctld on the same host, want within ±2 s", skew)
	}
}
