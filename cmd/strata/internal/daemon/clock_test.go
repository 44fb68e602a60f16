package daemon

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/rs/zerolog"
)

// TestDaemonWarnsOfClockSkew (issue 23.8): a host whose clock is off from
// slurmctld's was never noticed. The daemon compares the clocks (every 10
// minutes), publishes the skew and warns beyond 30 s.
func TestDaemonWarnsOfClockSkew(t *testing.T) {
	for _, tc := range []struct {
		name string
		skew time.Duration
		warn bool
	}{
		{"in step", time.Second, false},
		{"slurmctld 90 s ahead", 90 * time.Second, true},
		{"slurmctld 2 min behind", -2 * time.Minute, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bed := testBed{cl: newFakeCluster(testSnapshot()), pg: newFakePostgres(), m: NewMetrics()}
			bed.cl.skew = tc.skew
			d := newTestDaemon(t, bed, testOptions())
			var logs bytes.Buffer
			d.log = zerolog.New(&logs)
			if _, err := d.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			var g dto.Metric
			if err := bed.m.clockSkew.Write(&g); err != nil {
				t.Fatal(err)
			}
			if got := g.GetGauge().GetValue(); got != tc.skew.Seconds() {
				t.Errorf("strata_clock_skew_seconds = %v, want %v", got, tc.skew.Seconds())
			}
			if warned := strings.Contains(logs.String(), "clock differs from slurmctld"); warned != tc.warn {
				t.Errorf("warned %v, want %v; log:\n%s", warned, tc.warn, logs.String())
			}
		})
	}
}
